"""Recognition of rendered table frames: right cards, no wrong reads, no phantom cards."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from camera_support import deck_profile, scored

from drivers.camera.classify import IndexRead
from drivers.camera.detect import card_threshold
from drivers.camera.outline import CardOutline
from drivers.camera.reading import CardReading, ReadingSource
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic.designs import CLASSIC, JUMBO
from drivers.camera.synthetic.generator import SceneStyle
from drivers.camera.synthetic.scene import Chip, PlacedCard, Scene, render_scene
from drivers.camera.tuning import ReaderTuning
from studio.cards import DECK, Card
from studio.cli import main

# Test frames: moderate sizes and defects; the bench draws from wider ranges and other seeds.
TEST_STYLE = SceneStyle(
    card_px=(190.0, 260.0), blur=(0.0, 0.6), motion=(0.0, 1.5), noise=(0.0, 3.0), jpeg=(80, 95),
    p_row=0.3, glares=(0, 1),
)  # fmt: skip


def test_jumbo_deck_reads_without_wrong_reads() -> None:
    score = scored("jumbo", 101, TEST_STYLE, 12)
    assert score.wrong == 0, score.wrongs
    assert score.phantom == 0
    # Measured 0.98 on these frames; the floor leaves room for platform rounding differences.
    assert score.recall >= 0.8, (score.recall, score.misses)


def test_classic_deck_reads_without_wrong_reads() -> None:
    score = scored("classic", 202, TEST_STYLE, 12)
    assert score.wrong == 0, score.wrongs
    # Measured 0.69: small classic spades and clubs are often left unknown rather than risked.
    assert score.recall >= 0.6, (score.recall, score.misses)


def test_classic_deck_finds_cards_and_no_phantoms() -> None:
    score = scored("classic", 303, TEST_STYLE, 8)
    assert score.phantom == 0
    # Measured 0.76: black suits must clear stricter bars than red ones.
    assert score.recall >= 0.7, (score.recall, score.misses)


def _view(px_per_mm: float = 2.6) -> np.ndarray:
    return np.array([[px_per_mm, 0, 960], [0, px_per_mm, 540], [0, 0, 1.0]])


def test_chips_boxes_text_and_glare_are_never_cards() -> None:
    recognizer = CardRecognizer(*deck_profile("jumbo"))
    from drivers.camera.synthetic.scene import Glare

    scene = Scene(
        width=1920, height=1080, table_to_image=_view(), design=JUMBO,
        chips=tuple(Chip(x, y, 19, (30, 30, 190)) for x, y in ((-200, -100), (0, 0), (150, 80))),
        boxes=((-300, -150, 63, 88), (100, -150, 88, 63), (-50, 60, 70, 95)),
        texts=(("DEALER", -250, 120), ("PLAYER", 50, -60)),
        glares=(Glare(700, 400, 80, 0.6), Glare(1200, 700, 60, 0.5)),
    )  # fmt: skip
    assert recognizer.recognize(render_scene(scene).image) == []


def test_card_backs_are_face_down_and_never_a_value() -> None:
    recognizer = CardRecognizer(*deck_profile("jumbo"))
    cards = tuple(
        PlacedCard(Card.parse(code), x, 0, angle, face_up=False)
        for code, x, angle in (("AS", -200, 0), ("KH", 0, 30), ("7D", 200, 95))
    )
    scene = Scene(width=1920, height=1080, table_to_image=_view(), design=JUMBO, cards=cards)
    readings = recognizer.recognize(render_scene(scene).image)
    assert len(readings) == 3
    assert all(r.face_down and r.code is None for r in readings)


def test_overlapped_row_never_misreads_and_reads_the_top_card() -> None:
    recognizer = CardRecognizer(*deck_profile("jumbo"))
    row = ("9D", "4H", "QD")
    for angle in (0.0, 180.0):
        step = 36.0 if angle == 0 else -36.0
        cards = tuple(
            PlacedCard(Card.parse(c), -40 + k * step, 0, angle) for k, c in enumerate(row)
        )
        scene = Scene(width=1920, height=1080, table_to_image=_view(), design=JUMBO, cards=cards)
        codes = {r.code for r in recognizer.recognize(render_scene(scene).image)}
        assert "QD" in codes and codes <= {*row, None}, (angle, codes)


def test_index_read_from_either_corner_of_an_overlapped_row() -> None:
    recognizer = CardRecognizer(*deck_profile("jumbo"))
    row = ("9D", "4H", "QD")
    for angle in (0.0, 180.0):
        step = 36.0 if angle == 0 else -36.0
        cards = tuple(
            PlacedCard(Card.parse(c), -40 + k * step, 0, angle) for k, c in enumerate(row)
        )
        scene = Scene(width=1920, height=1080, table_to_image=_view(), design=JUMBO, cards=cards)
        codes = {r.code for r in recognizer.recognize(render_scene(scene).image)}
        assert codes == set(row), (angle, codes)


@pytest.mark.parametrize("px_per_mm", [3.5, 3.6])
def test_a_row_card_whose_index_corner_lies_on_its_neighbour_is_read(px_per_mm: float) -> None:
    # A row dealt a little askew, the middle card a few mm higher and turned the other way: its
    # index corner lies on the paper of the card beneath, its side there a faint edge, so no
    # outline's corner there had the edge support to be read. (At 3.9 px/mm the corner is
    # placed too, but since the reader learns both index corners a moved cut there reads
    # another code and the card is refused as `moved`: a known limit, docs/camera.md.)
    recognizer = CardRecognizer(*deck_profile("classic"))
    row = ("QC", "TD", "TH")
    cards = tuple(
        PlacedCard(Card.parse(c), -30 + 33 * k, dy, angle)
        for k, (c, angle, dy) in enumerate(
            zip(row, (1.0, -1.0, 2.0), (1.0, -3.0, 3.0), strict=True)
        )
    )
    scene = Scene(
        width=1920, height=1080, table_to_image=_view(px_per_mm), design=CLASSIC, cards=cards
    )
    codes = {r.code for r in recognizer.recognize(render_scene(scene).image)}
    assert codes == set(row), codes


def test_recognize_cli_prints_the_json_contract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from calibration.profile import save_profile

    profile, templates = deck_profile("jumbo")
    save_profile(tmp_path / "p", profile, templates)
    cards = (
        PlacedCard(Card.parse("AS"), 20, 0, 10),
        PlacedCard(Card.parse("TD"), -100, 0, 0, False),
    )
    scene = Scene(width=1280, height=720, table_to_image=_view(2.4), design=JUMBO, cards=cards)
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), render_scene(scene).image)
    assert main(["recognize", "--profile", str(tmp_path / "p"), str(image), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert data["image"] == str(image)
    by_face = sorted(data["cards"], key=lambda c: c["face_down"])
    assert [c["code"] for c in by_face] == ["AS", None]
    assert by_face[1]["face_down"] is True
    for card in data["cards"]:
        assert set(card) == {"code", "face_down", "corners", "confidence", "zone"}
        assert len(card["corners"]) == 4 and all(len(p) == 2 for p in card["corners"])
        assert isinstance(card["confidence"], float) and card["zone"] is None
    # Many images show progress on stderr, never on stdout (other tools parse it).
    monkeypatch.setattr("studio.commands.progress.LINE_EVERY", 0.0)
    argv = ["recognize", "--profile", str(tmp_path / "p"), *[str(image)] * 3, "--json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 3
    assert captured.err.splitlines()[-1].startswith("recognize: 3/3 images (100%)")


def _lone_8s() -> tuple[CardRecognizer, Any, Any, CardOutline]:
    """A jumbo recognizer, a frame of one 8S (and its grey), and the card's true outline: for
    tests that feed the card-level decision chosen corner reads."""
    scene = Scene(
        width=1920, height=1080, table_to_image=_view(), design=JUMBO,
        cards=[PlacedCard(Card.parse("8S"), 0, 0, 10)],
    )  # fmt: skip
    rendered = render_scene(scene)
    corners = rendered.cards[0].corners.astype(np.float32)
    outline = CardOutline(corners, corners.reshape(-1, 1, 2).astype(np.int32), partial=False)
    gray = cv2.cvtColor(rendered.image, cv2.COLOR_BGR2GRAY)
    return CardRecognizer(*deck_profile("jumbo")), rendered.image, gray, outline


def test_a_card_whose_other_visible_corner_reads_nothing_reads_on_the_readers_bar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One corner read at the reader's bar and the other, in plain view, reading nothing: the
    # card is read (it was unknown under 0.92 before: a second bar over the reader's own, set
    # when the templates read a spade as a club at 0.895, under today's bar of 0.9). A corner
    # leaning to another code still makes the card unknown.
    rec, frame, gray, outline = _lone_8s()
    for other, seen in ((IndexRead(None, 0.0), "8S"), (IndexRead(None, 0.86, "8C"), None)):
        answers = [IndexRead("8S", 0.905, "8S"), other]
        monkeypatch.setattr(
            rec._classifier, "read_all", lambda w, groups=(), a=answers: [a.pop(0) for _ in w]
        )
        reading = rec._read(frame, gray, card_threshold(gray), outline)
        assert reading is not None and reading.code == seen and not reading.face_down


def test_a_card_whose_two_index_corners_lean_to_its_code_under_the_bar_reads() -> None:
    # A small classic 3C blurred until each of its index corners leans to 3C under the
    # reader's bar (0.9) on every cut: it was unknown. Its two windows, at opposite ends of the
    # card, are evidence a lone window is not (`ReaderTuning.both_ends`).
    # The angle and blur were found by drawing both until the card read from its two corners
    # between the bars (0.85 on the universal reader trained on 256 designs); each new reader
    # reads some drawn scenes sooner, so the scene is drawn again when the reader changes.
    angle = 134.31502082979992
    scene = Scene(
        width=1920, height=1080, table_to_image=_view(1.5), design=CLASSIC,
        cards=(PlacedCard(Card.parse("3C"), 0.0, 0.0, angle),), noise=3.0, jpeg_quality=85,
        blur_sigma=1.7,
    )  # fmt: skip
    (reading,) = CardRecognizer(*deck_profile("classic")).recognize(render_scene(scene).image)
    tuning = ReaderTuning()
    assert reading.code == "3C" and reading.index_reads == 2
    assert tuning.both_ends <= reading.confidence < tuning.abstain


def _leaning_4s() -> Any:
    """A small classic 4S blurred until its two index corners lean to 4S at about 0.7 on every
    cut (the angle and blur were found by drawing both until the card, unknown at the reader's
    own bars, read from its two ends between 0.5 and 0.8 with `both_ends` at 0.5; the reader
    trained on 256 designs reads 4S at 0.67 here, and needed more blur than its forerunner)."""
    scene = Scene(
        width=1920, height=1080, table_to_image=_view(1.5), design=CLASSIC,
        cards=(PlacedCard(Card.parse("4S"), 0.0, 0.0, 288.16122187546785),), noise=3.0,
        jpeg_quality=85, blur_sigma=2.4,
    )  # fmt: skip
    return render_scene(scene).image


def test_a_card_whose_two_ends_lean_to_its_code_only_at_about_0_7_stays_unknown() -> None:
    # Two ends leaning to one code read it from `ReaderTuning.both_ends` (0.8). Lowered to 0.5
    # on the tuning designs, the rule read a 7D as 6D at 0.65 on held-out designs and was
    # withdrawn (docs/camera-history.md, "Two ends leaning to one code"): this 4S, leaning at
    # about 0.7, is unknown rather than read.
    (reading,) = CardRecognizer(*deck_profile("classic")).recognize(_leaning_4s())
    assert reading.code is None
    low = replace(ReaderTuning(), both_ends=0.5)
    (reading,) = CardRecognizer(*deck_profile("classic"), tuning=low).recognize(_leaning_4s())
    assert reading.code == "4S" and reading.index_reads == 2 and reading.confidence < 0.8


class _Guesses:
    """A `DecisionListener` counting the guessed outlines a frame's recognizer decided."""

    def __init__(self) -> None:
        self.guessed = 0

    def decided(
        self, outline: CardOutline, reads: list[IndexRead], reading: CardReading | None
    ) -> None:
        self.guessed += outline.speculative

    def scaled(self, found: list[IndexRead | None], checked: list[IndexRead | None]) -> None:
        pass


def test_a_card_read_under_the_bar_from_both_ends_leaves_its_region_to_the_guesses() -> None:
    # A card read at the reader's bar explains its bright region (no guess is made there) and
    # gives the frame its card size; one read under the bar from its two ends does neither, so
    # the frame's guesses are made as if it were unread (on a tuning frame, a TC read so
    # resized the proposals, and a detected corner's wrong 4C on a 4S went uncontested).
    # (With the bar lowered so that this 4S, leaning at about 0.7, reads from its two ends.)
    listener = _Guesses()
    low = replace(ReaderTuning(), both_ends=0.5)
    rec = CardRecognizer(*deck_profile("classic"), tuning=low, listeners=[listener])
    (reading,) = rec.recognize(_leaning_4s())
    assert reading.code == "4S" and reading.confidence < 0.9
    assert listener.guessed > 0


def test_two_corners_under_the_bar_read_only_leaning_to_one_code_from_its_bar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Both corners leaning to 8S (the weaker at 0.82, over `both_ends`) read 8S at 0.82; leaning
    # to two codes, or the weaker under `both_ends`, or one
    # corner alone under the reader's bar, the card stays unknown.
    rec, frame, gray, outline = _lone_8s()
    cases = (
        ((IndexRead(None, 0.85, "8S"), IndexRead(None, 0.82, "8S")), "8S"),
        ((IndexRead(None, 0.85, "8S"), IndexRead(None, 0.82, "8C")), None),
        ((IndexRead(None, 0.85, "8S"), IndexRead(None, 0.75, "8S")), None),
        ((IndexRead(None, 0.89, "8S"), IndexRead(None, 0.0)), None),
    )
    for answers, seen in cases:
        queue = list(answers)
        monkeypatch.setattr(
            rec._classifier, "read_all", lambda w, groups=(), a=queue: [a.pop(0) for _ in w]
        )
        reading = rec._read(frame, gray, card_threshold(gray), outline)
        assert reading is not None and reading.code == seen, answers
        if seen is not None:
            assert reading.confidence == 0.82 and reading.index_reads == 2


def test_a_blurred_card_with_its_other_index_under_a_chip_reads_at_the_readers_bar() -> None:
    # A small card blurred until its index reads at about 0.8, its other index under a chip:
    # with the reader's bar at 0.5 the card reads; the card-level decision adds no bar of its
    # own (before, a second corner in view that read nothing asked for 0.92).
    profile, templates = deck_profile("jumbo")
    view = np.array([[1.1, 0, 960], [0, 1.1, 540], [0, 0, 1.0]])
    scene = Scene(
        width=1920, height=1080, table_to_image=view, design=JUMBO,
        cards=(PlacedCard(Card.parse("3C"), 0, 0, 0.0),),
        chips=(Chip(22.5, 31.0, 12.0, (30, 30, 190)),), noise=3.0, jpeg_quality=85,
        blur_sigma=2.0,
    )  # fmt: skip
    rec = CardRecognizer(profile, templates, tuning=ReaderTuning(abstain=0.5))
    assert [r.code for r in rec.recognize(render_scene(scene).image)] == ["3C"]


def test_classic_backs_on_the_simulated_table_are_face_down() -> None:
    # The classic back's lattice, cut as an index corner, passes for index ink (its cells fit a
    # diamond at 0.92) and kept such backs "face up, unknown": a classic table paused on them.
    from drivers.camera.synthetic.felt import Felt, FeltLayout, FeltSource, felt_profile
    from studio.games import get_rules
    from studio.runtime.camera import position_rows

    rules = get_rules("caribbean-stud")
    layout = FeltLayout.build(position_rows(rules.positions), CLASSIC)
    recognizer = CardRecognizer(*felt_profile(layout))
    rng = random.Random(7)
    for seed in range(8):
        felt = Felt(seed)
        for position in rules.positions:
            felt.place(position, rng.choice(DECK), face_up=False)
        readings = recognizer.recognize(FeltSource(felt, layout).read().image)
        assert len(readings) == len(rules.positions), seed
        assert all(r.face_down and r.code is None for r in readings), (seed, readings)


class _Told:
    """A decision listener keeping what it is told."""

    def __init__(self) -> None:
        self.cards: list[tuple[list[IndexRead], CardReading | None]] = []
        self.scaled_reads = 0

    def decided(
        self, outline: CardOutline, reads: list[IndexRead], reading: CardReading | None
    ) -> None:
        self.cards.append((reads, reading))

    def scaled(self, found: list[IndexRead | None], checked: list[IndexRead | None]) -> None:
        assert len(found) == len(checked)
        self.scaled_reads += len(found)


def test_a_listener_is_told_every_decision_and_changes_no_reading() -> None:
    # The benches that explain misses listen to the card-level decisions: a card read is one
    # some outline's decision gave, and listening reads the same frame the same way.
    profile, templates = deck_profile("jumbo")
    row = ("9D", "4H", "QD", "7C")
    cards = tuple(PlacedCard(Card.parse(c), -60 + k * 36.0, 0, 5.0 * k) for k, c in enumerate(row))
    scene = Scene(width=1920, height=1080, table_to_image=_view(), design=JUMBO, cards=cards)
    image = render_scene(scene).image
    told = _Told()
    heard = CardRecognizer(profile, templates, listeners=[told]).recognize(image)
    plain = CardRecognizer(profile, templates).recognize(image)
    assert [(r.code, r.confidence) for r in heard] == [(r.code, r.confidence) for r in plain]
    assert {r.code for r in heard} == set(row)
    decided = {reading.code for _, reading in told.cards if reading is not None}
    assert {r.code for r in heard} <= decided
    # Each code decided is one its corners read or leaned to (two corners under the bar).
    assert all(
        r.code in {x.code for x in reads} | {x.hint for x in reads}
        for reads, r in told.cards
        if r is not None and r.code is not None
    )


def test_a_guessed_corner_a_little_off_its_index_is_read_where_the_detector_places_it() -> None:
    # A jumbo 9C under a KD: a guessed outline 2% of the card's height off across and 3.8% along
    # (a proposal sized by the frame's other cards) leans to 9C under the guessed bar and was
    # left unread. Placed again by the index-corner detector, it reads 9C; a guess on the felt
    # leans to nothing and is not read again. (The offset is one the reader in use only leans
    # at: the reader trained on 256 designs reads a guess 3% along as it stands, one 4.3% along
    # not at all.)
    cards = (PlacedCard(Card.parse("9C"), 0, 0, 3), PlacedCard(Card.parse("KD"), 30, 12, -4))
    scene = Scene(
        width=1920, height=1080, table_to_image=_view(3.2), design=JUMBO, cards=cards,
        blur_sigma=0.8, noise=3.0, jpeg_quality=85,
    )  # fmt: skip
    frame = render_scene(scene)
    gray = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    thr = card_threshold(gray)
    truth = frame.cards[0].corners
    height = float(np.linalg.norm(truth[3] - truth[0]))
    across = (truth[1] - truth[0]) / np.linalg.norm(truth[1] - truth[0])
    down = (truth[3] - truth[0]) / np.linalg.norm(truth[3] - truth[0])
    rec = CardRecognizer(*deck_profile("jumbo"))
    leaning: list[CardOutline] = []
    for quad in (truth + height * (-0.02 * across - 0.038 * down), truth - 0.7 * height * across):
        guess = CardOutline(
            quad, np.round(quad).astype(np.int32).reshape(-1, 1, 2), True, True,
            (1.0, 0.0, 0.0, 0.0),
        )  # fmt: skip
        (first,) = rec._read_many(frame.image, gray, thr, [guess], ReadingSource.PROPOSAL, leaning)
        assert first is None  # a guess that names no card is no reading
    assert len(leaning) == 1
    (again,) = rec._read_again(frame.image, gray, thr, leaning, [])
    assert again.code == "9C" and again.source is ReadingSource.REFINED


@pytest.mark.parametrize(("px_per_mm", "blur"), [(3.2, 0.8), (3.6, 0.0)])
def test_a_code_a_firm_card_holds_is_not_repeated_by_a_guess_elsewhere(
    px_per_mm: float, blur: float
) -> None:
    # One deck a round: a code shows once in a frame. Drawn here with the 9C twice (no dealt
    # round holds that), a lone firm 9C and one under a KD: the one under the KD is read only
    # by a guess (a proposal or a detected corner), which repeats the firm card's code. On the
    # tuning caches such repeats were misread indices (a 7C under a chip read QC while the
    # frame's QC lay elsewhere); before, both were reported.
    cards = (
        PlacedCard(Card.parse("9C"), -170, 0, 10),
        PlacedCard(Card.parse("9C"), 0, 0, 3),
        PlacedCard(Card.parse("KD"), 30, 12, -4),
    )
    scene = Scene(
        width=1920, height=1080, table_to_image=_view(px_per_mm), design=JUMBO, cards=cards,
        blur_sigma=blur, noise=3.0, jpeg_quality=85,
    )  # fmt: skip
    frame = render_scene(scene)
    readings = CardRecognizer(*deck_profile("jumbo")).recognize(frame.image)
    coded = sorted((r.code, r.source) for r in readings if r.code is not None)
    assert coded == [("9C", ReadingSource.FIRM), ("KD", ReadingSource.FIRM)]
    (nine,) = [r for r in readings if r.code == "9C"]
    lone = frame.cards[0].corners
    assert np.allclose(np.array(nine.corners).mean(axis=0), lone.mean(axis=0), atol=10.0)
