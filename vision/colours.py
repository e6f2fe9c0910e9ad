"""Can the photo's colours be trusted? Grey-scale, very dark or heavily tinted photos are flagged.

The tile model reads a numeral's colour from the pixels; in a black-and-white
photo every numeral looks black, in a very dark one colours drown in noise,
under a strong colour cast orange and red (or blue and black) run together.
The reading is still given, with a warning that its colours are not to be
trusted, rather than confident wrong colours.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import scaled_about_centres

MIN_CHROMA = 12.0  # the most colourful pixels of a colour photo of tiles reach far beyond this (Lab units)
MIN_BRIGHTNESS = 45.0  # median brightness (0-255) of the tile faces below which colours drown in noise
MAX_CAST = 45.0  # how far from neutral (Lab a/b units) the ivory tile faces may be tinted (warm lamps reach 36)


def colour_warnings(image: np.ndarray, quads: np.ndarray | None = None) -> list[str]:
    """Plain-words warnings about the photo's colours; empty when they can be trusted.

    ``quads`` (the tiles found) point at the tile faces, whose ivory is the
    photo's own white reference; without tiles the whole photo is used.
    """
    small = _thumbnail(image)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    a, b = lab[..., 1] - 128, lab[..., 2] - 128
    chroma = np.hypot(a, b)
    faces = _face_mask(small.shape[:2], quads, image.shape[:2]) if quads is not None and len(quads) else None
    where = faces if faces is not None and faces.sum() > 50 else np.ones(small.shape[:2], bool)
    warnings = []
    if np.percentile(chroma, 99.5) < MIN_CHROMA:
        warnings.append("the photo has almost no colour (grey-scale?): tile colours cannot be told apart")
    brightness = float(np.median(lab[..., 0][where]))  # OpenCV's 8-bit Lab: L in 0-255
    if brightness < MIN_BRIGHTNESS:
        warnings.append("the photo is very dark: tile colours may be misread")
    if faces is not None and faces.sum() > 50:
        bright = where & (lab[..., 0] >= np.percentile(lab[..., 0][where], 50))
        cast = float(np.hypot(np.median(a[bright]), np.median(b[bright])))
        if cast > MAX_CAST and brightness >= MIN_BRIGHTNESS:
            warnings.append("the photo has a strong colour cast: tile colours may be misread")
    return warnings


def _thumbnail(image: np.ndarray, side: int = 160) -> np.ndarray:
    """Every k-th pixel (medians and percentiles need no smoothing; this costs nothing)."""
    step = max(1, max(image.shape[:2]) // side)
    return image[::step, ::step]


def _face_mask(shape: tuple[int, int], quads: np.ndarray, full: tuple[int, int]) -> np.ndarray:
    """Pixels of the thumbnail inside the tile faces (shrunk a little, away from the edges)."""
    scale = shape[0] / full[0]
    mask = np.zeros(shape, np.uint8)
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2) * scale
    cv2.fillPoly(mask, np.round(scaled_about_centres(q, 0.8)).astype(np.int32), 1)
    return mask.astype(bool)


__all__ = ["colour_warnings"]
