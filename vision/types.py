"""The one result type for tiles found in a picture.

Shapes are checked when one is made, so geometry, the reader and the web page
never see raw model tensors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rules.tiles import ALL_FACES, Tile

TILE_CODES = len(ALL_FACES)  # 53: the columns of TileDetections.probs


@dataclass
class TileDetections:
    """N face-up tiles found in one image.

    quads: (N, 4, 2) float32 pixel corners of each tile face in reading order:
        top-left, top-right, bottom-right, bottom-left of the *upright* tile
        (the numeral's top is along the first edge), whatever the rotation.
    class_ids: (N,) int: the tile index 0-52 (``Tile.from_index``).
    scores: (N,) float32 in [0, 1]: confidence of the whole reading
        (found and read right).
    inferred: (N,) bool: the code was suggested by the rules, not read.
    probs: (N, 53) float32: how likely each tile code is for each tile, as the
        classifier weighed them, so the rules can weigh a tile's other readings
        against its set; without them (made by hand, voted over frames) each
        row is sure of its own code and nothing else.
    """

    quads: np.ndarray
    class_ids: np.ndarray
    scores: np.ndarray
    inferred: np.ndarray = field(default=None)  # type: ignore[assignment]
    probs: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        self.quads = np.asarray(self.quads, dtype=np.float32).reshape(-1, 4, 2)
        n = len(self.quads)
        self.class_ids = np.asarray(self.class_ids, dtype=np.int64).reshape(-1)
        self.scores = np.asarray(self.scores, dtype=np.float32).reshape(-1)
        if self.inferred is None:
            self.inferred = np.zeros(n, dtype=bool)
        self.inferred = np.asarray(self.inferred, dtype=bool).reshape(-1)
        for name in ("class_ids", "scores", "inferred"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"TileDetections.{name} has {len(getattr(self, name))} rows, quads has {n}")
        if self.probs is None:
            self.probs = np.zeros((n, TILE_CODES), np.float32)
            self.probs[np.arange(n), self.class_ids] = 1.0
        self.probs = np.asarray(self.probs, dtype=np.float32)
        if self.probs.shape != (n, TILE_CODES):
            raise ValueError(f"TileDetections.probs has shape {self.probs.shape}, not ({n}, {TILE_CODES})")

    @classmethod
    def empty(cls) -> "TileDetections":
        return cls(np.zeros((0, 4, 2)), np.zeros(0), np.zeros(0))

    @classmethod
    def concat(cls, parts: "list[TileDetections]") -> "TileDetections":
        """The tiles of every part, in order."""
        if not parts:
            return cls.empty()
        return cls(*(np.concatenate([getattr(p, name) for p in parts])
                     for name in ("quads", "class_ids", "scores", "inferred", "probs")))

    def __len__(self) -> int:
        return len(self.quads)

    def __getitem__(self, index) -> "TileDetections":
        """Select rows with an index array, a slice or a boolean mask."""
        if isinstance(index, (int, np.integer)):
            index = [index]
        return TileDetections(
            self.quads[index], self.class_ids[index], self.scores[index], self.inferred[index], self.probs[index]
        )

    @property
    def tiles(self) -> list[Tile]:
        return [Tile.from_index(int(c)) for c in self.class_ids]

    @property
    def codes(self) -> list[str]:
        return [t.code for t in self.tiles]

    @property
    def boxes(self) -> np.ndarray:
        """(N, 4) axis-aligned x0, y0, x1, y1."""
        if not len(self):
            return np.zeros((0, 4), dtype=np.float32)
        return np.concatenate([self.quads.min(axis=1), self.quads.max(axis=1)], axis=1)

    @property
    def centers(self) -> np.ndarray:
        return self.quads.mean(axis=1)
