"""Sets and rack rows the photo's edge cuts off: the camera cannot see where they end.

A line of tiles that runs into the edge of the photo may go on past it, and a
tile lying there shows part of its face or none and is not read.  A set seen
as O9 O10 with O11 beyond the edge is invalid as seen, yet nothing on the
table is wrong: the reader shows it *unsure* ("runs past the photo's edge"),
never invalid, when a tile in the next place along the line would make it a
valid set as laid.  A set that is wrong inside the photo (K5 R6 K7) stays invalid.
An end tile itself lying across the edge shows part of its face and may be
misread (K8 R8 and half an O8 read as O10): the set is unsure too when some
tile in its place would make it valid.
A rack row has no verdict, but its total can be cut short the same way: a row
that may go on past the edge is marked, and the reader warns that the rack
total may leave out tiles there.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from rules.options import RuleOptions
from rules.sets import analyse_set, suggest_missing
from rules.tiles import Tile
from vision.context import valid_as_laid
from vision.geometry import scaled_about_centres

SHOWN = 0.7  # a tile with less of its face inside the photo than this may go unread (the networks learned whole tiles)
EDGE_ROOM = 0.3  # a rack row's end tile nearer the photo's edge than this many of its widths: no telling what lies past it
EDGE_BAND = 0.1  # ...else the colour of this many widths at the edge is compared with the table's
SAME_COLOUR = 30.0  # Lab distance within which two colours are the same surface
CLEAR = 0.4  # the table's colour is measured where at least this share of a patch is clear of tiles


def runs_past_edge(tiles: list[Tile], quads: np.ndarray, shape: Sequence[int], rules: RuleOptions) -> bool:
    """``tiles``, a line in the order they lie (``quads`` in the pixels of a photo of ``shape``),
    invalid as seen, may be a valid set the photo's edge cuts: a tile in the next place along the
    line, lying less than SHOWN inside the photo, or read otherwise in the place of an end tile
    itself less than SHOWN inside, would make it a valid set as laid.  A lone tile needs two tiles
    out of sight, and any tile makes a set with two (a group of its number): only one that reaches
    the edge itself (its outline, drawn where it shows, may cover most of it) may be cut off so;
    a tile lying clear of the edge would show its neighbour there, at least in part."""
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    if not len(q):
        return False
    frame = _frame(shape)
    if len(q) == 1:
        return _reaches_edge(q[0], shape)
    step = (q[-1].mean(axis=0) - q[0].mean(axis=0)) / (len(q) - 1)  # the line's mean spacing, gaps included
    before, after = _cut(q[0] - step, frame), _cut(q[-1] + step, frame)
    if not (before or after):  # an end tile the edge cuts leaves the place past it out of sight too
        return False
    # an end tile the edge cuts is outlined only where it shows, its outline mostly inside the
    # photo: it is measured whole too, one spacing on from its neighbour
    first_cut = _cut(q[0], frame) or _cut(q[1] - step, frame)
    last_cut = _cut(q[-1], frame) or _cut(q[-2] + step, frame)
    trials = ([None, *tiles] if before else None, [*tiles, None] if after else None,
              [None, *tiles[1:]] if first_cut else None, [*tiles[:-1], None] if last_cut else None)
    return any(_mended(trial, rules) for trial in trials if trial is not None)


def row_past_edge(quads: np.ndarray, image: np.ndarray, tiles: np.ndarray | None = None) -> bool:
    """A row of tiles in the order they lie (a rack row) that may go on out of sight: its end tile
    the photo's edge cuts, or its next place along the row, one end tile's extent on, lies less
    than SHOWN inside the photo and the photo's edge there does not show the table (a rack seen
    to end before the edge holds nothing past it).  ``tiles``: every tile found in the photo
    (default the row's), left out where the table's colour is measured."""
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    if not len(q):
        return False
    line = q[-1].mean(axis=0) - q[0].mean(axis=0) if len(q) > 1 else q[0][1] - q[0][0]
    unit = line / max(float(np.linalg.norm(line)), 1e-6)
    frame = _frame(image.shape)
    others = q if tiles is None else np.asarray(tiles, np.float32).reshape(-1, 4, 2)
    for end, sign in ((q[0], -1.0), (q[-1], 1.0)):
        along = end @ unit
        extent = float(along.max() - along.min())
        if _cut(end, frame):
            return True
        if _cut(end + sign * extent * unit, frame) and _rack_goes_on(end, sign * unit, extent, image, others):
            return True
    return False


def _rack_goes_on(end: np.ndarray, out: np.ndarray, extent: float, image: np.ndarray, tiles: np.ndarray) -> bool:
    """Beyond the ``end`` tile (direction ``out``), the photo's edge does not show the table: the
    rack's board, or more tiles, go on to the edge.  The table is the lighter of what lies clear
    of tiles above and below the row (racks are darker than the table, ``vision.racks``; the
    other side of a row may be its rack's board).  True as well when the edge lies too close to
    the tile to tell, or no table is seen."""
    h, w = image.shape[:2]
    across = np.array([-out[1], out[0]], np.float32)
    base, side = float((end @ out).max()), end @ across
    mid, tall = float(side.mean()), float(side.max() - side.min())
    c = end.mean(axis=0)
    # the photo's edge along the row from the tile's centre, past the tile's outer side
    reach = min(((w if out[0] > 0 else 0) - c[0]) / out[0] if abs(out[0]) > 1e-6 else np.inf,
                ((h if out[1] > 0 else 0) - c[1]) / out[1] if abs(out[1]) > 1e-6 else np.inf)
    room = float(c @ out) + reach - base
    if room < EDGE_ROOM * extent:
        return True
    edge = _median_lab(image, _strip(out, across, base + room - EDGE_BAND * extent, base + room,
                                     mid - 0.3 * tall, mid + 0.3 * tall))
    beyond = [_median_lab(image, _strip(out, across, base - extent, base, mid + lo * tall, mid + hi * tall), tiles)
              for lo, hi in ((1.3, 2.2), (-2.2, -1.3))]
    beyond = [b for b in beyond if b is not None]
    if edge is None or not beyond:
        return True
    table = max(beyond, key=lambda lab: float(lab[0]))
    return float(np.linalg.norm(edge - table)) >= SAME_COLOUR


def _strip(out: np.ndarray, across: np.ndarray, a: float, b: float, lo: float, hi: float) -> np.ndarray:
    """The quad from a to b along ``out`` and lo to hi across it."""
    return np.array([out * a + across * lo, out * b + across * lo,
                     out * b + across * hi, out * a + across * hi], np.float32)


def _median_lab(image: np.ndarray, quad: np.ndarray, tiles: np.ndarray | None = None) -> np.ndarray | None:
    """Median Lab colour of the photo inside ``quad``, ``tiles`` (quads, grown a little) left out;
    None when less than CLEAR of the quad's pixels in the photo remain."""
    h, w = image.shape[:2]
    x0, y0 = np.clip(np.floor(quad.min(axis=0)).astype(int), 0, (w, h))
    x1, y1 = np.clip(np.ceil(quad.max(axis=0)).astype(int) + 1, 0, (w, h))
    if x1 <= x0 or y1 <= y0:
        return None
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round(quad - (x0, y0)).astype(np.int32)], 1)
    inside = int(mask.sum())
    if tiles is not None and len(tiles):
        grown = scaled_about_centres(tiles, 1.2)
        cv2.fillPoly(mask, list(np.round(grown - (x0, y0)).astype(np.int32)), 0)
    if not inside or mask.sum() < CLEAR * inside:
        return None
    lab = cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_BGR2LAB).astype(np.float32)
    return np.median(lab[mask > 0], axis=0)


def _frame(shape: Sequence[int]) -> np.ndarray:
    h, w = int(shape[0]), int(shape[1])
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


def _cut(quad: np.ndarray, frame: np.ndarray) -> bool:
    """The quad lies less than SHOWN inside the photo's ``frame``."""
    area = abs(cv2.contourArea(quad))
    if area <= 0:
        return False
    inside, _ = cv2.intersectConvexConvex(cv2.convexHull(quad), frame)
    return inside < SHOWN * area


def _reaches_edge(quad: np.ndarray, shape: Sequence[int]) -> bool:
    """A corner of ``quad`` lies on or past the photo's edge, or nearer it than a tenth of its width (first side)."""
    h, w = int(shape[0]), int(shape[1])
    margin = 0.1 * float(np.linalg.norm(quad[1] - quad[0]))
    lo, hi = quad.min(axis=0), quad.max(axis=0)
    return bool(lo[0] <= margin or lo[1] <= margin or hi[0] >= w - margin or hi[1] >= h - margin)


def _mended(trial: list[Tile | None], rules: RuleOptions) -> bool:
    """Some tile in the one unknown place (None) makes ``trial`` a valid set as laid."""
    k = trial.index(None)
    return any(valid_as_laid(analyse_set(trial[:k] + [face] + trial[k + 1:], rules))
               for face in suggest_missing(trial, rules))


__all__ = ["SHOWN", "row_past_edge", "runs_past_edge"]
