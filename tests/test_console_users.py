"""`studio users add/list`: the user file holds argon2id hashes only, readable by its owner, and
bad input is one line with exit status 2."""

from __future__ import annotations

import io
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from studio.cli import main
from studio.console.users import UserDirectory, read_users


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture(name="studio_users")
def studio_users_fixture(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run `studio users ...` in this process (the CLI's own `main`), with a password on stdin."""

    def run(path: Path, *args: str, password: str = "") -> Ran:
        monkeypatch.setattr(sys, "stdin", io.StringIO(password + "\n"))
        try:
            status = main(["users", *args, "--users", str(path)])
        except SystemExit as exit_:  # argparse's refusal of a bad choice
            status = int(exit_.code or 0)
        out, err = capsys.readouterr()
        return Ran(status, out, err)

    return run


def test_users_are_added_hashed_and_checked(tmp_path: Path, studio_users) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "console" / "users.json"
    added = studio_users(
        path,
        "add",
        "alice",
        "--role",
        "shift_manager",
        "--password-stdin",
        password="correct horse",
    )
    assert added.returncode == 0, added.stderr
    assert "alice: role shift_manager" in added.stdout
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "correct horse" not in path.read_text()
    [user] = read_users(path).users
    assert user.hash.startswith("$argon2id$")
    directory = UserDirectory(path)
    assert directory.verify("alice", "correct horse") == user
    assert directory.verify("alice", "wrong horse") is None
    assert directory.verify("mallory", "correct horse") is None
    assert studio_users(path, "list").stdout == "alice shift_manager\n"


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, studio_users) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "users.json"
    assert (
        studio_users(
            path, "add", "bob", "--role", "dealer", "--password-stdin", password="long enough"
        ).returncode
        == 0
    )
    for args, password, words in (
        (("add", "bob", "--role", "dealer"), "another one", "already has a user named 'bob'"),
        (("add", "carol", "--role", "dealer"), "short", "at least 8 characters"),
        (("add", "bad name", "--role", "dealer"), "long enough", "bad user name"),
    ):
        result = studio_users(path, *args, "--password-stdin", password=password)
        assert result.returncode == 2, result
        assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1
    result = studio_users(
        path, "add", "dave", "--role", "console", "--password-stdin", password="x" * 9
    )
    assert result.returncode == 2  # a console is a key, never a person
    path.write_text("{not json")
    broken = studio_users(path, "list")
    assert broken.returncode == 2 and "is invalid" in broken.stderr
