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


def open_ends(quads: np.ndarray, shape: Sequence[int]) -> tuple[bool, bool]:
    """(before the first tile, after the last): for a line of at least two tiles in the order they
    lie (quads in the photo's pixels), would a tile in the next place along the line lie partly
    out of the photo, less than SHOWN of it inside?"""
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    if len(q) < 2:
        return False, False
    centers = q.mean(axis=1)
    step = (centers[-1] - centers[0]) / (len(q) - 1)  # the line's mean spacing, gaps included
    frame = _frame(shape)
    return _cut(q[0] - step, frame), _cut(q[-1] + step, frame)


def cut_ends(quads: np.ndarray, shape: Sequence[int]) -> tuple[bool, bool]:
    """(the first tile, the last): is it itself less than SHOWN inside the photo (half seen)?"""
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    frame = _frame(shape)
    return _cut(q[0], frame), _cut(q[-1], frame)


def _frame(shape: Sequence[int]) -> np.ndarray:
    h, w = int(shape[0]), int(shape[1])
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)


def _cut(quad: np.ndarray, frame: np.ndarray) -> bool:
    area = abs(cv2.contourArea(quad))
    if area <= 0:
        return False
    inside, _ = cv2.intersectConvexConvex(cv2.convexHull(quad), frame)
    return inside < SHOWN * area


def goes_on_past_edge(tiles: list[Tile], ends: tuple[bool, bool], rules: RuleOptions,
                      cut: tuple[bool, bool] = (False, False)) -> bool:
    """A tile laid in an open end's place (``open_ends``), or read otherwise in the place of an end
    tile the edge cuts (``cut_ends``), would make ``tiles`` a valid set as laid."""
    trials = ([None, *tiles] if ends[0] else None, [*tiles, None] if ends[1] else None,
              [None, *tiles[1:]] if cut[0] else None, [*tiles[:-1], None] if cut[1] else None)
    for trial in trials:
        if trial is None:
            continue
        k = trial.index(None)
        for face in suggest_missing(trial, rules):
            if valid_as_laid(analyse_set(trial[:k] + [face] + trial[k + 1:], rules)):
                return True
    return False


__all__ = ["SHOWN", "open_ends", "cut_ends", "goes_on_past_edge"]
