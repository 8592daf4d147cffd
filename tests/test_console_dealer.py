"""The dealer display in a real headless Chromium, following a live simulated table.

A dealer signs in and watches whole rounds: the betting light and its countdown, the prompt of
the next position to deal, every card with the camera's confirmation, and the next game. Meanwhile
a shift manager's subscriber reads the restricted stream, which names every face-down card: no
such value may reach the dealer page (its WebSocket frames or its DOM) before the card is turned.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from console_support import browser, console_for, sign_in
from test_e2e_support import body, table_rig

from studio.bus.wire import WireEvent

SIMULATED_CAMERA = '[camera]\nbackend = "simulated"\n'


def test_dealer_display_follows_rounds_and_never_holds_a_face_down_value(tmp_path: Path) -> None:
    with (
        table_rig(tmp_path, extra=SIMULATED_CAMERA) as rig,
        browser() as chromium,
    ):
        rig.start()
        with console_for(rig) as console, rig.subscriber("shift-manager", restricted=True) as sub:
            page = chromium.new_page()
            frames: list[str] = []
            page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
            sign_in(page, console.url, "bob")
            page.wait_for_url(re.compile(r".*/dealer/T01$"))
            assert page.locator("#who, .who").first.inner_text() == "bob (dealer)"
            # The void button is nowhere on a dealer's screen; calling the manager is.
            assert page.locator("#action-void").count() == 0
            assert page.locator("#call-manager").is_visible()

            hidden: dict[tuple[str, str], str] = {}  # (game, position) -> face-down card
            revealed: set[tuple[str, str]] = set()
            results: dict[str, dict[str, str]] = {}
            seen_prompt = seen_countdown = False
            windows: set[str] = set()
            phases: set[str] = set()
            games: list[str] = []
            dom_samples: list[tuple[str, str]] = []
            deadline = time.monotonic() + 30

            def note(event: WireEvent) -> None:
                data = body(event)
                game = event.envelope.game_number or ""
                if event.type == "card_dealt" and data.get("face") == "down":
                    if event.audience == "restricted":
                        hidden[(game, data["position"])] = data["card"]
                elif event.type == "card_revealed":
                    revealed.add((game, data["position"]))
                elif event.type == "round_result":
                    results[game] = data["positions"]

            while time.monotonic() < deadline and len(games) < 3:
                while (event := sub.receive(timeout=0)) is not None:
                    note(event)
                root = page.locator("#dealer")
                game = root.get_attribute("data-game") or ""
                if game and (not games or games[-1] != game):
                    games.append(game)
                phases.add(root.get_attribute("data-phase") or "")
                seen_prompt |= page.locator("#prompt").inner_text().startswith("DEAL: ")
                seen_countdown |= "betting closes" in page.locator("#light-countdown").inner_text()
                if text := page.locator("#window").inner_text():
                    windows.add(text)
                dom_samples.append((game, page.locator("#cards").inner_text()))
                page.wait_for_timeout(40)
            # The dealer calls the shift manager from the display: the table stops, and says so.
            page.once("dialog", lambda dialog: dialog.accept())
            page.click("#call-manager")
            page.locator("#stop").wait_for(state="visible", timeout=10000)
            assert "shift manager was called" in page.locator("#stop-reason").inner_text()
            # The result of the round that just ended may still be on its way here.
            called = None
            while (event := sub.receive(timeout=1.0)) is not None:
                note(event)
                if event.type == "command_accepted" and body(event)["command"] == "call_manager":
                    called = body(event)
            # The recall: every ended round the console saw, newest first, with its cards, and
            # the shift's count of rounds for the dealer on duty.
            page.goto(f"{console.url}/table/T01/recall")
            rows = page.locator("#recall tr.round")
            shown = {
                rows.nth(i).locator("td").nth(0).inner_text(): rows.nth(i).inner_text()
                for i in range(rows.count())
            }
            ended = [g for g in results if g in shown]
            assert len(ended) >= 2, (list(results), list(shown))
            for game in ended:
                for position, code in results[game].items():
                    assert f"{position}={code}" in shown[game]
            # Rounds that ended before bob's display opened count for nobody ("-").
            counts = {
                cells.split()[0]: int(cells.split()[1])
                for cells in page.locator("#counts tr").all_inner_texts()
            }
            assert counts.get("bob", 0) >= 1 and sum(counts.values()) >= len(ended), counts
            page.close()

    assert called is not None and called["actor"] == "bob via console"
    assert called["role"] == "dealer"
    # Whole rounds went by on the screen: betting with its countdown, dealing with a prompt, the
    # next game.
    assert len(games) >= 3, games
    assert {"betting", "dealing"} <= phases, phases
    assert seen_prompt and seen_countdown
    # The decision window with its options, automatic action and countdown.
    assert any("automatic" in w and "decision closes" in w for w in windows), windows
    assert hidden, "the table dealt no face-down card"
    # No frame ever carried a face-down card's value.
    for text in frames:
        frame: dict[str, Any] = json.loads(text)
        for slot in frame.get("cards", []):
            if not slot["face_up"]:
                assert slot["code"] is None, frame
            code = hidden.get((frame.get("game_number") or "", slot["position"]))
            if code is not None and not slot["face_up"]:
                assert code not in text, (code, text)
    # Nor the page's text, until that card was turned.
    for game, text in dom_samples:
        for (round_id, position), code in hidden.items():
            if round_id == game and (round_id, position) not in revealed:
                assert f"{position}\n{code}" not in text, (position, code, text)
