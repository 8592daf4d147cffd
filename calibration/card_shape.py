"""A playing card's shape, as the calibration profile and the camera both state it."""

from __future__ import annotations

CARD_ASPECT = 88.0 / 63.0
"""A playing card's height over its width (poker size, 88 x 63 mm). The one statement of it in the
package: it lives here, below the camera, because the profile's `DeckCalibration.card_aspect`
defaults to it and calibration may not import the camera's modules above its reader runtime.
Bridge cards (88 x 57 mm) pass every range the finder allows around it, but an outline sized
from a height with it is 10% too wide for them, and their overlapped cards read worse
(docs/camera-history.md, "Decks of another shape"): the recognizer sizes them by the
deck's own aspect (`drivers.camera.corners.deck_aspect`), passed down to every function that
sizes a card from its height."""
