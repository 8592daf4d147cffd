"""`studio status` and `studio command` find a live table by its run file (real `studio run`)."""

from __future__ import annotations

import json
import subprocess
import sys

from test_e2e_support import (  # noqa: F401  (the fixture is used by name)
    TableRig,
    rig_fixture,
)


def _studio(rig: TableRig, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "studio.cli", *args],
        env=rig.env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_status_says_running_then_paused_and_command_uses_the_run_file(rig: TableRig) -> None:
    rig.start()
    running = _studio(rig, "status")
    assert running.returncode == 0, running.stdout + running.stderr
    assert "table T01 (caribbean-stud" in running.stdout
    assert "state     running" in running.stdout
    assert "device    shoe" in running.stdout
    # No --endpoint: the command channel comes from the run file (an ipc path), not the default
    # TCP port where nothing listens.
    manager = str(rig.keys_dir / "shift-manager.key_secret")
    called = _studio(rig, "command", "call_manager", "--key", manager)
    assert (called.returncode, called.stdout.strip()) == (0, "accepted"), called.stderr
    paused = _studio(rig, "status", "--json")
    assert paused.returncode == 1, paused.stdout + paused.stderr
    view = json.loads(paused.stdout)
    assert view["paused"] is True
    assert [i["kind"] for i in view["incidents"]] == ["manager_called"]
    words = _studio(rig, "status")
    assert "PAUSED" in words.stdout and "manager_called" in words.stdout
    assert "to resume nothing blocks it: a shift manager resumes" in words.stdout
    # The default (observer) key gets the public view; the manager's key the restricted one,
    # with the same state.
    restricted = _studio(rig, "status", "--json", "--key", manager)
    assert restricted.returncode == 1, restricted.stderr
    assert json.loads(restricted.stdout)["incidents"][0]["kind"] == "manager_called"


def test_status_of_no_table_is_unreachable(rig: TableRig) -> None:
    rig.start()
    rig.close()
    gone = _studio(rig, "status", "--timeout", "0.5")
    assert gone.returncode == 2
    assert "unreachable" in gone.stdout + gone.stderr
