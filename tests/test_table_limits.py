"""Table limits per bet: in the table's settings, published in `round_opened`, used by settlement.

The 5+1 Bonus (and any side bet) needs an Ante at or above the table minimum.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError
from test_controller_kit import bench

from studio.cards import parse_cards
from studio.config import load_config
from studio.errors import ConfigurationError, RuleError
from studio.games import get_rules, judge, with_limits
from studio.games.batch import settle_players
from studio.games.judgement import seat
from studio.games.settlement import settle
from studio.messages import TableSettings

ROOT = Path(__file__).resolve().parent.parent
CLASSIC = {"game": "caribbean-stud", "variant": "classic", "procedure": "hidden"}
LIMITS = {"ante": {"minimum": "5", "maximum": "50"}, "bonus": {"minimum": "1", "maximum": None}}


def _royal(rules: Any) -> Any:
    groups = {"player": parse_cards("AS KS QS JS TS"), "dealer": parse_cards("2C 3D 4H 5S 7C")}
    return judge(rules, seat(rules, groups))


def test_round_opened_publishes_every_bets_limits_with_the_tables_own() -> None:
    b = bench(CLASSIC, limits=LIMITS)
    b.start()
    opened = b.of_type("round_opened")[0].body
    assert opened["limits"] == {
        "ante": {"minimum": "5", "maximum": "50"},
        "bonus": {"minimum": "1", "maximum": None},  # the table lifted the variant's 100
        "call": {"minimum": None, "maximum": "200"},  # not named: the variant's default
    }


def test_a_table_without_limits_publishes_the_variants() -> None:
    b = bench(CLASSIC)
    b.start()
    limits = b.of_type("round_opened")[0].body["limits"]
    assert limits["ante"] == {"minimum": None, "maximum": "100"}
    live = bench({"game": "ultimate-holdem", "variant": "live"})
    live.start()
    assert set(live.of_type("round_opened")[0].body["limits"]) == {"ante", "blind", "trips", "play"}


@pytest.mark.parametrize(
    ("limits", "says"),
    [
        ({"ante": {"minimum": "60", "maximum": "50"}}, "above max_stake.ante"),
        ({"ante": {"minimum": "0"}}, "greater than 0"),
        ({"ante": {"minimum": "1.005"}}, "decimal places"),
        ({"ante": {"most": "5"}}, "Extra inputs"),
        ({"blind": {"minimum": "5"}}, "blind"),
    ],
)
def test_bad_limits_are_refused_with_the_reason(limits: dict[str, Any], says: str) -> None:
    with pytest.raises(ValidationError, match=says):
        TableSettings(**CLASSIC, limits=limits)


def test_the_toml_configuration_sets_the_limits(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(
        '[table]\ngame = "caribbean-stud"\nvariant = "classic"\n'
        "[table.limits.ante]\nminimum = 5\nmaximum = 50\n"
    )
    rules = load_config(path).table.rules()
    assert (rules.bet("ante").min_stake, rules.bet("ante").max_stake) == (5, 50)
    path.write_text('[table]\ngame = "caribbean-stud"\n[table.limits.ante]\nminimum = 500\n'
                    "maximum = 50\n")  # fmt: skip
    with pytest.raises(ConfigurationError, match=r"min_stake\.ante"):
        load_config(path)


def test_an_ante_below_the_minimum_and_a_bonus_on_it_are_refused() -> None:
    rules = with_limits(get_rules("caribbean-stud", "classic"), {"min_stake.ante": 5})
    judged = _royal(rules)
    with pytest.raises(RuleError, match="bonus bet needs an Ante at or above the table minimum 5"):
        settle(rules, judged, {"ante": Fraction(4), "bonus": Fraction(1)}, ["call"])
    with pytest.raises(RuleError, match="bet ante of 4 is below the table minimum 5"):
        settle(rules, judged, {"ante": Fraction(4)}, ["call"])
    paid = settle(rules, judged, {"ante": Fraction(5), "bonus": Fraction(1)}, ["call"])
    assert paid.bets["bonus"].outcome == "win"
    # A bonus of zero is no bet: the Ante alone is settled.
    alone = settle(rules, judged, {"ante": Fraction(5), "bonus": Fraction(0)}, ["call"])
    assert "bonus" not in alone.bets


def test_a_side_bet_below_its_own_minimum_is_refused() -> None:
    rules = with_limits(get_rules("caribbean-stud", "classic"), {"min_stake.bonus": 2})
    with pytest.raises(RuleError, match="bet bonus of 1 is below the table minimum 2"):
        settle(rules, _royal(rules), {"ante": Fraction(5), "bonus": Fraction(1)}, ["call"])


def test_batch_settlement_names_the_player_below_a_minimum() -> None:
    rules = with_limits(get_rules("caribbean-stud", "classic"), {"min_stake.ante": 5})
    judged = _royal(rules)
    paths = np.zeros(3, dtype=np.int64)
    good = {"ante": np.array([500, 600, 700]), "bonus": np.array([100, 0, 100])}
    settle_players(rules, judged, good, paths)
    low_bonus = {"ante": np.array([500, 400, 400]), "bonus": np.array([100, 0, 100])}
    with pytest.raises(RuleError, match="player 2: the bonus bet needs an Ante"):
        settle_players(rules, judged, low_bonus, paths)
    low_ante = {"ante": np.array([500, 400, 700]), "bonus": np.array([0, 0, 0])}
    with pytest.raises(RuleError, match=r"player 1: bet ante of 4\.00 is below the table minimum"):
        settle_players(rules, judged, low_ante, paths)


def _settle(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "studio.cli", "settle", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=ROOT,
        timeout=60,
    )


ROYAL = ["--game", "caribbean-stud", "--variant", "classic", "--player", "AS KS QS JS TS",
         "--dealer", "2C 3D 4H 5S 7C", "--decision", "call", "--json"]  # fmt: skip


def test_studio_settle_takes_the_limits_round_opened_published() -> None:
    b = bench(CLASSIC, limits=LIMITS)
    b.start()
    published = b.of_type("round_opened")[0].body["limits"]
    request = {
        "game": "caribbean-stud",
        "variant": "classic",
        "player": "AS KS QS JS TS",
        "dealer": "2C 3D 4H 5S 7C",
        "decisions": ["call"],
        "limits": published,
    }
    lines = "\n".join(
        json.dumps({**request, "bets": bets})
        for bets in ({"ante": 4, "bonus": 1}, {"ante": 5, "bonus": 1}, {"ante": 60})
    )
    run = _settle("--batch", "-", stdin=lines + "\n")
    assert run.returncode == 0, run.stderr
    first, second, third = (json.loads(line) for line in io.StringIO(run.stdout))
    assert first == {"line": 1, "error": "the bonus bet needs an Ante at or above the table "
                     "minimum 5 (Ante 4)"}  # fmt: skip
    assert second["bets"]["bonus"]["outcome"] == "win"
    assert third == {"line": 3, "error": "bet ante of 60 is over the limit 50"}


def test_studio_settle_limit_argument() -> None:
    refused = _settle(*ROYAL, "--bet", "ante=2", "--bet", "bonus=1", "--limit", "ante=5:100")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.strip() == (
        "studio settle: the bonus bet needs an Ante at or above the table minimum 5 (Ante 2)"
    )
    # An empty maximum lifts the classic variant's Ante limit of 100.
    lifted = _settle(*ROYAL, "--bet", "ante=150", "--limit", "ante=5:", "--limit", "call=:")
    assert lifted.returncode == 0, lifted.stderr
    assert json.loads(lifted.stdout)["bets"]["ante"]["stake"] == 150
    bad = _settle(*ROYAL, "--bet", "ante=5", "--limit", "ante=5")
    assert bad.returncode == 2 and "--limit takes BET=MIN:MAX" in bad.stderr
    unknown = _settle(*ROYAL, "--bet", "ante=5", "--limit", "blind=1:2")
    assert unknown.returncode == 2 and "unknown bet 'blind'" in unknown.stderr


def test_studio_schema_describes_limits_and_decks() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "studio.cli", "schema"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    schema = json.loads(run.stdout)
    opened = schema["events"]["round_opened"]
    assert {"limits", "deck"} <= set(opened["properties"])
    assert {"limits", "deck"} <= set(opened["required"])  # the table always writes them
    assert "deck" in schema["events"]["deck_changed"]["required"]
    assert {"limits", "new_deck_every_round"} <= set(schema["settings"]["properties"])
    assert "deck" in schema["table_view"]["properties"]
    kinds = json.dumps(schema["events"]["incident_reported"])
    assert "deck_reused" in kinds
