"""Regenerate the console's screenshots in docs/console/.

    python docs/console/screenshots.py      # from the repository's root

It starts a simulated table (`studio run`), a console (`studio console`) and Debian's headless
chromium (through Playwright) in a temporary directory, signs in a dealer and a shift manager,
takes the dealer display while a round is dealt, calls the shift manager from it, and takes the
stopped dealer display, the overview with its alarm and the table's page. Everything it starts is
stopped again; nothing outside the temporary directory is touched.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from studio.console.users import add_user  # noqa: E402

TABLE = """\
[table]
table = "T01"
game = "caribbean-stud"
betting_seconds = 6.0
yellow_seconds = 2.0
decision_seconds = 4.0
round_gap_seconds = 1.0
[camera]
backend = "simulated"
[bus]
public = "ipc://{root}/pub"
restricted = "ipc://{root}/res"
replay = "ipc://{root}/rep"
commands = "ipc://{root}/cmd"
keys_dir = "{root}/keys"
heartbeat_seconds = 0.2
[dealer]
draw_seconds = 0.6
"""


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
        (root / "table.toml").write_text(TABLE.format(root=root))
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
            table, _ = _start(["run", "--config", str(root / "table.toml")], env, r"^ready")
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
    print(f"screenshots written to {HERE}")


def _sign_in(page: object, url: str, name: str, password: str) -> None:
    page.goto(f"{url}/signin")  # type: ignore[attr-defined]
    page.fill("#name", name)  # type: ignore[attr-defined]
    page.fill("#password", password)  # type: ignore[attr-defined]
    page.click("#signin")  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
