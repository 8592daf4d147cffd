"""`studio run` with a camera: the synthetic camera confirms every card; a stalled camera pauses.

Real processes as in `test_e2e_table.py`: the simulated shoe on a pty through the serial driver,
the journal in SQLite, ZeroMQ on ipc. With the embedded default camera (synthetic), the simulated
dealer lays each card on the felt, the camera draws the felt, the recognizer reads it and only
the camera's `card_seen` inputs confirm the cards: the journal shows every card confirmed before
its round's result, and no camera incident. A real-camera backend (`capture`) reads an MJPEG
stream over HTTP from this test; when the stream stops sending, the table pauses with a device
fault.
"""

from __future__ import annotations

import json
import signal
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import pytest
from test_e2e_support import TableRig, body, collect, table_rig

from calibration.profile import CalibrationProfile, save_profile
from drivers.camera.synthetic.designs import JUMBO
from drivers.camera.synthetic.felt import Felt, FeltLayout, FeltSource, felt_profile
from studio.cli import main
from studio.games import get_rules
from studio.journal import Journal
from studio.runtime.camera import position_rows

ROUNDS = 4


def _camera_record(journal: Path) -> tuple[int, list[str], int]:
    """Rounds ended, problems (unconfirmed cards, incidents), and camera sightings of cards.

    Walks the journal in order: each card the table announced (restricted `card_dealt`) waits
    for a `card_seen` input at its position with its face (and code, face up); a round's result
    with a card still waiting is a problem, and so is any incident.
    """
    rounds, problems, confirmed = 0, [], 0
    waiting: dict[str, tuple[str, str | None]] = {}
    with Journal(journal, readonly=True) as store:
        for record in store.records():
            data: dict[str, Any] = json.loads(record.body)
            if record.kind != "event":
                seen = (data.get("face"), data.get("card"))
                if data["kind"] == "card_seen" and waiting.get(data["zone"]) == seen:
                    del waiting[data["zone"]]
                    confirmed += 1
                continue
            event = data["body"]
            if data["type"] == "card_dealt" and data["audience"] == "restricted":
                up = event["face"] == "up"
                waiting[event["position"]] = (event["face"], event["card"] if up else None)
            elif data["type"] == "incident_reported":
                problems.append(f"{event['kind']}: {event['detail']}")
            elif data["type"] == "round_result":
                rounds += 1
                problems += [f"{p} not confirmed" for p in waiting]
                waiting.clear()
    return rounds, problems, confirmed


@pytest.mark.parametrize(("game", "cards"), [("caribbean-stud", 10), ("ultimate-holdem", 9)])
def test_the_synthetic_camera_confirms_every_card_of_the_default_table(
    tmp_path: Path, game: str, cards: int
) -> None:
    with table_rig(tmp_path, game) as rig:
        proc = rig.start("--rounds", str(ROUNDS))
        assert "camera      synthetic" in rig.banner
        assert proc.wait(timeout=120) == 0
        rounds, problems, confirmed = _camera_record(rig.journal)
    assert (rounds, problems) == (ROUNDS, [])
    assert confirmed == ROUNDS * cards


@pytest.mark.parametrize(("game", "cards"), [("caribbean-stud", 10), ("ultimate-holdem", 9)])
def test_a_camera_only_table_deals_from_the_felt(tmp_path: Path, game: str, cards: int) -> None:
    with table_rig(tmp_path, game) as rig:
        rig.reconfigure(card_source="camera")
        proc = rig.start("--rounds", "2")
        assert proc.wait(timeout=120) == 0
        with Journal(rig.journal, readonly=True) as store:
            records = [(r.kind, json.loads(r.body)) for r in store.records()]
    # No card came from the shoe: the dealer laid each on the felt and the camera seated it.
    assert not [d for kind, d in records if kind != "event" and d["kind"] == "card_drawn"]
    events = [d for kind, d in records if kind == "event"]
    assert [e["body"]["kind"] for e in events if e["type"] == "incident_reported"] == []
    assert sum(e["type"] == "round_result" and e["audience"] == "public" for e in events) == 2
    dealt = [e for e in events if e["type"] == "card_dealt" and e["audience"] == "public"]
    assert len(dealt) == 2 * cards


class MjpegCamera:
    """An IP camera on loopback: an MJPEG stream over HTTP that stops sending on `stall()`."""

    def __init__(self, frame: Any) -> None:
        ok, data = cv2.imencode(".jpg", frame)
        assert ok
        self._jpeg = data.tobytes()
        self._server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}/video.mjpg"
        self._stalled = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        try:
            conn, _ = self._server.accept()
        except OSError:
            return
        with conn:
            conn.recv(4096)
            conn.sendall(
                b"HTTP/1.0 200 OK\r\n"
                b"Content-Type: multipart/x-mixed-replace; boundary=frame\r\n\r\n"
            )
            part = b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(
                self._jpeg
            )
            while not self._stalled.is_set():
                try:
                    conn.sendall(part + self._jpeg + b"\r\n")
                except OSError:
                    return
                self._stalled.wait(0.05)
            # A hung camera: the connection stays open and nothing more arrives.
            self._done.wait(30)

    def stall(self) -> None:
        self._stalled.set()

    def close(self) -> None:
        self._stalled.set()
        self._done.set()
        self._server.close()
        self._thread.join(timeout=5)


@pytest.fixture(name="ip_camera")
def ip_camera_fixture(tmp_path: Path) -> Iterator[tuple[MjpegCamera, Path]]:
    layout = FeltLayout.build(position_rows(get_rules("caribbean-stud").positions), JUMBO)
    profile, templates = felt_profile(layout)
    save_profile(tmp_path / "profile", profile, templates)
    camera = MjpegCamera(FeltSource(Felt(), layout).read().image)
    try:
        yield camera, tmp_path / "profile"
    finally:
        camera.close()


def test_a_stalled_camera_is_a_device_fault_that_pauses_the_round(
    tmp_path: Path, ip_camera: tuple[MjpegCamera, Path]
) -> None:
    camera, profile = ip_camera
    extra = (
        f'[camera]\nbackend = "capture"\nurl = "{camera.url}"\nprofile = "{profile}"\n'
        "stall_seconds = 0.5\n"
    )
    (tmp_path / "t").mkdir()
    with table_rig(tmp_path / "t", extra=extra) as rig:
        # Nobody lays cards under this camera: a long confirmation time keeps the round dealing
        # until the stall, so the pause is the camera's fault and not a missing confirmation.
        _confirm_within(rig, 60.0)
        proc = rig.start()
        assert f"capture at {camera.url}" in rig.banner
        with rig.subscriber("shift-manager", restricted=True) as sub:
            collect(sub, lambda e: e.type == "card_dealt")
            camera.stall()
            seen = collect(sub, lambda e: e.type == "incident_reported")
        paused = [body(e)["kind"] for e in seen if e.type == "round_paused"]
        assert paused == ["device_fault"]
        incident = body(seen[-1])
        assert (incident["kind"], incident["device"]) == ("device_fault", "camera")
        assert "gave no frame for 0.5 s" in incident["detail"]
        camera.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0


def _confirm_within(rig: TableRig, seconds: float) -> None:
    assert rig.settings.camera_confirm_seconds == 5.0
    rig.reconfigure(camera_confirm_seconds=seconds)


def test_a_capture_profile_must_have_the_games_positions_as_zones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    holdem = FeltLayout.build(position_rows(get_rules("ultimate-holdem").positions), JUMBO)
    save_profile(
        tmp_path / "holdem",
        CalibrationProfile(table=holdem.calibration(), zones=list(holdem.zones)),
    )
    save_profile(tmp_path / "bare", CalibrationProfile())
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("STUDIO_KEYS_DIR", str(tmp_path / "keys"))
    for name, message in [
        ("holdem", "must be the positions of caribbean-stud (missing: player-3 player-4"),
        ("bare", "has no table calibration"),
        ("nowhere", "no calibration profile at"),
    ]:
        (tmp_path / "rigs" / name).mkdir(parents=True)
        extra = f'[camera]\nbackend = "capture"\nurl = "device:0"\nprofile = "{tmp_path / name}"\n'
        with table_rig(tmp_path / "rigs" / name, extra=extra) as rig:
            assert main(["run", "--config", str(rig.config)]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and "\n" not in err, err
