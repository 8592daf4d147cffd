"""`studio keys` and `studio command` against a real command channel on loopback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_bus_support import no_leaks  # noqa: F401  (autouse fixture)

from studio.bus import (
    AllowList,
    CommandChannel,
    CommandDecision,
    CommandRequest,
    KeyPair,
    ServerSecurity,
)
from studio.cli import main


def _accept(request: CommandRequest) -> CommandDecision:
    return CommandDecision(True)


def test_keys_new_list_remove_and_command_by_role(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = ["--dir", str(tmp_path)]
    assert main(["keys", "new", "table", "--server", *folder]) == 0
    assert main(["keys", "new", "alice", "--role", "shift_manager", *folder]) == 0
    assert main(["keys", "new", "bob", "--role", "dealer", *folder]) == 0
    assert main(["keys", "new", "bob", "--role", "observer", *folder]) == 2
    assert main(["keys", "new", "../evil", "--role", "observer", *folder]) == 2
    capsys.readouterr()
    assert main(["keys", "list", *folder]) == 0
    listed = [line.split()[:2] for line in capsys.readouterr().out.splitlines()]
    assert listed == [["alice", "shift_manager"], ["bob", "dealer"]]
    assert main(["keys", "list", "--json", *folder]) == 0
    as_json = json.loads(capsys.readouterr().out)
    assert [(k["name"], k["role"]) for k in as_json] == [
        ("alice", "shift_manager"),
        ("bob", "dealer"),
    ]
    assert all(len(k["public_key"]) == 40 for k in as_json)
    assert oct((tmp_path / "alice.key_secret").stat().st_mode & 0o777) == "0o600"

    server = KeyPair.load(tmp_path / "table.key_secret")
    security = ServerSecurity(server, AllowList(tmp_path / "allow_list.json"))
    with CommandChannel("tcp://127.0.0.1:0", _accept, security) as channel:
        common = ["--endpoint", channel.endpoint, "--server-key", str(tmp_path / "table.key")]
        alice = ["--key", str(tmp_path / "alice.key_secret"), *common]
        bob = ["--key", str(tmp_path / "bob.key_secret"), *common]
        capsys.readouterr()
        assert main(["command", "void", "note=misdeal", *alice]) == 0
        assert capsys.readouterr().out.strip() == "accepted"
        assert main(["command", "void", *bob]) == 1
        assert capsys.readouterr().out.strip() == "refused: role dealer may not void"
        assert main(["command", "void", "--json", *bob]) == 1
        assert json.loads(capsys.readouterr().out) == {
            "action": "void",
            "status": "refused",
            "reason": "role dealer may not void",
        }
        assert main(["command", "void", "--json", *alice]) == 0
        assert json.loads(capsys.readouterr().out) == {
            "action": "void",
            "status": "accepted",
            "reason": None,
        }
        assert main(["command", "correct_card", "card=AS", "position=dealer_1", *alice]) == 0
        assert main(["command", "void", "colour=red", *alice]) == 2
        # A public key file cannot sign: one clear line, exit 2.
        assert main(["command", "void", "--key", str(tmp_path / "alice.key"), *common]) == 2
        assert main(["keys", "remove", "alice", *folder]) == 0
        assert main(["command", "void", "--timeout", "0.5", *alice]) == 2
        err = capsys.readouterr().err
        assert "did not answer" in err
        assert "Traceback" not in err


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe not UTF-8", b"{ not json", b'{"keys": [{"name": "x"}]}', b'{"colour": 1}'],
)
def test_a_damaged_allow_list_is_one_line_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    (tmp_path / "allow_list.json").write_bytes(content)
    for argv in (["keys", "list"], ["keys", "new", "carol", "--role", "dealer"]):
        assert main([*argv, "--dir", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "allow_list.json" in err, err


def test_a_bad_endpoint_or_timeout_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = ["--dir", str(tmp_path)]
    assert main(["keys", "new", "table", "--server", *folder]) == 0
    assert main(["keys", "new", "alice", "--role", "shift_manager", *folder]) == 0
    alice = [
        "--key",
        str(tmp_path / "alice.key_secret"),
        "--server-key",
        str(tmp_path / "table.key"),
    ]
    capsys.readouterr()
    for extra in (
        ["--endpoint", "nonsense"],
        # libzmq would read port 99999 as 34463 and talk to whatever listens there.
        ["--endpoint", "tcp://127.0.0.1:99999"],
        ["--endpoint", "tcp://127.0.0.1:\u00b2"],  # isdigit() but not int()
        ["--timeout", "nan"],
        ["--timeout", "-1"],  # zmq would wait forever
        ["--timeout", "1e12"],
    ):
        assert main(["command", "call_manager", *alice, *extra]) == 2, extra
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and any(p in err for p in extra), err
    for proxy in (["--upstream", "nonsense"], ["--frontend", "tcp://127.0.0.1:99999"]):
        assert main(["proxy", "--frontend", "tcp://127.0.0.1:0", *proxy]) == 2
        out, err = capsys.readouterr()
        assert err.count("\n") == 1 and proxy[1] in err, err


def test_a_damaged_key_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A key of the wrong length loaded fine and failed at setsockopt: a ZMQError traceback.
    folder = ["--dir", str(tmp_path)]
    assert main(["keys", "new", "table", "--server", *folder]) == 0
    assert main(["keys", "new", "alice", "--role", "shift_manager", *folder]) == 0
    good = (tmp_path / "alice.key_secret").read_text(encoding="utf-8")
    damaged = tmp_path / "damaged.key_secret"
    damaged.write_text(good.replace('public-key = "', 'public-key = "!!', 1), encoding="utf-8")
    capsys.readouterr()
    server = ["--server-key", str(tmp_path / "table.key")]
    for argv in (
        ["--key", str(damaged), *server],
        ["--key", str(tmp_path / "alice.key_secret"), "--server-key", str(damaged)],
    ):
        assert main(["command", "call_manager", *argv, "--endpoint", "tcp://127.0.0.1:9"]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "damaged" in err, err
