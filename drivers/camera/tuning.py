"""The index readers by name, and the thresholds the learned one reads with, each with its reason.

`INDEX_READERS` names what decides a corner's code (`camera.reader` in the configuration,
`studio recognize --reader`, `bench/camera.py --reader`): "learned" (the default), the deck's
network alone (`drivers.camera.index_model`: the shipped universal reader fine-tuned on the deck's
52 references at `studio calibrate deck`), or "templates", the older correlation reader with
the network only as a fallback that must agree (`drivers.camera.classify`). `ReaderTuning` is
the learned reader's whole table of thresholds; its values are chosen on the tuning designs
only (`bench/camera.py --split tuning --abstain FIRM GUESSED` prints where wrong reads lie) and
only checked on the test designs.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class IndexReader:
    """One way of deciding a corner's code, described for the configuration's error messages."""

    description: str


INDEX_READERS: dict[str, IndexReader] = {
    "learned": IndexReader(
        "the deck's network decides alone (the shipped universal reader fine-tuned on the deck)"
    ),
    "templates": IndexReader(
        "rank and suit templates decide; the deck's network reads only what they refuse, "
        "and only their own best guess"
    ),
}
"""Every index reader by name; adding one here is the only place its name is written."""


@dataclass(frozen=True, slots=True)
class ReaderTuning:
    """The learned reader's thresholds (probabilities of the network's heads, 0..1)."""

    abstain: float = 0.9
    """A corner of a firm outline reads when both heads are at least this sure; under it the
    reader says null. Chosen on the tuning designs only (`bench/camera.py --split tuning
    --designs 6 --frames 30 --reader learned --abstain 0.5 0.5`): no wrong read at any
    confidence from 0.5 in either envelope, but only 6 of 101 studio reads lay under 0.9, too
    few to vouch for that range, so the bar is the lowest bin edge with evidence behind it."""
    abstain_guessed: float = 0.97
    """The same for a corner of a guessed outline (a proposal or a detected index corner): its
    window may be any patch of felt or of other cards, where a network trained on indices can
    be sure of something anyway (the template era's wrong learned reads were all on such
    outlines), so it keeps a margin over `abstain` that the tuning figures did not ask for."""
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
