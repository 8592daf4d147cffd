"""The command line's shared promises: usage errors are one line on stderr, exit status 2."""

from __future__ import annotations

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
