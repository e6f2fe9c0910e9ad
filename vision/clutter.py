"""Finds that are clutter, not tiles: the clutter gate's verdict on a tile and its surroundings.

The classifier sees a tight crop of one face, where a score pad's digit cell,
a keyboard key or a word-game tile looks much like a tile. The clutter gate
(``models/clutter.py``, an optional third network) looks at a square 2.4
times the tile's long side across: whether the grid's lines run on past the
cell, whether the thing has a tile's thickness, a rack's ledge or a set's
neighbours. A find the gate calls
clutter is dropped, unless a find beside it is surely a tile: a tile of a set
the gate doubts is kept for its set's sake, while a grid of cells, every one
doubted, goes as a whole.
"""

from __future__ import annotations

import numpy as np

CLUTTER = 0.1  # a find the gate gives less than this chance of being a tile is clutter...
BACKED = 0.5   # ...unless a find beside it is a tile to the gate at least this surely
BESIDE = 1.3   # "beside": centres closer than this many of the find's long side


def kept_finds(quads: np.ndarray, tile_chance: np.ndarray) -> np.ndarray:
    """Which finds to keep (bool per quad), given the gate's chance that each is a tile."""
    quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    chance = np.asarray(tile_chance, np.float64).reshape(-1)
    doubted = chance < CLUTTER
    if not doubted.any():
        return np.ones(len(quads), bool)
    centres = quads.mean(axis=1)
    sides = np.maximum(np.linalg.norm(quads[:, 1] - quads[:, 0], axis=1),
                       np.linalg.norm(quads[:, 3] - quads[:, 0], axis=1))
    apart = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    np.fill_diagonal(apart, np.inf)
    backed = ((apart < BESIDE * sides[:, None]) & (chance[None, :] >= BACKED)).any(axis=1)
    return ~doubted | backed
