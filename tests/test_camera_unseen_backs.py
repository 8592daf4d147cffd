"""Dealt face-down cards the finder did not see (`docs/camera-history.md`, cam-backs4).

Two causes, each drawn here as `bench/dealer_backs.py` (and `bench/felt_camera.py --seed S`)
draws a fully dealt Caribbean stud round on a tuning design: small backs whose paper margin the
edge cut breaks, so that no piece outlines them (found now as their bright region), and large
backs under a warm light whose tinted margin failed the paper test (judged now against the
frame's own paper).
"""

from __future__ import annotations

import random
from functools import lru_cache

import cv2
import numpy as np
from camera_support import generated_profile

from calibration.profile import CalibrationProfile
from drivers.camera.paper import FramePaper, light_back, paper_shares
from drivers.camera.reading import CardReading
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.felt import Felt
from drivers.camera.synthetic.still_table import StillCamera, still_layout
from drivers.camera.tuning import PAPER_SHARE_BORDER
from studio.cards import DECK
from studio.games import get_rules
from studio.runtime.camera import position_rows

GAME = "caribbean-stud"
DEALER_BACKS = ("dealer-2", "dealer-3", "dealer-4", "dealer-5")


@lru_cache(maxsize=2)
def _dealt(seed: int, design: int) -> tuple[list[CardReading], list[str], float]:
    """One frame of a round dealt in full, read by the design's deck: the readings, the
    face-up zones and the card height; as the benches draw bench seed `seed` on `design`."""
    rules = get_rules(GAME)
    style = ENVELOPES["studio"]
    rng = np.random.default_rng([seed, design, 0])  # the game's index in the benches' list
    layout = still_layout(position_rows(rules.positions), deckgen.design(design), style, rng)
    deck_profile, templates = generated_profile(design)
    profile = CalibrationProfile(
        table=layout.calibration(), zones=list(layout.zones), deck=deck_profile.deck
    )
    camera = StillCamera(layout, style, rng)
    camera.relight()
    felt = Felt(f"{seed}-{design}-{GAME}")
    cards = list(DECK)
    random.Random(seed).shuffle(cards)
    ups = []
    for dealt in rules.deals:
        up = dealt.face.value == "up"
        felt.place(dealt.position, cards.pop(), up)
        if up:
            ups.append(dealt.position)
    image = camera.frame(felt.view()[1])
    readings = CardRecognizer(profile, templates).recognize(image)
    return readings, ups, layout.card_height_px()


def _at(readings: list[CardReading], zone: str) -> list[CardReading]:
    return [r for r in readings if r.zone == zone]


def test_small_dealt_backs_are_reported_face_down() -> None:
    # Bench seed 14110 draws gen-1004's cards 140 px high: the backs' 5 px paper margin falls
    # apart under the edge cut, and the table never confirmed any of the four dealer backs
    # (nothing reported at their zones, in every frame). Each is now one reading face down.
    readings, ups, height = _dealt(14110, 1004)
    assert height < 150
    for zone in DEALER_BACKS:
        at = _at(readings, zone)
        assert len(at) == 1 and at[0].face_down and at[0].code is None, (zone, at)
    # The face-up cards are read as before: none is called face down.
    assert not any(r.face_down for z in ups for r in _at(readings, z))


def test_dealt_backs_under_a_warm_light_are_reported_face_down() -> None:
    # Bench seed 14127 lights gen-1001's 362 px cards warm (red gain 1.10, green 0.86): the
    # pink paper margin's channels spread past paper's grey, and two dealer backs were dropped
    # as no card. Judged against the frame's own paper, every dealer back is face down.
    readings, _, height = _dealt(14127, 1001)
    assert height > 300
    for zone in DEALER_BACKS:
        at = _at(readings, zone)
        assert at and all(r.face_down and r.code is None for r in at), (zone, at)
    # The dealer's face-up card still reads.
    assert any(r.code is not None for r in _at(readings, "dealer-1"))


def test_a_tinted_margin_is_paper_against_the_frames_own_paper() -> None:
    # A card whose white margin a warm light tints (210/177/244) on a frame whose paper is
    # that colour: past `PAPER_CHROMA` on its own, paper once judged against the frame's white.
    frame = np.full((200, 300, 3), (40, 110, 40), np.uint8)
    warm = (210, 177, 244)
    cv2.rectangle(frame, (20, 20), (120, 160), warm, -1)  # the back, its margin warm paper
    cv2.rectangle(frame, (30, 30), (110, 150), (90, 60, 120), -1)  # its print
    cv2.rectangle(frame, (160, 20), (280, 180), warm, -1)  # a face's paper beside it
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    contour = np.array([[[20, 20]], [[120, 20]], [[120, 160]], [[20, 160]]], np.int32)
    thr = 100.0
    assert paper_shares(frame, gray, thr, contour).border < PAPER_SHARE_BORDER
    white = FramePaper(frame, gray, thr).white()
    judged = paper_shares(frame, gray, thr, contour, white)
    assert judged.border >= PAPER_SHARE_BORDER
    assert judged.inner < 0.1


def test_light_backs_whose_print_the_blur_brightens_are_reported_face_down() -> None:
    # Bench seed 14110 draws gen-1003's cards 145 px high: its backs' light stripes, blurred,
    # are as bright and grey as paper, so the region found for each (its margin broken by the
    # edge cut) failed the face-down test and nothing was reported at the dealer's zones. Its
    # inside is not its own border's paper (`paper.light_back`): each is now face down.
    readings, ups, height = _dealt(14110, 1003)
    assert height < 150
    for zone in DEALER_BACKS:
        at = _at(readings, zone)
        assert len(at) == 1 and at[0].face_down and at[0].code is None, (zone, at)
    assert not any(r.face_down for z in ups for r in _at(readings, z))


def test_a_warm_lit_face_is_not_a_light_back_against_the_frames_own_paper() -> None:
    # A face's warm-lit paper (210/177/244: past `PAPER_CHROMA` on its own) with a little ink,
    # both index corners under chips, beside a light back of the same paper under the same
    # light (a pale green-grey print). By its own grey none of the face's inside is its
    # border's paper, and the light-back cue called it a back; judged against the frame's
    # paper, the face's inside is its border's paper and the back's print is still not.
    frame = np.full((240, 420, 3), (40, 110, 40), np.uint8)
    warm = (210, 177, 244)
    cv2.rectangle(frame, (20, 20), (160, 220), warm, -1)  # the face's paper
    cv2.rectangle(frame, (70, 90), (110, 150), (40, 40, 200), -1)  # a pip
    cv2.circle(frame, (45, 50), 28, (30, 30, 30), -1)  # chips over both index corners
    cv2.circle(frame, (135, 190), 28, (160, 60, 20), -1)
    cv2.rectangle(frame, (220, 20), (360, 220), warm, -1)  # the back's margin
    cv2.rectangle(frame, (230, 30), (350, 210), (140, 143, 148), -1)  # its light print
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    thr = 100.0
    face = np.array([[[20, 20]], [[160, 20]], [[160, 220]], [[20, 220]]], np.int32)
    back = face + np.array([200, 0], np.int32)
    white = FramePaper(frame, gray, thr).white()
    assert light_back(frame, gray, thr, face)  # the face taken for a back by its own grey
    assert not light_back(frame, gray, thr, face, white)
    assert light_back(frame, gray, thr, back, white)


def test_faces_with_both_index_corners_under_chips_under_a_warm_light_are_not_face_down() -> None:
    # Every zone of the felt holds a face up, chips over its top-left and bottom-right index
    # corners, the round lit warm: as `bench/covered_faces.py` draws bench seed 14101 on
    # gen-1001 (pink paper, 343 px cards). Two faces whose margins passed as paper only
    # against the frame's paper were called light backs and reported face down; a face up
    # under chips may be unread, never a back.
    seed, design = 14101, 1001
    rules = get_rules(GAME)
    style = ENVELOPES["studio"]
    rng = np.random.default_rng([seed, design, 7])
    layout = still_layout(position_rows(rules.positions), deckgen.design(design), style, rng)
    deck_profile, templates = generated_profile(design)
    profile = CalibrationProfile(
        table=layout.calibration(), zones=list(layout.zones), deck=deck_profile.deck
    )
    cards = list(DECK)
    random.Random(seed).shuffle(cards)
    faces = {zone: cards.pop() for zone in rules.positions}
    image, lying = StillCamera(layout, style, rng).covered_faces(faces, f"{seed}-{design}-covered")
    readings = CardRecognizer(profile, templates).recognize(image)
    assert layout.card_height_px() > 300
    assert not [r for r in readings if r.face_down], readings
    # Nothing is read as another card.
    assert all(r.code in (None, lying[r.zone].card.code) for r in readings if r.zone in lying)
