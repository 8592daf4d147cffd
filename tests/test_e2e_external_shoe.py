"""A shoe that outlives the table: killed and restarted, the table journals every card once.

The shoe is a separate device (here the drivers' framed `SimulatedShoe` on a real pty, in the
test process) read by `studio run` through the serial driver. The table acknowledges a card only
after journalling it and, restarted, resumes after the last card in its journal, so a SIGKILL at
any moment neither loses a card the shoe drew nor records one twice; the shoe resends what the
dead table never acknowledged.
"""

from __future__ import annotations

import io
import json
import signal
import time
from pathlib import Path

from test_e2e_support import table_rig

from drivers.shoe.simulator import SimulatedShoe
from studio.journal import Journal

CARDS = 60


def _journalled_cards(path: Path) -> tuple[list[str | None], int]:
    """The cards in the journal, in order, and how many came before the restart."""
    with Journal(path, readonly=True) as journal:
        inputs = [json.loads(r.body) for r in journal.records() if r.kind == "input"]
    kinds = [i["kind"] for i in inputs]
    before = kinds[: kinds.index("restarted")].count("card_drawn")
    return [i["card"] for i in inputs if i["kind"] == "card_drawn"], before


def test_a_table_killed_mid_deal_journals_every_card_of_its_shoe_once(tmp_path: Path) -> None:
    line = tmp_path / "shoe"
    extra = f'[shoe]\nbackend = "serial"\nurl = "{line}"\n[camera]\nbackend = "none"\n'
    log = io.StringIO()
    with (
        SimulatedShoe(f"pty:{line}", "framed", cards=CARDS, interval=0.05, log_to=log) as shoe,
        table_rig(tmp_path, extra=extra) as rig,
    ):
        first = rig.start()
        shoe.start()
        time.sleep(1.2)  # about 20 cards in
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        second = rig.start()  # the shoe kept drawing (and holding) cards meanwhile
        assert shoe.wait(30), "the shoe never saw its last card acknowledged"
        assert shoe.error is None and shoe.given_up == 0
        second.send_signal(signal.SIGTERM)
        assert second.wait(timeout=20) == 0
    dealt = [json.loads(entry)["card"] for entry in log.getvalue().splitlines()]
    assert len(dealt) == CARDS
    cards, before_kill = _journalled_cards(rig.journal)
    assert cards == dealt
    assert 0 < before_kill < CARDS  # the kill came mid-deal
