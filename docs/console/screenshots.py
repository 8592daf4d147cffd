"""Regenerate the console's screenshots in docs/console/.

    python docs/console/screenshots.py      # from the repository's root

It starts a simulated table (`studio run`), a console (`studio console`) and Debian's headless
chromium (through Playwright) in a temporary directory, signs in a dealer and a shift manager,
takes the dealer display while a round is dealt, calls the shift manager from it, and takes the
stopped dealer display, the overview with its alarm and the table's page. Then a second table,
with a barcode shoe on a pty and a camera (an MJPEG stream served here, showing the felt with a
card at player-1): the shoe cannot read that card, and the shift manager's page shows the incident
with the camera's crop of the zone. Everything it starts is stopped again; nothing outside the
temporary directory is touched.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
# The rig's configuration is test support, not part of the product: it lives in tests/.
sys.path.insert(0, str(ROOT / "tests"))

from rig_support import RigConfig  # noqa: E402

from calibration.profile import save_profile  # noqa: E402
from drivers.camera.synthetic.designs import JUMBO  # noqa: E402
from drivers.camera.synthetic.felt import Felt, FeltLayout, FeltSource, felt_profile  # noqa: E402
from drivers.shoe.sim_line import PtyLine  # noqa: E402
from studio.bus.commands import CommandClient  # noqa: E402
from studio.bus.keys import KeyPair  # noqa: E402
from studio.cards import Card  # noqa: E402
from studio.config import CameraConfig, DealerConfig, cache_dir  # noqa: E402
from studio.console.users import add_user  # noqa: E402
from studio.games import get_rules  # noqa: E402
from studio.runtime.camera import position_rows  # noqa: E402


def _start(args: list[str], env: dict[str, str], ready: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "studio.cli", *args], env=env, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    while line := proc.stdout.readline():
        if re.search(ready, line):
            return proc, line
    raise SystemExit(f"{args[0]} did not start")


def main() -> None:
    """Take the four screenshots (see the module docstring)."""
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is needed: apt-get install chromium")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        # A pace a reader can follow, the simulated shoe and dealer, the simulated camera.
        config = RigConfig(
            root=root,
            betting_seconds=6.0,
            yellow_seconds=2.0,
            decision_seconds=4.0,
            round_gap_seconds=1.0,
            auto_start=False,
            shoe="simulated",
            camera=CameraConfig(backend="simulated"),
            dealer=DealerConfig(draw_seconds=0.6),
        ).write()
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "XDG_DATA_HOME": str(root / "data"),
            "STUDIO_KEYS_DIR": str(root / "keys"),
        }
        users = root / "users.json"
        add_user(users, "alice", "shift_manager", "alice-password")
        add_user(users, "bob", "dealer", "bob-password")
        procs = []
        try:
            table, _ = _start(["run", "--config", str(config)], env, r"^ready")
            procs.append(table)
            console, line = _start(
                ["console", "--port", "0", "--users", str(users)], env, r"open http"
            )
            procs.append(console)
            url = re.findall(r"http://\S+", line)[0]
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=chromium, args=["--no-sandbox"]
                )
                size = {"width": 1280, "height": 720}
                dealer = browser.new_page(viewport=size)
                _sign_in(dealer, url, "bob", "bob-password")
                dealer.wait_for_selector("#dealer[data-phase='dealing']", timeout=30000)
                dealer.locator("#cards .card").nth(6).wait_for(timeout=30000)
                dealer.screenshot(path=str(HERE / "dealer.png"))
                manager = browser.new_page(viewport=size)
                _sign_in(manager, url, "alice", "alice-password")
                dealer.on("dialog", lambda dialog: dialog.accept())
                for _ in range(3):  # a call between two rounds is refused: call again
                    dealer.click("#call-manager")
                    try:
                        dealer.locator("#stop").wait_for(state="visible", timeout=5000)
                        break
                    except PlaywrightTimeout:
                        continue
                dealer.screenshot(path=str(HERE / "dealer-stopped.png"))
                manager.locator("#alarm").wait_for(state="visible")
                time.sleep(0.3)
                manager.screenshot(path=str(HERE / "overview.png"))
                manager.goto(f"{url}/table/T01")
                manager.wait_for_selector("#incidents .incident")
                manager.screenshot(path=str(HERE / "table.png"))
                browser.close()
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=20)
    _camera_table(chromium)
    print(f"screenshots written to {HERE}")


def _camera_table(chromium: str) -> None:
    """The table page of an incident with the camera's crop of its zone (table-camera.png)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        layout = FeltLayout.build(position_rows(get_rules("caribbean-stud").positions), JUMBO)
        profile, templates = felt_profile(layout, model_cache=cache_dir())
        save_profile(root / "profile", profile, templates)
        felt = Felt(seed=3)
        felt.place("player-1", Card.parse("QH"), face_up=True)  # the card the shoe misread
        camera = _MjpegStream(FeltSource(felt, layout).read().image)
        # A barcode shoe on `line`, the camera above, and a confirmation that never times out
        # before the screenshot is taken.
        capture = CameraConfig(
            backend="capture", url=camera.url, profile=str(root / "profile"), fps=2
        )
        rig = RigConfig(
            root=root,
            table="T02",
            betting_seconds=1.0,
            yellow_seconds=0.3,
            decision_seconds=4.0,
            round_gap_seconds=3.0,
            camera_confirm_seconds=600.0,
            auto_start=False,
            camera=capture,
        )
        config = rig.write()
        line = PtyLine(rig.shoe_line)
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "XDG_DATA_HOME": str(root / "data"),
            "STUDIO_KEYS_DIR": str(root / "keys"),
        }
        users = root / "users.json"
        add_user(users, "alice", "shift_manager", "alice-password")
        procs = []
        try:
            table, _ = _start(["run", "--config", str(config)], env, r"^ready")
            procs.append(table)
            console, started = _start(
                ["console", "--port", "0", "--users", str(users)], env, r"open http"
            )
            procs.append(console)
            url = re.findall(r"http://\S+", started)[0]
            keys = root / "keys"
            manager = KeyPair.load(keys / "shift-manager.key_secret")
            server = KeyPair.load(keys / "table.key").public
            with CommandClient(f"ipc://{root}/cmd", manager, server) as client:
                client.send("start_round")
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=chromium, args=["--no-sandbox"]
                )
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                _sign_in(page, url, "alice", "alice-password")
                page.goto(f"{url}/table/T02")
                page.wait_for_selector("text=next card to player-1", timeout=30000)
                for _ in range(3):  # the shoe saw the card and could not read it
                    line.write(b"NOREAD\r\n")
                    try:
                        page.wait_for_selector("text=PAUSED", timeout=5000)
                        break
                    except PlaywrightTimeout:
                        continue
                page.wait_for_function(
                    "() => { const i = document.querySelector('img.crop');"
                    " return i && i.complete && i.naturalWidth > 0; }",
                    timeout=30000,
                )
                time.sleep(0.3)
                page.screenshot(path=str(HERE / "table-camera.png"))
                browser.close()
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=20)
            camera.close()
            line.close()


class _MjpegStream:
    """An IP camera on loopback: `image` over and over as an MJPEG stream over HTTP."""

    def __init__(self, image: Any) -> None:
        import cv2

        ok, data = cv2.imencode(".jpg", image)
        assert ok
        self._part = (
            b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n" % len(data)
            + data.tobytes()
            + b"\r\n"
        )
        self._server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._server.getsockname()[1]}/video.mjpg"
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
            while not self._done.is_set():
                try:
                    conn.sendall(self._part)
                except OSError:
                    return
                self._done.wait(0.1)

    def close(self) -> None:
        self._done.set()
        self._server.close()
        self._thread.join(timeout=5)


def _sign_in(page: object, url: str, name: str, password: str) -> None:
    page.goto(f"{url}/signin")  # type: ignore[attr-defined]
    page.fill("#name", name)  # type: ignore[attr-defined]
    page.fill("#password", password)  # type: ignore[attr-defined]
    page.click("#signin")  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
