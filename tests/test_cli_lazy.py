"""The command line imports only what the chosen subcommand needs; misspelt names get a hint."""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

from studio.cli import COMMANDS, main
from studio.config import build_config
from studio.errors import ConfigurationError

HEAVY = {
    "zmq",
    "pydantic",
    "studio.messages",
    "studio.controller",
    "psycopg",
    "cv2",
    "numpy",
    "onnxruntime",
    "jax",
    "serial",
}
"""What a subcommand's --help never needs: ZeroMQ, the message models, the controller,
PostgreSQL's driver, OpenCV, NumPy, the learned reader's runtimes, pyserial."""


def _modules_after(*argv: str) -> set[str]:
    code = (
        "import sys, json, contextlib, io\n"
        "from studio.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main({list(argv)!r})\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["schema", "--help"]])
def test_version_and_help_import_no_subcommand_but_the_chosen_one(argv: list[str]) -> None:
    loaded = _modules_after(*argv)
    commands = {m for m in loaded if m.startswith("studio.commands.")}
    assert commands <= {"studio.commands.schema"}, commands
    assert not HEAVY & loaded


@pytest.mark.parametrize(
    ("command", "modules"),
    [
        ("status", {"status"}),
        ("watch", {"watch"}),
        ("journal", {"journal", "anchors"}),  # anchors is one of journal's actions
        ("proxy", {"proxy"}),
        ("recall", {"recall"}),
        ("report", {"report"}),
        ("retention", {"retention"}),
        ("archive-allow", {"archive_allow"}),
        ("integrity", {"integrity"}),
        ("schema", {"schema"}),
        ("run", {"run"}),
        ("archive", {"archive"}),
        ("jackpot", {"jackpot"}),
        ("command", {"command"}),
        ("keys", {"keys"}),
        ("settle", {"settle"}),
        ("simulate", {"simulate"}),
        ("shoe", {"shoe", "shoe_capture"}),  # record and replay are shoe's actions
        ("rtp", {"rtp"}),
        ("calibrate", {"calibrate"}),
        ("recognize", {"recognize"}),
        ("users", {"users"}),
        ("console", {"console", "users"}),  # the console's default users file is users'
    ],
)
def test_a_subcommands_help_loads_nothing_heavy(command: str, modules: set[str]) -> None:
    loaded = _modules_after(command, "--help")
    prefix = "studio.commands."
    assert {m.removeprefix(prefix) for m in loaded if m.startswith(prefix)} == modules
    assert not HEAVY & loaded, HEAVY & loaded


@pytest.mark.parametrize("package", ["studio.bus", "studio.runtime", "drivers.shoe"])
def test_a_lazy_packages_names_are_its_stubs_imports_and_each_resolves(package: str) -> None:
    module = import_module(package)
    stub = Path(module.__file__ or "").with_suffix(".pyi").read_text(encoding="utf-8")
    homes = {
        alias.name: node.module or ""
        for node in ast.parse(stub).body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert len(homes) > 5
    assert sorted(homes) == sorted(module.__all__) == sorted(dir(module))
    for name, home in homes.items():
        assert getattr(module, name) is getattr(import_module(f"{package}.{home}"), name)
    with pytest.raises(AttributeError):
        _ = module.no_such_name


@pytest.mark.parametrize("command", ["console", "users"])
def test_the_consoles_help_loads_no_camera(command: str) -> None:
    # The data directory is studio.paths': the configuration would bring OpenCV and the camera.
    assert not {"cv2", "numpy", "studio.config"} & _modules_after(command, "--help")


def test_the_command_help_loads_the_command_names_but_not_zeromq_nor_the_controller() -> None:
    loaded = _modules_after("command", "--help")
    assert "studio.terms" in loaded  # the names it lists are the table's CommandName
    assert not {"zmq", "studio.messages", "studio.controller", "studio.bus.commands"} & loaded


@pytest.mark.parametrize(
    ("argv", "listed"),
    [
        (["command", "--help"], "start_round, call_manager"),
        (["keys", "new", "--help"], "{dealer,shift_manager,settlement,observer,console}"),
        (["simulate", "--help"], "{shoe,camera}"),
        (["shoe", "simulate", "--help"], "{barcode,framed}"),
        (["recognize", "--help"], "{learned}"),
    ],
)
def test_a_help_still_lists_the_names_from_their_registries(
    argv: list[str], listed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(argv)
    assert listed in capsys.readouterr().out


def test_the_listed_help_is_each_modules_own() -> None:
    for name, (module, help_text) in COMMANDS.items():
        sub = argparse.ArgumentParser().add_subparsers()
        import_module(f"studio.commands.{module}").register(sub)
        action = sub._choices_actions[0]
        assert (action.dest, action.help) == (name, help_text)


def test_a_misspelt_subcommand_or_choice_names_the_nearest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["stauts"])
    assert capsys.readouterr().err.endswith("(did you mean status?)\n")
    with pytest.raises(SystemExit):
        main(["simulate", "--game", "caribean-stud", "--rounds", "1", "--seed", "1"])
    assert "(did you mean caribbean-stud?)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("data", "hint"),
    [
        ({"table": {"betting_secs": 3}}, "did you mean betting_seconds?"),
        ({"tabel": {}}, "did you mean table?"),
        ({"metrics": {"prot": 1}}, "did you mean port?"),
    ],
)
def test_a_misspelt_config_key_names_the_nearest(data: dict[str, object], hint: str) -> None:
    with pytest.raises(ConfigurationError, match=hint):
        build_config(data)  # type: ignore[arg-type]


def test_a_far_fetched_key_gets_no_guess(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError) as caught:
        build_config({"table": {"zzzz": 1}})
    assert "did you mean" not in str(caught.value)


def test_settle_help_lists_every_bet_and_decision(capsys: pytest.CaptureFixture[str]) -> None:
    from studio.games import GAMES, get_rules

    with pytest.raises(SystemExit):
        main(["settle", "--help"])
    text = capsys.readouterr().out
    for game in GAMES:
        rules = get_rules(game)
        assert game in text
        for spec in rules.bets:
            assert spec.name in text
        for window in rules.windows:
            assert "|".join(window.options) in text


@pytest.mark.parametrize("command", ["settle", "simulate", "run"])
def test_the_game_names_in_a_help_come_without_the_game_rules(command: str) -> None:
    loaded = _modules_after(command, "--help")
    assert "studio.terms" in loaded  # the games, bets and procedures it lists are GAME_TERMS
    assert not {m for m in loaded if m == "studio.games" or m.startswith("studio.games.")}


def test_the_game_names_are_the_rules_and_a_drift_stops_the_import() -> None:
    from studio.games import game_terms
    from studio.terms import GAME_TERMS

    assert game_terms() == GAME_TERMS
    # A bet renamed in the terms (or in the rules) and not in the other: nothing runs.
    code = (
        "import studio.terms as t\n"
        "stud = t.GAME_TERMS['caribbean-stud']\n"
        "bets = (t.BetTerm('antes', 'required'), *stud.bets[1:])\n"
        "t.GAME_TERMS['caribbean-stud'] = stud._replace(bets=bets)\n"
        "import studio.games\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "GAME_TERMS differs from the games' rules" in done.stderr


def test_a_subcommand_option_that_prefixes_the_log_options_stays_its_own() -> None:
    from studio.cli import build_parser

    argv = ["shoe", "simulate", "--protocol", "framed", "--pty", "p", "--log", "deal.jsonl"]
    args = build_parser(argv).parse_args(argv)
    assert str(args.log) == "deal.jsonl" and args.log_format == "plain"


def test_a_misspelt_bet_decision_or_argument_names_the_nearest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cards = ["--player", "AS KS QS JS TS", "--dealer", "2C 3D 4H 5S 7C"]
    base = ["settle", "--game", "caribbean-stud", *cards]
    assert main([*base, "--bet", "antee=10", "--decision", "call"]) == 2
    assert capsys.readouterr().err.endswith("(did you mean ante?)\n")
    assert main([*base, "--bet", "ante=10", "--decision", "cal"]) == 2
    assert capsys.readouterr().err.endswith("(did you mean call?)\n")
    assert main(["command", "void", "positon=x", "--key", "k"]) == 2
    assert capsys.readouterr().err.endswith("(did you mean position?)\n")


@pytest.mark.parametrize("command", ["status", "watch", "command"])
def test_the_table_clients_do_not_load_the_camera_to_find_a_table(command: str) -> None:
    loaded = _modules_after(command, "--help")
    assert not {"cv2", "studio.runtime.table", "studio.runtime.camera"} & loaded
