"""Signed checkpoints kept away from the journal reveal whole trailing rounds deleted from it."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from test_e2e_support import table_rig

from studio.journal import Journal
from studio.journal.anchors import (
    SIGN_PUBLIC,
    SIGN_SECRET,
    CheckpointSigner,
    check_anchors,
    read_anchors,
    signature_ok,
)

NO_CAMERA = '[camera]\nbackend = "none"\n'


def _journal_with(path: Path, inputs: int) -> Journal:
    journal = Journal(path)
    for i in range(inputs):
        journal.append_input({"kind": "tick", "i": i})
        journal.append_events([{"seq": journal.last_event_seq + 1, "game_number": None}])
    return journal


def test_a_checkpoint_is_signed_and_its_key_is_kept_private(tmp_path: Path) -> None:
    signer = CheckpointSigner.load_or_create(tmp_path)
    assert (tmp_path / SIGN_SECRET).stat().st_mode & 0o777 == 0o600
    assert (tmp_path / SIGN_PUBLIC).read_text().strip() == signer.public_hex
    # The same key comes back: a table's checkpoints stay verifiable across restarts.
    assert CheckpointSigner.load_or_create(tmp_path).public_hex == signer.public_hex
    with _journal_with(tmp_path / "t.journal", 3) as journal:
        cp = signer.checkpoint("T01", journal, datetime.now(UTC), "round_end")
    assert (cp.records, cp.last_seq) == (6, 3)
    assert signature_ok(cp) and signature_ok(cp, signer.public_hex)
    assert not signature_ok(cp.model_copy(update={"records": 5}))
    (tmp_path / "other").mkdir()
    other = CheckpointSigner.load_or_create(tmp_path / "other")
    assert not signature_ok(cp, other.public_hex)


def test_trailing_records_cut_off_are_found_by_the_checkpoints(tmp_path: Path) -> None:
    signer = CheckpointSigner.load_or_create(tmp_path)
    path = tmp_path / "t.journal"
    with _journal_with(path, 4) as journal:
        early = signer.checkpoint("T01", journal, datetime.now(UTC), "interval")
        for _ in range(2):
            journal.append_input({"kind": "tick"})
            journal.append_events([{"seq": journal.last_event_seq + 1, "game_number": None}])
        late = signer.checkpoint("T01", journal, datetime.now(UTC), "round_end")
        assert check_anchors(journal, [late, early], "T01").problem is None
    _cut(path, early.records)
    with Journal(path, readonly=True) as journal:
        report = check_anchors(journal, [early, late], "T01")
    assert report.checked == 1
    assert report.problem is not None and "records 9..12 are missing" in report.problem


def _cut(path: Path, keep: int) -> None:
    """What a forger does: delete every record after `keep` and move the head to match."""
    db = sqlite3.connect(path)
    with db:
        head = db.execute("SELECT hash FROM records WHERE id = ?", (keep,)).fetchone()[0]
        db.execute("DELETE FROM records WHERE id > ?", (keep,))
        db.execute("UPDATE meta SET value = ? WHERE key = 'head'", (f"{keep}:{head}",))
    db.close()


def _studio(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "studio.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_journal_verify_with_the_kept_anchors_sees_deleted_rounds(tmp_path: Path) -> None:
    anchors = tmp_path / "anchors.jsonl"
    with table_rig(tmp_path, extra=NO_CAMERA) as rig:
        proc = rig.start()
        kept = _studio(rig.env, "journal", "anchors", "--out", str(anchors), "--count", "3")
        assert kept.returncode == 0, kept.stderr
        assert "kept 3 checkpoint(s) of table T01" in kept.stdout
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    cps = read_anchors(anchors)
    assert [cp.reason for cp in cps] == ["round_end"] * 3
    sound = _studio(rig.env, "journal", "verify", str(rig.journal), "--anchors", str(anchors))
    assert sound.returncode == 0, sound.stdout + sound.stderr
    assert "3 checkpoint(s) kept elsewhere match the journal" in sound.stdout
    # Cut the journal back to the first checkpoint: whole rounds gone, the chain still sound.
    _cut(rig.journal, cps[0].records)
    blind = _studio(rig.env, "journal", "verify", str(rig.journal))
    assert blind.returncode == 0, blind.stdout
    caught = _studio(rig.env, "journal", "verify", str(rig.journal), "--anchors", str(anchors))
    assert caught.returncode == 1
    assert "BAD: anchors: records" in caught.stdout and "trailing records deleted" in caught.stdout
