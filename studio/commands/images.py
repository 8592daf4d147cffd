"""Reading the still images the camera commands are given (`recognize`, `calibrate`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy.typing as npt

from studio.errors import InputError


def read_image(path: Path, flags: int = cv2.IMREAD_COLOR) -> npt.NDArray[Any]:
    """The image at `path` as OpenCV reads it with `flags`.

    Raises `InputError` naming the file when it is missing or not an image OpenCV decodes. The
    missing file is checked first because OpenCV would also print its own warning to stderr.
    """
    if not path.is_file():
        raise InputError(f"cannot read image {path}: no such file")
    image = cv2.imread(str(path), flags)
    if image is None:
        raise InputError(f"cannot read image {path}: not an image OpenCV can decode")
    result: npt.NDArray[Any] = image
    return result
