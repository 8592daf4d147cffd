"""Shared pieces of the console tests: users, a `studio console` process, a headless Chromium.

The console runs as a real `studio console` process next to a real `studio run` (see
`test_e2e_support`), on a loopback port the kernel picks; the browser is Debian's `chromium`
driven by Playwright. Tests that need the browser skip, saying why, when either is missing.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from test_e2e_support import START_SECONDS, TableRig

from studio.console.users import add_user

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

PASSWORDS = {"alice": "alice-password", "bob": "bob-password", "olga": "olga-password"}
ROLES = {"alice": "shift_manager", "bob": "dealer", "olga": "observer"}


def write_users(path: Path) -> Path:
    """A user file with a shift manager (alice), a dealer (bob) and an observer (olga)."""
    for name, password in PASSWORDS.items():
        add_user(path, name, ROLES[name], password)  # type: ignore[arg-type]
    return path


@dataclass
class ConsoleProcess:
    """A `studio console` process serving one table; `url` is where it listens."""

    proc: subprocess.Popen[str]
    url: str
    output: list[str] = field(default_factory=list)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


@contextmanager
def console_for(rig: TableRig, *args: str) -> Iterator[ConsoleProcess]:
    """Start `studio console --port 0` for the rig's table (found by its run file)."""
    users = write_users(rig.root / "users.json")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "studio.cli",
            "console",
            "--port",
            "0",
            "--users",
            str(users),
            *args,
        ],
        env=rig.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + START_SECONDS
    url = ""
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        found = re.search(r"open (http://\S+)", line)
        if found:
            url = found.group(1)
            break
    console = ConsoleProcess(proc, url)
    try:
        if not url:
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(f"studio console did not start: {err}")
        threading.Thread(target=proc.stdout.read, daemon=True).start()
        yield console
    finally:
        console.close()


@contextmanager
def browser() -> Iterator[Any]:
    """A headless Chromium (Debian's) under Playwright; skips when either is missing."""
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            # No sandbox: the tests run as root in a container, where Chromium refuses one.
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            yield chromium
        finally:
            chromium.close()


def sign_in(page: Any, url: str, name: str, password: str | None = None) -> None:
    """Sign `name` in on `page` through the sign-in form."""
    page.goto(f"{url}/signin")
    page.fill("#name", name)
    page.fill("#password", password if password is not None else PASSWORDS[name])
    page.click("#signin")
