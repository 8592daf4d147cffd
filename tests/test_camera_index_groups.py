"""Windows at one index are checked on moved cuts once: the surest first, the rest only if needed.

Each face-up card's two index corners are cut from rendered frames at the true outline (moved by
a pixel of jitter, as a found outline would be) and read by the deck's reader alone and as one
group (`IndexClassifier.read_all(windows, groups, settled)`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy.typing as npt
import pytest
from camera_support import deck_profile, index_windows

from drivers.camera.classify import IndexClassifier, IndexRead
from drivers.camera.synthetic.generator import SceneStyle

APART = SceneStyle(
    card_px=(140.0, 260.0), blur=(0.0, 1.2), motion=(0.0, 3.0), noise=(0.0, 6.0), jpeg=(70, 95),
    p_row=0.0, chips=(0, 0), glares=(0, 1), cards=(4, 7),
)  # fmt: skip


def _pairs(frames: int, seed: int) -> tuple[IndexClassifier, list[npt.NDArray[Any]]]:
    """The classic deck's reader, and both index windows of every face-up card, in pairs."""
    profile, templates = deck_profile("classic")
    assert profile.deck is not None
    windows = [w for _, w in index_windows("classic", APART, frames, seed)]
    return IndexClassifier(profile.deck, templates), windows


def _counted(classifier: IndexClassifier, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter of the windows `classifier` cuts again through moved outlines."""
    calls = [0]
    moved = classifier._moved

    def counting(
        window: npt.NDArray[Any], moves: Sequence[tuple[int, int, bool]] = ()
    ) -> list[npt.NDArray[Any]]:
        calls[0] += 1
        return moved(window, moves)

    monkeypatch.setattr(classifier, "_moved", counting)
    return calls


@pytest.mark.parametrize("guessed", [False, True])
def test_a_group_whose_surest_window_does_not_settle_reads_as_every_window_alone(
    guessed: bool,
) -> None:
    classifier, windows = _pairs(3, seed=71)
    pairs = [[k, k + 1] for k in range(0, len(windows), 2)]
    alone = classifier.read_all([(w, guessed) for w in windows])
    assert classifier.read_all([(w, guessed) for w in windows], pairs, settled=1.01) == alone


@pytest.mark.parametrize("guessed", [False, True])
def test_a_settled_group_checks_one_window_and_names_no_other_code(
    guessed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    classifier, windows = _pairs(3, seed=72)
    pairs = [[k, k + 1] for k in range(0, len(windows), 2)]
    calls = _counted(classifier, monkeypatch)
    alone = classifier.read_all([(w, guessed) for w in windows])
    cut_alone, calls[0] = calls[0], 0
    grouped = classifier.read_all([(w, guessed) for w in windows], pairs, settled=0.92)
    sure = 0
    for a, b in pairs:
        group = [grouped[a], grouped[b]]
        # The surest of a pair is read exactly as alone; neither names a code alone did not.
        assert alone[a] in group or alone[b] in group
        named = {r.code or r.hint for r in group if r is not None} - {None}
        assert named <= {r.code or r.hint for r in (alone[a], alone[b]) if r is not None}
        reads = [alone[a], alone[b]]
        if _code(alone[a]) == _code(alone[b]) and all(
            r is not None and r.code and r.confidence >= 0.92 for r in reads
        ):
            sure += 1
            # Settled: a guessed window still reads as a claim of its own, a firm card's
            # other corner is only a hint.
            assert [_code(r) for r in group].count(None) == (0 if guessed else 1)
    # A card read sure on both corners alone has its second corner not cut again.
    assert sure >= len(pairs) // 2
    assert cut_alone - calls[0] >= sure


def _code(read: IndexRead | None) -> str | None:
    return None if read is None else read.code


def _misplaced(
    classifier: IndexClassifier,
    monkeypatch: pytest.MonkeyPatch,
    wrong: dict[int, npt.NDArray[Any]],
    at: int,
) -> list[int]:
    """Moved cuts of the windows keyed in `wrong` (by `id`) showing that other window at the
    `at`-th cut of the five, as an outline moved onto a neighbour's index would; the others as
    they are. Returns a counter of the moved cuts made."""
    made = [0]
    moved = classifier._moved

    def cutting(
        window: npt.NDArray[Any], moves: Sequence[tuple[int, int, bool]] = ()
    ) -> list[npt.NDArray[Any]]:
        cuts = moved(window, moves) if moves else moved(window)
        # Which of the five these are: all five, the first alone, or the four after it.
        first = 1 if len(moves) == 4 else 0
        made[0] += len(cuts)
        if id(window) in wrong and first <= at < first + len(cuts):
            cuts[at - first] = wrong[id(window)]
        return cuts

    monkeypatch.setattr(classifier, "_moved", cutting)
    return made


def _sure_pair(
    classifier: IndexClassifier, windows: list[npt.NDArray[Any]]
) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """Two windows read sure as two different codes."""
    reads = classifier.read_all([(w, False) for w in windows])
    sure = [(w, r.code) for w, r in zip(windows, reads, strict=True) if r and r.code]
    a, code = sure[0]
    b = next(w for w, other in sure if other != code)
    return a, b


def test_a_window_whose_first_moved_cut_names_another_code_is_cut_no_further() -> None:
    classifier, windows = _pairs(2, seed=73)
    a, b = _sure_pair(classifier, windows)
    with pytest.MonkeyPatch.context() as patch:
        made = _misplaced(classifier, patch, {id(a): b}, at=0)
        (read,) = classifier.read_all([(a, False)])
    # The card is not read there, as with all five cuts, and four cuts fewer are made.
    assert read is not None and read.code is None and read.confidence == 0.0
    assert made[0] == 1


@pytest.mark.parametrize("at", [0, 1, 4])
def test_a_moved_cut_naming_another_code_anywhere_refuses_only_its_window(at: int) -> None:
    classifier, windows = _pairs(2, seed=74)
    a, b = _sure_pair(classifier, windows)
    alone = classifier.read_all([(w, False) for w in windows])
    with pytest.MonkeyPatch.context() as patch:
        _misplaced(classifier, patch, {id(a): b}, at=at)
        misled = classifier.read_all([(w, False) for w in windows])
    for w, before, after in zip(windows, alone, misled, strict=True):
        if w is a:
            assert after is not None and after.code is None and after.confidence == 0.0
        else:
            assert after == before
