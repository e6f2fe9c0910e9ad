"""Sets the photo's edge cuts off: the camera cannot see where they end.

A line of tiles that runs into the edge of the photo may go on past it, and a
tile lying there shows part of its face or none and is not read.  A set seen
as O9 O10 with O11 beyond the edge is invalid as seen, yet nothing on the
table is wrong: the reader shows it *unsure* ("runs past the photo's edge"),
never invalid, when a tile in the next place along the line would make it a
valid set as laid.  A set that is wrong inside the photo (K5 R6 K7) stays invalid.
An end tile itself lying across the edge shows part of its face and may be
misread (K8 R8 and half an O8 read as O10): the set is unsure too when some
tile in its place would make it valid.
"""

from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from rules.options import RuleOptions
from rules.sets import analyse_set, suggest_missing
from rules.tiles import Tile
from vision.context import valid_as_laid

SHOWN = 0.7  # a tile with less of its face inside the photo than this may go unread (the networks learned whole tiles)


def runs_past_edge(tiles: list[Tile], quads: np.ndarray, shape: Sequence[int], rules: RuleOptions) -> bool:
    """``tiles``, a line of at least two in the order they lie (``quads`` in the pixels of a photo
    of ``shape``), invalid as seen, may be a valid set the photo's edge cuts: a tile in the next
    place along the line, lying less than SHOWN inside the photo, or read otherwise in the place
    of an end tile itself less than SHOWN inside, would make it a valid set as laid."""
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    if len(q) < 2:
        return False
    step = (q[-1].mean(axis=0) - q[0].mean(axis=0)) / (len(q) - 1)  # the line's mean spacing, gaps included
    h, w = int(shape[0]), int(shape[1])
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    before, after = _cut(q[0] - step, frame), _cut(q[-1] + step, frame)
    if not (before or after):  # an end tile the edge cuts leaves the place past it out of sight too
        return False
    trials = ([None, *tiles] if before else None, [*tiles, None] if after else None,
              [None, *tiles[1:]] if _cut(q[0], frame) else None, [*tiles[:-1], None] if _cut(q[-1], frame) else None)
    return any(_mended(trial, rules) for trial in trials if trial is not None)


def _cut(quad: np.ndarray, frame: np.ndarray) -> bool:
    """The quad lies less than SHOWN inside the photo's ``frame``."""
    area = abs(cv2.contourArea(quad))
    if area <= 0:
        return False
    inside, _ = cv2.intersectConvexConvex(cv2.convexHull(quad), frame)
    return inside < SHOWN * area


def _mended(trial: list[Tile | None], rules: RuleOptions) -> bool:
    """Some tile in the one unknown place (None) makes ``trial`` a valid set as laid."""
    k = trial.index(None)
    return any(valid_as_laid(analyse_set(trial[:k] + [face] + trial[k + 1:], rules))
               for face in suggest_missing(trial, rules))


__all__ = ["SHOWN", "runs_past_edge"]
