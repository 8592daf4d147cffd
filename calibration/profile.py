"""The calibration profile: one directory holding `profile.json` and the deck's index reader.

`CalibrationProfile` (pydantic, unknown fields refused, `profile_version`) gathers the optional
parts a recognizer needs: `lens` (intrinsics and distortion), `table` (image-to-table homography),
`zones` (named card zones on the table, in mm) and `deck` (index geometry; the learned index
reader, which reads the deck, lives beside the JSON as one `.onnx` file). Profiles written before
the rank and suit templates were retired also hold them as PNG files under `templates/`: nothing
reads them (the templates reader is gone), so they are neither written nor read, and such a
profile loads as any other. `load_profile` and `save_profile` raise `ProfileError` with one
clear line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from calibration.card_shape import CARD_ASPECT
from calibration.errors import ProfileError
from drivers.camera.index_model import MODEL_VERSION, IndexModel, weights_digest

PROFILE_VERSION = 1
"""The profile format this code reads and writes; another version is refused, not guessed at."""

PROFILE_FILE = "profile.json"

Matrix = list[list[float]]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LensCalibration(_Model):
    """Camera intrinsics: 3x3 `camera_matrix`, `distortion` coefficients, RMS reprojection error."""

    image_size: tuple[int, int]
    camera_matrix: Matrix
    distortion: list[float]
    rms_error: float
    images_used: int


class TableCalibration(_Model):
    """The homography from (undistorted) image pixels to table millimetres, and how it was found."""

    image_to_table: Matrix
    method: Literal["aruco", "points"]
    image_size: tuple[int, int]
    residual_mm: float


class Zone(_Model):
    """A named card zone: a polygon on the table in millimetres (a game position, usually)."""

    name: str
    polygon: list[tuple[float, float]] = Field(min_length=3)


class IndexModelInfo(_Model):
    """The learned index reader stored beside the deck (`drivers.camera.index_model`).

    `file` names its ONNX model in the profile directory; `sha256` is the digest of the model
    (`weights_digest`), checked on load; `model_version` is the reader's input and output
    layout (`drivers.camera.index_model.MODEL_VERSION`): a model of another version is not used;
    `references_sha256` the digest of the references it was trained from; `ranks`/`suits` name
    the heads' outputs (each ending with the "none" class); `samples` counts the rendered
    training windows.
    """

    model_version: int = MODEL_VERSION
    # A bare file name in the profile's directory: a path from a copied profile.json must not
    # make `save_profile` write the weights anywhere else.
    file: str = Field("index_model.onnx", pattern=r"^[A-Za-z0-9_.-]+\.(onnx|npz)$")
    sha256: str
    references_sha256: str
    ranks: list[str]
    suits: list[str]
    samples: int


class DeckCalibration(_Model):
    """The deck's index geometry, and what was learned of its glyphs.

    `index_window` is (x0, y0, x1, y1) as fractions of an upright card's width and height,
    holding the top-left index; `rank_size`/`suit_size` are template (width, height) in pixels;
    `red_suits` lists suits printed red; `rank_aspect`/`suit_aspect` are glyph height/width
    ratios; `levels` is how many templates each glyph has (one per sharpness the camera may see
    it at), and `level_sharpness` each level's typical index sharpness
    (`calibration.glyphs.sharpness`); a deck learned before it existed has none, and every
    level is then compared. `index_model` describes the learned index reader, which reads the
    deck; a deck learned before it existed has none, and the recognizer refuses it until it is
    calibrated again. `card_aspect` is the deck's card height over width, the median of its
    references' outlines (1.397 poker size, 1.544 bridge size; a deck learned before it was
    measured is poker size); the recognizer does not size cards by it yet. `face_layouts`
    (where each rank's face printed its suit symbols, for a face reader that is gone) is no
    longer learned or read; a profile holding it still loads.
    `four_index` says the deck prints its index at all four corners (`calibration.four_index`),
    and `upper_right_window` is then the window (shares of the card, reaching past its right
    edge when the deck's window is wide) that holds the top-right index, upright, as the deck's
    window holds the top-left one; the bottom-left one is its half turn (the recognizer reads
    them, `drivers.camera.other_corners`). A deck learned before either existed is a two-index
    deck.
    The templates' own images are not stored (see the module docstring): `rank_size`,
    `suit_size` and `levels` describe the templates `learn_deck` averages.
    """

    index_window: tuple[float, float, float, float]
    rank_size: tuple[int, int]
    suit_size: tuple[int, int]
    ranks: list[str]
    suits: list[str]
    levels: int = Field(ge=1)
    level_sharpness: list[float] = []
    red_suits: list[str]
    rank_aspect: dict[str, float]
    suit_aspect: dict[str, float]
    cards_used: int
    index_model: IndexModelInfo | None = None
    face_layouts: dict[str, list[tuple[float, float, float]]] = {}
    card_aspect: float = Field(default=CARD_ASPECT, gt=1.0)
    four_index: bool = False
    upper_right_window: tuple[float, float, float, float] | None = None

    @model_validator(mode="after")
    def _window_with_four_index(self) -> DeckCalibration:
        # One fact, stated twice in the JSON for the technician: they must agree.
        if self.four_index != (self.upper_right_window is not None):
            raise ValueError("four_index and upper_right_window must be given together")
        return self


class CalibrationProfile(_Model):
    """Everything calibrated for one camera on one table with one deck."""

    profile_version: Literal[1] = 1
    lens: LensCalibration | None = None
    table: TableCalibration | None = None
    zones: list[Zone] = []
    deck: DeckCalibration | None = None


class DeckTemplates:
    """What reads the deck: its learned index reader, and the glyph templates learned with it.

    `model` is the learned index reader, or None for a deck learned without one. `ranks` and
    `suits` are the template images (float, 0..1, ink = 1; per rank or suit code, one per level)
    as `learn_deck` averaged them, kept in memory only: no profile stores them and nothing
    reads them, so a loaded profile's are empty.
    """

    def __init__(
        self,
        ranks: dict[str, list[npt.NDArray[np.float32]]],
        suits: dict[str, list[npt.NDArray[np.float32]]],
        model: IndexModel | None = None,
    ) -> None:
        self.ranks = ranks
        self.suits = suits
        self.model = model


def load_profile(directory: Path) -> tuple[CalibrationProfile, DeckTemplates | None]:
    """Read a profile directory; return the profile and its deck's reader (None without a deck).

    Raises `ProfileError` when the directory or JSON is missing or invalid, of another version,
    or when the index model it names is missing, unreadable or not the one it describes.
    """
    path = Path(directory) / PROFILE_FILE
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProfileError(
            f"no calibration profile at {directory} (missing {PROFILE_FILE})"
        ) from None
    except (OSError, ValueError) as err:
        raise ProfileError(f"cannot read calibration profile {path}: {err}") from err
    if isinstance(raw, dict) and raw.get("profile_version") not in (None, PROFILE_VERSION):
        raise ProfileError(
            f"profile {path} has version {raw.get('profile_version')!r}; "
            f"this program reads version {PROFILE_VERSION}"
        )
    try:
        profile = CalibrationProfile.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ProfileError(f"invalid calibration profile {path}: {where}: {first['msg']}") from err
    if profile.deck is None:
        return profile, None
    model = _read_model(Path(directory), profile.deck.index_model)
    return profile, DeckTemplates({}, {}, model)


def _read_model(directory: Path, info: IndexModelInfo | None) -> IndexModel | None:
    """The learned index reader named by `info`; None when the deck has none."""
    if info is None or info.model_version != MODEL_VERSION:
        # A model from before the network changed: the recognizer refuses the deck until
        # `studio calibrate deck` trains the current one.
        return None
    path = directory / info.file
    try:
        model = IndexModel(tuple(info.ranks), tuple(info.suits), path.read_bytes())
    except (OSError, ValueError) as err:
        raise ProfileError(f"index model {path} is missing or unreadable: {err}") from err
    if weights_digest(model) != info.sha256:
        raise ProfileError(f"index model {path} does not match its profile (digest differs)")
    return model


def save_profile(
    directory: Path, profile: CalibrationProfile, templates: DeckTemplates | None = None
) -> None:
    """Write `profile.json` (and the learned index reader of `templates`) into `directory`.

    The directory is created. The rank and suit template images are not written (see the module
    docstring). Raises `ProfileError` when the directory cannot be written.
    """
    folder = Path(directory)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        info = profile.deck.index_model if profile.deck is not None else None
        if templates is not None and templates.model is not None and info is not None:
            (folder / info.file).write_bytes(templates.model.onnx)
        tmp = folder / (PROFILE_FILE + ".tmp")
        tmp.write_text(profile.model_dump_json(indent=2) + "\n", encoding="utf-8")
        tmp.replace(folder / PROFILE_FILE)
    except OSError as err:
        raise ProfileError(f"cannot write calibration profile in {folder}: {err}") from err


def load_or_new(directory: Path) -> tuple[CalibrationProfile, DeckTemplates | None]:
    """Load the profile in `directory`, or start an empty one when it has none yet."""
    if not (Path(directory) / PROFILE_FILE).exists():
        return CalibrationProfile(), None
    return load_profile(directory)
