"""The camera's crop of an incident's zone, from a real table with a camera to a real browser.

A table with a real-camera backend (`capture`: an MJPEG stream over HTTP from this test, showing
the felt with a card at player-1) and a barcode shoe on a real pty: the shoe cannot read the
card for player-1, the table pauses, and the shift manager's page shows player-1's zone as the
camera sees it (a JPEG served by the table's replay service to the console's restricted key).
The crop may show a face-down card's face, so a dealer's page never points at it, the console
refuses it to a dealer, and the table refuses it to a key that may not read restricted events.
An acknowledgement given elsewhere (the table's `acknowledge_alarm` from another client) reaches
the console through the table's record; the next pause sounds again.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from console_support import browser, console_for, sign_in
from rig_support import RigConfig
from test_e2e_camera import MjpegCamera
from test_e2e_support import table_rig

from calibration.profile import save_profile
from drivers.camera.synthetic.designs import JUMBO
from drivers.camera.synthetic.felt import Felt, FeltLayout, FeltSource, felt_profile
from drivers.shoe.sim_line import PtyLine
from studio.bus.commands import CommandClient
from studio.bus.replay import ReplayClient
from studio.cards import Card
from studio.config import CameraConfig
from studio.errors import BusError
from studio.games import get_rules
from studio.runtime.camera import position_rows

FETCH = """async (url) => {
    const reply = await fetch(url, { credentials: "same-origin" });
    const bytes = new Uint8Array(await reply.arrayBuffer());
    return { status: reply.status, type: reply.headers.get("Content-Type"),
             bytes: Array.from(bytes) };
}"""


def _camera(tmp_path: Path) -> MjpegCamera:
    """An IP camera showing the felt with the ace of spades at player-1; its profile saved."""
    layout = FeltLayout.build(position_rows(get_rules("caribbean-stud").positions), JUMBO)
    profile, templates = felt_profile(layout)
    save_profile(tmp_path / "profile", profile, templates)
    felt = Felt()
    felt.place("player-1", Card.parse("AS"), face_up=True)
    return MjpegCamera(FeltSource(felt, layout).read().image)


def test_the_manager_sees_the_incidents_zone_and_a_dealer_never_does(tmp_path: Path) -> None:
    with (
        closing(PtyLine(tmp_path / "shoe")) as line,
        closing(_camera(tmp_path)) as camera,
        table_rig(tmp_path) as rig,
        browser() as chromium,
    ):
        profile = tmp_path / "profile"
        capture = CameraConfig(backend="capture", url=camera.url, profile=str(profile), fps=2)
        RigConfig(
            root=tmp_path, camera_confirm_seconds=30.0, auto_start=False, camera=capture
        ).write(rig.config)
        rig.start()
        with CommandClient(rig.endpoint("cmd"), rig.key("shift-manager"), rig.server_key()) as c:
            assert c.send("start_round").status == "accepted"
        with console_for(rig) as console:
            dealer = chromium.new_page()
            frames: list[str] = []
            dealer.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
            sign_in(dealer, console.url, "bob")
            # The table expects player-1's card: the prompt says so.
            dealer.wait_for_selector("#prompt >> text=DEAL: player-1", timeout=20000)

            line.write(b"NOREAD\r\n")  # the shoe saw a card for player-1 and could not read it
            dealer.locator("#stop").wait_for(state="visible", timeout=20000)

            manager = chromium.new_page()
            sign_in(manager, console.url, "alice")
            manager.goto(f"{console.url}/table/T01")
            crop = manager.locator("#incidents .incident img.crop")
            crop.wait_for(state="attached", timeout=20000)
            assert crop.get_attribute("alt") == "player-1 as the camera sees it"
            url = crop.get_attribute("src")
            assert url is not None and url.startswith("/table/T01/crop/")
            # The image has loaded in the page, and it is the zone: a JPEG of some size.
            manager.wait_for_function(
                "() => { const i = document.querySelector('img.crop');"
                " return i && i.complete && i.naturalWidth > 0; }"
            )
            got: dict[str, Any] = manager.evaluate(FETCH, url)
            assert got["status"] == 200 and got["type"] == "image/jpeg"
            image = cv2.imdecode(np.array(got["bytes"], np.uint8), cv2.IMREAD_COLOR)
            assert image is not None and min(image.shape[:2]) >= 40, got["status"]

            # A dealer: no crop on the table page, none in any frame, refused by the console.
            dealer.goto(f"{console.url}/table/T01")
            dealer.wait_for_selector("#incidents .incident")
            assert dealer.locator("img.crop").count() == 0
            refused: dict[str, Any] = dealer.evaluate(FETCH, url)
            assert refused["status"] == 403
            for text in frames:
                assert "/crop/" not in text, text
            dealer.close()

            # Someone else (a terminal, another console) acknowledges the alarm: the table
            # records it, and this console follows the table's record. Once the pause is over,
            # the next one sounds again.
            manager.locator("#acknowledge").wait_for(timeout=10000)
            key = rig.key("shift-manager")
            with CommandClient(rig.endpoint("cmd"), key, rig.server_key()) as client:
                assert client.send("acknowledge_alarm").status == "accepted"
                manager.locator("#acknowledge").wait_for(state="detached", timeout=20000)
                assert client.send("void", {"note": "unreadable card"}).status == "accepted"
                manager.wait_for_selector("#state:has-text('running')", timeout=20000)
                assert client.send("start_round").status == "accepted"
                manager.wait_for_selector("#state:has-text('next card to player-1')", timeout=20000)
                line.write(b"NOREAD\r\n")
                manager.locator("#acknowledge").wait_for(timeout=20000)
            manager.close()

        # The table itself serves crops to restricted readers only.
        for name, allowed in (("shift-manager", True), ("observer", False)):
            with ReplayClient(
                rig.endpoint("rep"), client_keys=rig.key(name), server_key=rig.server_key()
            ) as replay:
                if allowed:
                    zone = replay.crop("player-1")
                    assert zone.zone == "player-1" and zone.jpeg.startswith(b"\xff\xd8")
                    with pytest.raises(BusError, match="no camera image of seat-9"):
                        replay.crop("seat-9")
                else:
                    with pytest.raises(BusError, match="role may not"):
                        replay.crop("player-1")
