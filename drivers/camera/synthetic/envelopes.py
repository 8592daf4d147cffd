"""The two camera envelopes the recognizer's figures are stated for, as scene styles.

`STUDIO`: an overhead camera in focus at 1080p, cards at rest 140-400 px tall, defocus sigma at
most 0.8 px, motion at most 2 px, JPEG quality 80 or better, glare allowed, overlaps as dealt
(rows, fans, a card lying sideways). `HARSH`: the camera bench's older draw (defocus to 1.6 px,
motion to 5 px, cards from 120 px, JPEG from 50), with the same fans and sideways cards.
`docs/camera.md` states both.
"""

from __future__ import annotations

from drivers.camera.synthetic.generator import SceneStyle

STUDIO = SceneStyle(
    width=1920, height=1080, card_px=(140.0, 400.0), blur=(0.0, 0.8), motion=(0.0, 2.0),
    noise=(0.0, 4.0), jpeg=(80, 95), gain=(0.85, 1.1), gradient=(0.0, 0.25), glares=(0, 2),
    glare_strength=(0.2, 0.6), tilt=0.0002, p_fan=0.3, p_sideways=0.25,
)  # fmt: skip
"""An overhead studio camera in focus, cards at rest as dealt."""

HARSH = SceneStyle(
    width=1920, height=1080, card_px=(120.0, 300.0), blur=(0.0, 1.6), motion=(0.0, 5.0),
    noise=(0.0, 8.0), jpeg=(50, 95), gain=(0.8, 1.15), gradient=(0.0, 0.35), glares=(0, 3),
    glare_strength=(0.2, 0.7), tilt=0.00035, p_fan=0.3, p_sideways=0.25,
)  # fmt: skip
"""Out of focus, moving, small and compressed: the bench's older 1080p draw, with fans."""

ENVELOPES: dict[str, SceneStyle] = {"studio": STUDIO, "harsh": HARSH}
"""Each envelope by name, as `bench/camera.py --envelope` takes them."""
