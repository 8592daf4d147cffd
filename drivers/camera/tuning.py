"""The index readers by name, and every threshold of the card-reading side, with its reason.

`INDEX_READERS` names what decides a corner's code (`camera.reader` in the configuration,
`studio recognize --reader`, `bench/camera.py --reader`): "learned", the deck's network alone
(`drivers.camera.index_model`: the shipped universal reader fine-tuned on the deck's 52
references at `studio calibrate deck`). The older "templates" reader (correlation with rank and
suit templates under some 40 hand-set bars, and hand rules on the face's symbols) is gone: on
the tuning designs it read about half the cards the network reads, wrong no more often.
`ReaderTuning` is the learned reader's table of thresholds; its values are chosen on the tuning
designs only (`bench/camera.py --split tuning --abstain FIRM GUESSED` prints where wrong reads
lie) and only checked on the test designs. The module-level numbers below are the recognizer's
rules on outlines and paper, which the reader shares: they decide what is a card, a back, one
spot, not which card.
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
    that changes under a moved cut is not read, and the confidence is the least over all.
    Guessed outlines' corners at one printed index naming one code are checked once, on the
    surest of them; the others then read on their own cut (`IndexClassifier.read_all`)."""
    outward: tuple[float, ...] = (0.02, 0.04)
    """A firm outline's corner that names a code (or leans to one) is also cut through the
    outline moved out toward both of the card's edges meeting at that corner, by each of these
    shares of the card's height, and reads nothing (no code, no lean) when every such cut names
    another code; "none" in either head on any of them keeps it (that cut shows felt past the
    paper). A firm outline the fit left inside its card (a side with no paper edge found, a
    border line taken for the edge) lies 3-5% of the height in, and where the index sits tight
    to the card's edge the window's edge cuts the index's top off: what is left read, sure and
    at both corners, as another rank (`bench/cutoff_index.py`, 8 tuning designs' cards through
    outlines 3-6% in: 29 wrong reads sharp, 31 blurred, 6 as 9, 10 as 8, 9 as 7), which the
    moved cuts (`moved`: 2% of the window's height, under 1% of the card's) never show. Moved
    out, the window shows the index whole and names the card drawn there. Both shares must
    contradict because the reader does not call a window moved past the card's edge "none"
    reliably: one cut 2% out contradicted 36 of 829 right reads on their true outlines (5% out:
    108), two cuts 2% and 4% out none sharp and one blurred, and took every wrong read away; 2%
    and 5% let 4 through at 3%, 3% and 4% cost 34 right reads (docs/camera-history.md, "Firm
    corners cut again moved out"). Guessed outlines are not cut so: they have the scaled cut
    (`scaled`)."""
    scaled: tuple[float, ...] = (1.06,)
    """A guessed outline's coded corner is also cut through that outline scaled about the
    corner by this share, down and up, and reads only when both cuts name the same code (the
    confidence is the least over them too). A guessed outline takes its size from the frame's
    other cards, and the studio camera's perspective makes cards differ by up to a quarter
    across the frame: a proposal too small for its card, anchored at the card's corner, shows
    the reader part of the index magnified, which it read wrong and sure (tuning designs: AC
    as AS at 0.9991, 8S as QS at 0.9935); 10% either way refused both, while right proposals
    of the same frames kept their code from 0.9 to 1.1 of their size. Firm outlines are
    measured on their own card and are not scaled."""
    both_ends: float = 0.8
    """An outline whose two index corners both lean to one code under their bar, every cut of
    each naming it, reads that code when the weaker of the two is at least this sure (its
    confidence). The two windows lie at opposite ends of the card and share no pixel: two
    such leanings are evidence a lone window's confidence does not carry. First set at 0.8 on
    23 such outlines (`bench/unsure_reads.py`, tuning designs: every one the card drawn there,
    from 0.5 up), with a margin under the lone firm corner's 0.9 for want of evidence. Counted
    again on more tuning frames, firm and guessed outlines apart (`--envelope studio --designs 4
    --frames 400 --seed 20261216`, `--envelope harsh --designs 4 --frames 120 --seed 20261212`
    and `--frames 400 --seed 20261217`): 22 more outlines leaned so under 0.8 (11 firm, 11
    guessed), every one to the card drawn there, 12 of those cards otherwise missed; on the two
    hand-set decks drawn blurred alone (600 scenes) 123 more under 0.8, none wrong. A lone
    corner under its bar was wrong in the same runs (firm 4 of 46 under 0.9, guessed up to 17%
    in a bin), so the evidence is the two ends together. Lowered to the hint's own bar (0.5) on
    that count, it failed its check on held-out designs: on 2,402 test-split studio cards a
    firm 7D leaning 6D at both ends read 6D at 0.65 (the only read under 0.8 that was wrong, the
    first wrong read the change added), so the bar is back at 0.8, its value before, until a
    larger tuning count shows where two ends stop being evidence (docs/camera-history.md, "Two ends
    leaning to one code")."""
    hint: float = 0.5
    """A corner under the abstain bar whose best code is this sure still contradicts another
    corner of the card naming another code: the card is then unknown."""
    index_like: float = 0.5
    """A corner of a card showing little paper (a back's pattern) makes it face up only when
    the network's rank head gives "not an index" less than this: it learned backs, chips and
    other parts of faces as "none"."""


LEARNED_TUNING = ReaderTuning()
"""The tuning the learned reader reads with."""


PAPER_SHARE_FACE_UP = 0.3
"""A face shows over 45% paper inside its border even on a court card; a back shows almost none
(its border is cut away before counting), so 30% splits them with room for glare on a back. A
paperless card whose corner the network takes for an index (`ReaderTuning.index_like`) stays
face up: a back's pattern is "none" to it. Also the least share of paper over the area a
strip's card would take under the card beside it (`detect._extend`): the rest of a covered card
lies under a face, which shows more; felt shows none (two strips at a fan's edge grown over the
felt were unknown cards where none lay on the studio tuning frames). A strip covered by a back
is not extended when the back shows little paper."""
FELT_IN_REST = 0.3
"""The most of the area a strip's card would take under the card beside it (`detect._extend`)
that may show the felt seen around the strip's bright region: where the felt shows, no card
lies hidden. A strip at a fan's edge grown across the felt onto a back beyond it saw 59% felt
there (an unknown card where none lay, studio tuning frames); strips grown rightly under their
neighbour, across a chip or a little past its edge, saw at most 24% on 1,500 studio tuning
frames (one, under a black chip taken for felt, 59%: its card is read without it)."""
RING_SIZE = 0.1
"""How far (a share of the calibrated card height) a bright region's long side may be from that
height for the finder to take the region, hollow and with no outline in it, as a small back
(`detect._ring_backs`). A back's paper margin, 6-8 px on a 150-200 px card, is broken by the
edge cut so that no piece outlines it, while its closed region's edge is the card's own
(cam-backs4). A whole card's outline may be 0.8-1.25 of the height (perspective, and a fit
after it); a region is not fitted, and the nearer bar keeps two cards or a card and a chip
merged in one region out."""
PAPER_SHARE_BORDER = 0.5
"""Every card, face up or down, has a paper-white margin; a picture panel, a chip or a printed
shape without one is not a card, whatever its outline looks like."""
PAPER_CHROMA = 60
"""Paper is grey-white: a pixel whose channels spread more than this (of 255) is print or felt."""
OWN_PAPER_LEVEL = 0.85
"""A pixel inside a card is its own border's paper at this share of the border ring's median
paper grey or more (`paper.own_paper`). A face is printed on the same paper as its border; a
light back's print is darker or tinted against its white border. 0.85 and 0.9 called the same
faces on 40 tuning designs (`bench/card_backs.py`), so the level is not what separates them."""
OWN_PAPER_TINT = 20
"""...and, for the tinted share, within this (of 255) of the ring's median blue and red against
green: a light back's pattern is its ground lightened evenly, so it keeps the ground's tint,
where a face's paper has its border's."""
LIGHT_BACK_TINT = 0.08
"""An unread card whose inside is under 8% its border's tinted paper is a light back
(`paper.light_back`): on 40 tuning designs, of the cards the felt threshold calls faces, studio
backs reached 0.13 (95th percentile 0.09) and faces and court cards started at 0.29 (harsh court
cards, a panel over most of the inside, at 0.11), but for one ace at 0.00 that
`LIGHT_BACK_GREY` keeps up. Such a card stays an unknown face while the guesses are merged
(`recognizer._backs_down`): a guess reading a code on its spot replaces it, as it would an
unread face; only a card no guess reads is reported face down."""
LIGHT_BACK_GREY = 0.5
"""...and under half its inside at its border's grey (whatever the tint): light patterns are the
paper's grey over at most 0.50 of a studio back, and an ace whose tint the cue missed (0.00) was
0.93 its border's grey."""
SAME_SPOT = 0.7
"""Two readings whose quads share 70% of the smaller one describe the same card, when one has no
code to say where its index is (`guesses.merge_guesses`: an unknown reading is replaced by a
guess on its spot)."""
SAME_INDEX = 0.12
"""Two reads whose index windows' centres lie within 12% of the card's height of each other are
reads of one printed index (`guesses.same_index`). A guessed outline off by a few percent of the
card still puts its window there; two indices both in view cannot be so close, since a window is
about 18% of the card's height wide and 31% tall and a card lying over another's window hides
it. Coded reads farther apart are different cards, however much their outlines overlap (a row,
a fan): merging them by outline overlap (`SAME_SPOT`) was the largest cause of missed overlapped
cards on the tuning designs."""
INDEX_CENTRE = (0.145, 0.175)
"""The middle of an index window, as fractions of the card's width and height from its corner
(the window where the index corner detector and the bench look: 0.02-0.27 by 0.02-0.33)."""
OUTLINE_GROWTH = 1.06
"""A firm outline's long side falls this much short of the card's height (median 1.06 on the
tuning designs; `finder.OUTLINE_SCALE`): another card's outline is grown by it before it is
taken out of a covered card's view (`visible.visible_part`), so its rim of paper never passes
for the covered card's."""
SAME_CARD = 0.08
"""Another outline whose corners all lie within 8% of the card's height of this one's (either
way up) is the same card found twice (a strip's extension and a border line's rectangle), not a
card lying over it (`visible.visible_part`)."""
READ_ASPECT = 1.2
"""An outline is read only when its long sides are at least this many times its short sides
(the least a whole card's outline may show under perspective, `outline.OUTLINE_ASPECT`). The
finder asks it of firm outlines when it finds them, but fitting an outline onto the paper's edge
or snapping a guess onto edges may pull one end onto a line inside the card (an index's ink, a
border line, the next card's edge): the index window, cut at fixed shares of the outline, then
loses the top of the index or shows it magnified, and the reader names what is left of it
(tuning designs, studio: a 7H read as JH on a firm outline of aspect 1.16, a 9D as QH on
proposals of 1.07-1.19). Chosen on the tuning split, every frame's firm readings and guesses
recorded and merged again offline with each bar (`bench/camera.py --split tuning --envelope
studio --designs 4 --frames 920 --seed 20261211 --frame-cache DIR`, gen-1000, and `--designs 8
--frames 1200 --seed 20261208`, gen-1000 and gen-1001): at 1.2 one wrong read fewer and 4 cards
more (wrong guesses that no longer contest right ones); 1.23 kept one of those cards, 1.25
read as main or a card fewer, 1.3 3-14 cards fewer (firm outlines read right lie down to 1.15
under the studio camera's perspective). On the whole 1,200-frame run (4,704 cards) recall
96.92% -> 97.02%, the same 5 wrong reads and 2 phantoms (other causes: docs/camera-history.md, "The
tuning split at scale")."""
OTHER_CORNERS_ASPECT = 1.3
"""A four-index deck's top-right and bottom-left corners are read only on firm outlines whose
long sides are at least this many times their short sides (a card's are 1.40; the firm
outlines read right at those corners on the tuning frames lay at 1.33-1.45). An outline the
fit left short at both ends, on the jumbo index ink, cuts each window's index top off: on the
small harsh tuning cache such an outline of a 7D (aspect 1.26) read JD at 0.975 and 0.961 at
its other two corners, where its index corners had read nothing (`READ_ASPECT`'s case, at
corners main never read)."""
REGION_EXPLAINED = 0.85
"""A bright region whose area is this much covered by outlines that read (a code at the reader's
bar, or a back; not a card read from its two ends under the bar, `ReaderTuning.both_ends`) is
explained by them: no card outline is guessed (proposed) in it. Its rest is the cards' rounded
corners and the finder's shrinkage. A region under this share is explained too when nothing of
it wider than `INDEX_IN_VIEW` is left outside the read cards' fitted outlines."""
INDEX_IN_VIEW = 0.05
"""A bright region is also explained (no card guessed in it) when what is left of it outside
the cards read there (whole cards by their fitted outline, strips by the part in view) holds no
disc of this share of the card's height (`visible.explained`): a rank glyph, the least of an
index the reader names, is about 7% of the height wide, so a leftover that thin is the paper's
rim, blur and shadow, not another card's index. Before, a region was open to guesses unless
the read cards' found contours (cut by the index ink and the border line) covered 85% of it,
and half the lone cards read at both ends on the cached tuning studio frames (109 of 220)
were proposed over again. At 10% one barely visible card (12% in view, scored unreadable) read
by a proposal on a harsh tuning frame was lost; at 5% every reading of the cached tuning frames
kept its code."""
MIN_CORNER_SUPPORT = 0.7
"""A proposed outline's index corner is read only when both sides meeting there lie on image
edges along at least 70% of the stretch beside the index. Motion blur smears edges, and
well-placed blurred proposals under this bar are the largest cause of misses under blur; 0.5
was tried (tuning split, 6 designs x 120 frames: studio 92.1 -> 93.4%, harsh 88.6 -> 91.2%, no
new wrong read there) but read one card wrong on the test split (4D at 0.98 over a pile), so it
was withdrawn: a lower bar needs a guard the tuning designs show first."""
ANCHOR_MOVE = 0.015
"""A guessed outline gets a copy anchored on the paper's corner (`finder.anchored`) only when
the anchoring moves its index window by more than this share of the card's height: the reader
was trained on outlines about that far off (`corner_render.CameraLook`), so a guess within it
reads as well as its copy would, and the copy's read costs three network inputs and a guess
more. Chosen on the tuning split (`bench/camera.py --split tuning --envelope harsh --designs 4
--frames 240 --seed 20261211`, and studio with 880 frames): harsh recall 88.22% with a copy of
every guess, 88.12% with this bar (one card), for a fifth less of the copies' added time
(gen-1001 harsh: 87 -> 80 corners read a frame, against 60 without copies)."""
CONFIRMED_CORNER = 0.9
"""A guessed outline's corner with too little edge support (`MIN_CORNER_SUPPORT`) is
read all the same when the learned index-corner detector scores it an index corner in place at
least this sure (`finder.confirmed_corners`). Chosen on the tuning split
(`bench/camera.py --split tuning --envelope studio --designs 4 --frames 120 --seed 20261211`,
and `--envelope harsh --designs 2 --frames 60`): at the detector's own bar
(`index_corners.THRESHOLD`, 0.44) studio recall gained the same six cards and harsh lost one
card more to a contested claim (a copy read a neighbour's index, its outline reaching over the
card's read index), for about a third more copies read; no wrong read at either bar. The weak
corners' copies anchored on the paper's corner are vouched for at the same bar (not swept)."""
DENSE_CORNER = 0.2
"""The dense index-corner detector's peaks at least this sure are offered to the vouching
(`finder.dense_found_corners`). On the held-out tuning designs (`bench/dense_corners.py`) its
corner recall was 88.5% studio and 86.6% harsh at 0.2, 77.7% and 72.6% at 0.5; the false
peaks (about 6 a frame at 0.2) are the index-corner detector's to refuse (`CONFIRMED_CORNER`)."""
DENSE_ON_REGION_PX = 4.0
"""A dense corner is taken on a bright region when it lies within this many pixels of it: an
index corner sits on the paper's rounded corner, which the region's threshold cuts a little."""
REFINE_STEP = 0.012
"""A guessed index corner whose read leaned to a code under the bar is scored by the
index-corner detector moved along the card's sides in steps of this share of the card's height
(`finder.refined_corners`), and read again where the detector is surest: about one pixel of the
detector's patch (`index_corners.PATCH_SPAN`), and under the 2% the reader's moved cuts already
cover (`ReaderTuning.moved`)."""
REFINE_STEPS = 1
"""Steps of `REFINE_STEP` each way along each side: a 3 x 3 grid of places a leaning corner.
Chosen on the tuning split, cached frames (`bench/camera.py --split tuning --envelope studio
--designs 4 --frames 120 --seed 20261211 --frame-cache ...`, the same with `--frames 200 --seed
20261205`, and `--envelope harsh --designs 4 --frames 200 --seed 20261205`; main 97.81%,
97.03%, 90.63%): 1 step 98.25%, 98.14%, 91.62%; 2 steps 98.25%, 98.02%, 91.49%; 3 steps
98.25%, 97.89%, 91.62%; no wrong read or phantom added at any. On 920 studio frames of seed
20261211 (3,436 cards, main 96.94%) 1 step read 97.12%, 2 steps 97.21%: over all four runs the
two read within one card of each other, and the nearer reach costs the least (9 detector
patches a leaning corner, against 25 and 49)."""
REFINED_CORNER = 0.9
"""A leaning corner is read again at the detector's surest place only when that place scores at
least this (and more than the corner's own place): the bar at which the detector vouches for a
weakly edged corner (`CONFIRMED_CORNER`). Not swept."""
PERSPECTIVE_OUTLINES = 3
"""Whole firm outlines from which a frame's card height is a plane over the frame, not their
median (`finder.region_heights`). On the tuning runs (studio `--designs 4 --frames 120 --seed
20261211`, 456 readable cards; harsh `--designs 2 --frames 60`, 265), the height the
frame's outlines give a readable card was more than 8% off for 23 and 58 cards as their
median, 7 and 20 as a plane from three outlines, 12 and 25 from four."""
WINDOW_IN_VIEW_PX = 3.0
"""A partly covered card's index window is in view when its inner 70% lies inside the hull of
the card's visible region, or within this many pixels of it (the region's edge is found to a
pixel or two; a window cut by another card's edge by more is not read)."""
PAST_EDGE_INSET = 0.015
"""Where a four-index deck's top-right window reaches past the card's right edge (a wide window
round a narrow index; `DeckCalibration.upper_right_window`), the part past it is filled with the
paper this share of the card's width inside the edge, repeated: the top-left window never
reaches past the card, so the reader never saw felt there. On the edge itself a fitted outline
a pixel off shows felt; a printed border line lies 3% in. Calibration's check on the flat
references fills it the same way (`calibration.four_index.cut`)."""
STILL_BLOCK = 8
"""A frame is compared with the one last read in blocks of 8x8 pixels (their mean, per colour
channel; `still.StillRecognizer`): a block averages sensor noise down (an 8 px block's mean
moves ~1/8 as much as a pixel) while an index glyph's stroke still fills a good part of one."""
STILL_TOLERANCE = 24
"""A frame whose every block mean lies within this many levels (of 255) of the frame last read
is that frame again, and its readings are reused. On the tuning designs, fresh sensor noise and
JPEG moved a block by at most 5 levels (studio) and 11 (harsh: noise sigma up to 8, JPEG 50);
replacing one card by another at the same place moved some block by 66-180 levels, and taking
a card away or laying one down changes paper to felt. Twice the harsh noise, a third of the
smallest replacement seen."""
STILL_MARGIN = 0.25
"""How far round the changed blocks of a settled picture, and the settled cards touching them,
the part read again reaches, in the settled cards' longest side (`still.StillRecognizer`). A
changed card's blocks that did not move lie at its edge: a back's white border turned into a
face's paper (about 5% of the card), an outline a few percent off, a blurred edge a block or
two. A card laid on felt moves every block it covers, and one laid on a settled card lies within
that card and its own moved blocks; a quarter of a card holds what is left with room."""
STILL_PART_SHARE = 0.6
"""A changed part grown by its margin that covers more than this share of the frame is not read
alone: the whole frame is read, as a picture that changed everywhere (a hand over the layout)
costs little more than most of it, and the finder then sees every region whole."""

PRINTED_LINE = 0.025
"""The widest dark run (a share of a card's long side, at least 3 px) a printed border line with
its gaps makes; a wider one is felt between two bright things. `paper_edge.out_to_paper_edges`
moves a firm side past such a run onto paper only when felt follows. A paper-to-felt step may be
followed by one, with paper again to the end of the profile (`PAPER_PAST_LINE` of
it at least), and be taken for a printed border line rather than the paper's edge
(`outline_fit.fit_outlines`). Where a
card lies on a neighbour, the paper goes on past its edge and the outermost dark step across
that side is the card's own border line: the side was fitted onto it, 2.3-2.5% of the card's
height inside the paper, and both index windows slid in with it (71 of 77 such firm outlines on
gen-1033's 500 cached tuning frames, seed 20261206)."""

PAPER_PAST_LINE = 0.03
"""The paper (a share of a firm outline's long side) that must follow a `PRINTED_LINE`-thin dark
run to the profile's end for the step before it to be a border line on a card lying on a
neighbour: more than a card's own margin outside its border line (2.2% of the height on the
generated decks). A lone card's outline snapped deep inside its border reaches only that margin
past the line, and is fitted onto the line first and the paper's edge on the next pass."""

POKER_SNAP = 0.015
"""A deck whose measured aspect (`DeckCalibration.card_aspect`) lies within this share of poker's
(88/63 = 1.397) is sized as exactly poker (`corners.deck_aspect`). Calibration measures a
poker-size deck 1.395 from scans and 1.399 from photographs (0.15% off): a deck that close is
poker size, and every poker-size deck then reads frame for frame as it did before the aspect
was passed on (the shared poker caches give the same summary lines). The nearest other shape in
use, 1.47 (drawn sets), is 5% off, and bridge (1.544) 10.5%: both lie well outside it. Within
it, a guess sized with poker's aspect is at most 1.5% of a width off, the error the reader is
trained to take (`outline_fit`)."""

REFERENCE_OPAQUE = 128
"""A deck reference's alpha (0-255) from which a pixel is the card's: `calibration.deck.
read_reference` crops a PNG's transparent margin to the pixels at least this opaque, so the
antialiased rim of a rounded corner (any value between) counts as half in, half out, as it
draws."""

REFERENCE_CUTOUT = 0.02
"""The share of a reference's opaque bounding box that may be transparent for the card to be
taken as cropped upright to its edges (its rounded corners are 0.2% of a poker card's box): its
transparent corners are then filled with the card's own paper, so it flattens as a scan cropped
to the card does. More transparent than this, the card is a cut-out lying askew, and it is laid
on black for the outline finder to find, as a photograph on a dark ground."""

GROUND_STEP = 8.0
"""The least colour step (grey levels, in any channel) between a reference's plain light ground
(a white canvas, a scanner's lid, a light table) and the card's paper for the card to be found
on it (`calibration.deck._ground_outline`): the generated decks' papers lie 3-40 levels under
white in some channel, a white canvas's sensor noise and JPEG shift its median by a level or
two. A card printed on paper as white as its ground shows no edge and is taken as cropped."""
