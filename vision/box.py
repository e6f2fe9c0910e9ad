"""Finds the box cannot hold: printed numbers beside the table read as tiles.

A score sheet, a printed number chart or a keyboard next to the tiles can
read as a patch of touching tiles of one colour. A box holds two of each tile
(three in the XP set); players lay sets of different tiles, so a patch of
touching finds of one colour that reads tiles more often than the box holds
them, two copies too many or more, is printed matter, not tiles. Nothing in
a real game lays tiles that way. A photo whose colours cannot be trusted
(grey-scale: every 7 of a group reads K7) is left alone by the reader.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from rules.tiles import TileSet
from vision.geometry import Components, tile_frames
from vision.types import TileDetections

TOUCH = 1.2  # finds whose centres lie within this many times their mean extent touch (the next cell)
SURPLUS = 2  # copies beyond the box in one patch that mark it as printed matter
PATCH = 6  # finds at least in such a patch: a chart or a sheet shows rows of numbers, a set at most 4 of one
ONE_COLOUR = 0.9  # share of a patch's numbered finds in its commonest colour: printed in one ink


def printed_matter(detections: TileDetections, box: TileSet) -> tuple[np.ndarray, list[str]]:
    """(which finds to keep, a warning per patch left out) for the finds of one photo."""
    n = len(detections)
    keep = np.ones(n, bool)
    if n < PATCH:
        return keep, []
    f = tile_frames(detections.quads)
    extent = f.extents
    touching = f.distances() <= TOUCH * (extent[:, None] + extent[None, :]) / 2
    patches = Components(n)
    for i, j in zip(*np.nonzero(np.triu(touching, 1))):
        patches.join(int(i), int(j))
    tiles = detections.tiles
    warnings = []
    for patch in patches.groups():
        if len(patch) < PATCH:
            continue
        read = [tiles[i] for i in patch]
        excess = box.excess(read)
        if sum(count - box.count(t) for t, count in excess.items()) < SURPLUS:
            continue
        colours = Counter(t.color for t in read if not t.is_joker)
        if not colours or max(colours.values()) < ONE_COLOUR * sum(colours.values()):
            continue
        keep[patch] = False
        warnings.append(f"{len(patch)} finds that read {box.describe_excess(excess)}, "
                        "so they are printed numbers, not tiles: left out")
    return keep, warnings


__all__ = ["printed_matter"]
