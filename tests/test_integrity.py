"""The table checks its installed software and configuration against a certified manifest.

A real `studio run` imports a copy of the three packages (so the test may tamper with an
installed file without touching the checkout); its manifest comes from `studio integrity
manifest`. A tampered file is found at a shift manager's `check_integrity` and at the next start:
the table pauses, no round opens, the hashes are journalled and the report reaches the restricted
stream.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_e2e_support import TableRig, table_rig

from studio.bus import Subscriber
from studio.config import load_config
from studio.journal import Journal
from studio.messages import IntegrityChecked, parse_input
from studio.messages.notices import IntegrityReport
from studio.runtime.integrity import IntegrityChecker, IntegritySchedule
from studio.runtime.manifest import Manifest, config_text, hash_files, package_roots

TAMPERED = "studio/games/limits.py"


def test_the_schedule_is_due_at_start_then_every_period() -> None:
    schedule = IntegritySchedule(timedelta(hours=24))
    t0 = datetime(2026, 12, 1, 8, tzinfo=UTC)
    assert schedule.due(t0)
    schedule.checked(t0)
    assert not schedule.due(t0 + timedelta(hours=23, minutes=59))
    assert schedule.due(t0 + timedelta(hours=24))
    assert schedule.next_due() == t0 + timedelta(hours=24)


def test_a_changed_added_or_missing_file_and_another_config_are_differences(
    tmp_path: Path,
) -> None:
    roots = {}
    for name, root in package_roots().items():
        roots[name] = tmp_path / name
        shutil.copytree(root, roots[name], ignore=shutil.ignore_patterns("__pycache__"))
    config = load_config(None)
    manifest = tmp_path / "manifest.json"
    made = Manifest(created=datetime.now(UTC), files=hash_files(roots, config_text(config)))
    manifest.write_text(made.model_dump_json())
    checker = IntegrityChecker(manifest, config, roots)
    assert checker.check("start", datetime.now(UTC)).differences == []
    (roots["studio"] / "games" / "limits.py").write_text("# tampered\n", encoding="utf-8")
    (roots["drivers"] / "extra.py").write_text("print('hello')\n", encoding="utf-8")
    (roots["calibration"] / "py.typed").unlink()
    found = checker.check("command", datetime.now(UTC)).differences
    assert [line.split()[0] for line in found] == [
        "calibration/py.typed",
        "drivers/extra.py",
        TAMPERED,
    ]
    assert "missing" in found[0] and "not in the manifest" in found[1] and "changed" in found[2]
    other = IntegrityChecker(manifest, load_config(None, game="ultimate-holdem"), roots)
    assert "config:effective changed" in "".join(
        other.check("start", datetime.now(UTC)).differences
    )


def _studio(rig: TableRig, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "studio.cli", *args],
        env=rig.env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _view(rig: TableRig) -> dict[str, object]:
    manager = str(rig.keys_dir / "shift-manager.key_secret")
    status = _studio(rig, "status", "--json", "--key", manager)
    view: dict[str, object] = json.loads(status.stdout)
    return view


def _report(sub: Subscriber, timeout: float = 30.0) -> IntegrityReport:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sub.receive(timeout=0.2)
        for notice in sub.notices():
            if isinstance(notice, IntegrityReport):
                return notice
    pytest.fail("no integrity report on the restricted stream")


def _incident_kinds(view: dict[str, object]) -> list[str]:
    incidents = view["incidents"]
    assert isinstance(incidents, list)
    return [str(i["kind"]) for i in incidents]


def test_a_tampered_installed_file_pauses_the_table_until_a_manager_acts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `python -m` puts the working directory first on the path: run from where no package is.
    monkeypatch.chdir(tmp_path)
    site = tmp_path / "site"
    for name, root in package_roots().items():
        shutil.copytree(root, site / name, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = tmp_path / "manifest.json"
    extra = f'[camera]\nbackend = "none"\n[integrity]\nmanifest = "{manifest}"\n'
    with table_rig(tmp_path, extra=extra) as rig:
        rig.env["PYTHONPATH"] = str(site)
        made = _studio(
            rig, "integrity", "manifest", "--config", str(rig.config), "--out", str(manifest)
        )
        assert made.returncode == 0, made.stderr
        proc = rig.start()
        assert _view(rig)["paused"] is False
        (site / TAMPERED).write_text(
            (site / TAMPERED).read_text(encoding="utf-8") + "\nLIMIT = 0  # tampered\n",
            encoding="utf-8",
        )
        manager = str(rig.keys_dir / "shift-manager.key_secret")
        with rig.subscriber("shift-manager", restricted=True) as sub:
            asked = _studio(rig, "command", "check_integrity", "--key", manager)
            assert asked.stdout.strip() == "accepted", asked.stdout + asked.stderr
            report = _report(sub)
        assert report.why == "command" and report.journalled is True
        assert [line.split()[0] for line in report.differences] == [TAMPERED]
        paused_in = _view(rig)["game_number"]
        time.sleep(1.0)  # the simulated dealer would open a round now, were it allowed
        view = _view(rig)
        kinds = _incident_kinds(view)
        assert view["paused"] is True and kinds[0] == "integrity_mismatch", kinds
        # The only other incident may be the one card the dealer had already put in the shoe's
        # line as the pause came (it arrives out of turn); no card is drawn, no round opened after.
        assert kinds[1:] in ([], ["card_out_of_turn"]), kinds
        assert view["game_number"] == paused_in
        opened = _studio(rig, "command", "start_round", "--key", manager)
        assert opened.stdout.startswith("refused"), opened.stdout
        blockers = view["blockers"]
        assert isinstance(blockers, list)
        if any("discard_last_card" in b["actions"] for b in blockers):
            discarded = _studio(rig, "command", "discard_last_card", "--key", manager)
            assert discarded.stdout.strip() == "accepted", discarded.stdout + discarded.stderr
        assert _studio(rig, "command", "resume", "--key", manager).stdout.strip() == "accepted"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
        # Started again with the file still changed: paused before any card.
        proc = rig.start()
        assert "integrity_mismatch" in rig.banner
        view = _view(rig)
        # (A round the stop cut short comes back paused as well: controller_restarted.)
        assert view["paused"] is True and "integrity_mismatch" in _incident_kinds(view)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    checks = []
    with Journal(rig.journal, readonly=True) as journal:
        for record in journal.records():
            if record.kind == "input":
                inp = parse_input(record.body)
                if isinstance(inp, IntegrityChecked):
                    checks.append(inp)
    assert [c.why for c in checks] == ["start", "command", "start"]
    assert [len(c.differences) for c in checks] == [0, 1, 1]
    # Every hash is on record, the tampered file's new one too.
    assert len(checks[1].hashes) == len(checks[0].hashes) > 100
    assert checks[1].hashes[TAMPERED] != checks[0].hashes[TAMPERED]


def test_the_runtimes_clock_runs_the_periodic_check(tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    # A period of under two seconds stands for the 24 hours: the same timer drives both.
    extra = (
        f'[camera]\nbackend = "none"\n[integrity]\nmanifest = "{manifest}"\ncheck_hours = 0.0005\n'
    )
    with table_rig(tmp_path, extra=extra) as rig:
        made = _studio(
            rig, "integrity", "manifest", "--config", str(rig.config), "--out", str(manifest)
        )
        assert made.returncode == 0, made.stderr
        rig.start()
        with rig.subscriber("shift-manager", restricted=True) as sub:
            report = _report(sub, timeout=20.0)
        assert report.why == "schedule" and report.differences == []
        assert _view(rig)["paused"] is False
