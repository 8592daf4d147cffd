"""The command line's shared promises: usage errors are one line on stderr, exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli import main


@pytest.mark.parametrize(
    "argv",
    [
        ["no-such-command"],
        ["settle", "--game", "caribbean-stud", "--bogus"],
        ["settle", "--game", "caribbean-stud", "--player", "AS KS QS JS XX", "--dealer",
         "2C 3D 4H 5S 7C", "--bet", "ante=10", "--json"],
    ],
)  # fmt: skip
def test_bad_input_is_one_line_on_stderr_and_status_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        raise SystemExit(main(argv))
    out, err = capsys.readouterr()
    assert info.value.code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("studio")


def _one_line_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    ("section", "key", "value", "expected"),
    [
        # The journal's directory cannot be made: a file is in the way.
        ("journal", "path", "{tmp}/plain-file/t.journal", "plain-file"),
        # libzmq would take port 99999 as 34463 (modulo 65536): the table would serve elsewhere.
        ("bus", "public", "tcp://127.0.0.1:99999", "99999"),
        # The ipc path's lock file could not be made: a FileNotFoundError traceback.
        ("bus", "public", "ipc://{tmp}/no-such-dir/public", "no-such-dir"),
    ],
)
def test_a_table_that_cannot_start_says_why_in_one_line(
    section: str,
    key: str,
    value: str,
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "plain-file").write_text("not a directory\n", encoding="utf-8")
    sections: dict[str, dict[str, object]] = {
        "camera": {"backend": "none"},
        "dealer": {"enabled": False},
        "shoe": {"pty": f"{tmp_path}/shoe"},
        "journal": {"path": f"{tmp_path}/t.journal"},
        "bus": {
            "keys_dir": f"{tmp_path}/keys",
            **{name: f"ipc://{tmp_path}/{name}" for name in ("public", "restricted", "replay")},
            "commands": f"ipc://{tmp_path}/commands",
        },
    }
    sections[section][key] = value.format(tmp=tmp_path)
    config = tmp_path / "table.toml"
    config.write_text(
        "".join(
            f"[{name}]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in body.items())
            for name, body in sections.items()
        ),
        encoding="utf-8",
    )
    err = _one_line_error(["run", "--config", str(config), "--duration", "1"], capsys)
    assert expected in err


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_run_refuses_a_duration_that_is_not_a_number_of_seconds(
    value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # were it to start, never in $HOME
    assert "--duration" in _one_line_error(["run", f"--duration={value}"], capsys)


@pytest.mark.parametrize("option", [["--from", "0"], ["--timeout", "0"]])
def test_watch_keeps_the_edge_values_it_always_took(
    option: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # --from 0 (read as 1) and --timeout 0 (a poll) were accepted before the range checks came:
    # tools may use them. With no table here, the one error is about the table, not the option.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    error = _one_line_error(["watch", *option], capsys)
    assert option[0] not in error


@pytest.mark.parametrize(
    "option",
    [["--timeout", "nan"], ["--timeout", "-1"], ["--count", "-1"],
     ["--from", "-5"], ["--from", str(2**64)]],
)  # fmt: skip
def test_watch_refuses_options_out_of_range_before_looking_for_a_table(
    option: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # --timeout nan was a traceback; the others were taken silently (--count -1: exit 0, nothing
    # shown; --from 2**64: the replay service's SQLite error shown as the table's refusal).
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert option[0] in _one_line_error(["watch", *option], capsys)


@pytest.mark.parametrize(
    ("argv", "verbose", "quiet"),
    [
        (["run", "-v"], True, False),
        (["-v", "run"], True, False),
        (["journal", "verify", "table.journal", "-q"], False, True),
        (["-q", "recall", "--journal", "table.journal", "--last", "3"], False, True),
        (["run"], False, False),
    ],
)
def test_log_options_are_taken_after_any_subcommand(
    argv: list[str], verbose: bool, quiet: bool
) -> None:
    from studio.cli import build_parser

    args, _ = build_parser().parse_known_args(argv)
    assert (args.verbose, args.quiet) == (verbose, quiet)


def test_a_reader_that_closes_the_pipe_ends_recall_quietly(tmp_path: Path) -> None:
    import subprocess
    import sys

    journal = tmp_path / "table.journal"
    studio = [sys.executable, "-m", "studio.cli"]
    made = subprocess.run(
        [*studio, "simulate", "--game", "caribbean-stud", "--rounds", "40", "--seed", "4",
         "--journal", str(journal)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    recall = subprocess.Popen(
        [*studio, "recall", "--journal", str(journal), "--last", "40"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert recall.stdout is not None and recall.stderr is not None
    first = recall.stdout.readline()
    recall.stdout.close()  # what `| head -1` does
    err = recall.stderr.read().decode()
    recall.wait(timeout=30)
    assert first.startswith(b"T01-")
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert recall.returncode == 141
