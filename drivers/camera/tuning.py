"""The index readers by name, and the thresholds the learned one reads with, each with its reason.

`INDEX_READERS` names what decides a corner's code (`camera.reader` in the configuration,
`bench/camera.py --reader`): "templates", the correlation reader with the deck's network only as
a fallback that must agree (`drivers.camera.classify`), or "learned", the deck's network alone
(`calibration.index_model`: the shipped universal reader fine-tuned on the deck's 52
references at `studio calibrate deck`). `ReaderTuning` is the learned reader's whole table of
thresholds; its values are chosen on the tuning designs only (`bench/camera.py --split tuning
--abstain ...` prints where the wrong reads lie) and only checked on the test designs.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class IndexReader:
    """One way of deciding a corner's code, described for the configuration's error messages."""

    description: str


INDEX_READERS: dict[str, IndexReader] = {
    "templates": IndexReader(
        "rank and suit templates decide; the deck's network reads only what they refuse, "
        "and only their own best guess"
    ),
    "learned": IndexReader(
        "the deck's network decides alone (the shipped universal reader fine-tuned on the deck)"
    ),
}
"""Every index reader by name; adding one here is the only place its name is written."""


@dataclass(frozen=True, slots=True)
class ReaderTuning:
    """The learned reader's thresholds (probabilities of the network's heads, 0..1)."""

    abstain: float = 0.99
    """A corner of a firm outline reads when both heads are at least this sure; under it the
    reader says null. The least value under which the tuning designs' bench showed no wrong
    read (see docs/camera.md, "The learned reader")."""
    abstain_guessed: float = 0.999
    """The same for a corner of a guessed outline (a proposal or a detected index corner): its
    window may be any patch of felt or of other cards, where a network trained on indices can
    be sure of something anyway."""
    moved: tuple[float, float] = (0.02, 0.05)
    """Each corner is also cut through outlines moved by this share of the window's height
    (left, right, up, down) and grown by this share: about a found outline's error. A code
    that changes under a moved cut is not read, and the confidence is the least over all."""
    hint: float = 0.5
    """A corner under the abstain bar whose best code is this sure still contradicts another
    corner of the card naming another code: the card is then unknown."""
    index_like: float = 0.5
    """A corner of a card showing little paper (a back's pattern) makes it face up only when
    the network's rank head gives "not an index" less than this: it learned backs, chips and
    other parts of faces as "none"."""


LEARNED_TUNING = ReaderTuning()
"""The tuning the learned reader reads with."""
