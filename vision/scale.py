"""Finds far smaller than the tiles around them: digits on a score sheet, letter tiles, keys.

Every tile of one box is the same size, and a flat table seen in perspective
shrinks them smoothly with distance: the reciprocal of a tile's size in the
photo is close to an affine function of where it lies.  That function is
fitted to the photo's finds of about the median size (robustly, so a few
strays do not bend it; a patch of small finds left out of the fit cannot pass
itself off as the far end of the table).  A find under :data:`OF_MEDIAN` of
the photo's median tile and also under :data:`OF_FIT` of the size the fit
expects where it lies, among those tiles or within :data:`NEAR` median tiles
of them, is not a tile of this box: a number written on the score sheet, a
letter tile, a key of a keyboard beside the table.  Far tiles of a table in
perspective are as small as the fit says, and are kept; so are small finds
further from the rest, where the fit would only guess (a rack photographed
up close, the table's sets far behind it).

Of the 5,600 labelled tiles of the rendered tuning scenes none was left out,
the nearest lying 4% above the limits; of the 1,374 of the real photos of the
training split, the nearest lay 38% above them.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import TileFrame, tile_frames

OF_FIT = 0.55      # a find under this share of the size the fit expects where it lies ...
OF_MEDIAN = 0.6    # ... and under this share of the photo's median find is not a tile
NEAR = 1.0         # ... where it lies within this many median tiles of the convex hull of the others
FEWEST = 5         # finds a photo needs before sizes are compared at all
ROUNDS = 10        # reweighting rounds of the robust fit


def expected_sizes(frames: TileFrame, fit: np.ndarray | None = None) -> np.ndarray:
    """(N,) the size (longer side) a tile would have at each find's place, fitted on the finds ``fit``
    (a mask; default all).

    Least squares of 1 / size on the centre's position, reweighted each round
    so a find off the fit by more than 1.5 median deviations weighs less the
    further off it lies.
    """
    size = frames.extents.astype(np.float64)
    scale = max(1.0, float(np.abs(frames.centers).max()))
    a = np.c_[frames.centers / scale, np.ones(len(size))]
    y = 1.0 / np.maximum(size, 1e-6)
    use = np.ones(len(size), bool) if fit is None else np.asarray(fit, bool)
    w = np.ones(int(use.sum()))
    for _ in range(ROUNDS):
        coef, *_ = np.linalg.lstsq(a[use] * w[:, None], y[use] * w, rcond=None)
        off = np.abs(y[use] - a[use] @ coef)
        w = 1.0 / np.maximum(1.0, off / (1.5 * np.median(off) + 1e-12))
    return 1.0 / np.maximum(a @ coef, 1e-6)


def out_of_scale(quads: np.ndarray) -> np.ndarray:
    """(N,) bool: the finds too small to be tiles of the box the others are (see the module doc)."""
    quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    n = len(quads)
    if n < FEWEST:
        return np.zeros(n, bool)
    frames = tile_frames(quads)
    size = frames.extents
    median = float(np.median(size))
    small = size < OF_MEDIAN * median
    if not small.any():  # most photos: nothing to fit
        return small
    out = small & (size < OF_FIT * expected_sizes(frames, fit=~small))
    if out.any():
        hull = cv2.convexHull(quads[~small].reshape(-1, 2).astype(np.float32))
        for i in np.flatnonzero(out):
            x, y = frames.centers[i]
            out[i] = cv2.pointPolygonTest(hull, (float(x), float(y)), True) >= -NEAR * median
    return out
