"""The dense index-corner detector fed to the finder (`finder.dense_found_corners`).

A card lying in a blurred pile may show its index corner inside the bright region, where the
rim makes no corner and the proposals' edges place no outline: the dense detector finds it
there, and the recognizer reads it once the index-corner detector vouches for it anchored on
the paper's corner.
"""

from __future__ import annotations

import numpy as np
from camera_support import generated_profile

from drivers.camera.reading import ReadingSource
from drivers.camera.recognizer import CardRecognizer
from drivers.camera.synthetic import deckgen
from drivers.camera.synthetic.envelopes import ENVELOPES
from drivers.camera.synthetic.generator import random_scene
from drivers.camera.synthetic.scene import RenderedFrame, render_scene
from drivers.camera.synthetic.scoring import Score


def _harsh_tuning_frame(design_seed: int, seed: int, index: int) -> RenderedFrame:
    """The `index`-th harsh scene `bench/camera.py --seed SEED` draws for a tuning design."""
    design = deckgen.design(design_seed)
    rng = np.random.default_rng([seed, design_seed])
    for _ in range(index):
        random_scene(rng, ENVELOPES["harsh"], design)
    return render_scene(random_scene(rng, ENVELOPES["harsh"], design))


def test_a_card_whose_index_corner_only_the_dense_detector_finds_is_read() -> None:
    # Frame 28 of gen-1001 on the small harsh tuning cache (seed 20261212): six blurred cards,
    # a 2D among them that no firm outline, proposal or rim corner reads.
    frame = _harsh_tuning_frame(1001, 20261212, 28)
    profile = generated_profile(1001)
    fed = CardRecognizer(*profile).recognize(frame.image)
    alone = CardRecognizer(*profile, dense=False).recognize(frame.image)
    assert "2D" in {c.code for c in frame.cards if c.face_up and c.readable}
    assert "2D" not in {r.code for r in alone}
    (two,) = [r for r in fed if r.code == "2D"]
    assert two.source is ReadingSource.DENSE
    with_dense, without = Score(), Score()
    with_dense.add(frame, fed)
    without.add(frame, alone)
    # Read at its own place: one card more, and no wrong read or phantom for it.
    assert with_dense.recall > without.recall
    assert (with_dense.wrong, with_dense.phantom) == (without.wrong, without.phantom) == (0, 0)
