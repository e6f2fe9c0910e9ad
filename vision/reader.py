"""A photo of the table in, tiles and judged sets out: model -> geometry -> rules.

The reader never changes what the model read without saying so: when a set is
invalid and exactly one of its tiles was read with low confidence, the rules
may name the tile that would make it valid (K5 K6 ? K8 -> K7).  That tile is
then marked ``inferred`` and the model's own reading stays available in
:attr:`TableReading.model_detections`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rules.options import RuleOptions
from rules.scoring import rack_value
from rules.sets import SetVerdict, analyse_set, suggest_missing
from rules.tiles import Tile
from vision.geometry import GeometryOptions, group_lines
from vision.types import TileDetections


@dataclass(frozen=True)
class ReaderOptions:
    """Rules to judge sets by, when the rules may suggest a tile, and how sets are found."""

    rules: RuleOptions  # the rules in force: sets are judged and tiles inferred under them
    infer_below: float = 0.4  # a tile read with a lower score may be inferred from its set
    geometry: GeometryOptions = field(default_factory=GeometryOptions)


@dataclass(frozen=True)
class SetReading:
    """One line of tiles on the table: which tiles (indices into the reading) and the verdict.

    ``as_read`` is the verdict on the tiles as the model read them, kept when a
    tile of the set was inferred (the set may be valid only thanks to it).
    """

    indices: list[int]
    verdict: SetVerdict
    as_read: SetVerdict | None = None

    @property
    def valid(self) -> bool:
        return self.verdict.valid

    @property
    def kind(self) -> str | None:
        return self.verdict.kind

    @property
    def value(self) -> int:
        """Points the set is worth on the table; 0 for an invalid set (it counts for nothing)."""
        return int(self.verdict.value) if self.verdict.valid and self.verdict.value is not None else 0

    @property
    def problem(self) -> str | None:
        return self.verdict.problem

    def to_json(self) -> dict:
        return {"tiles": list(self.indices), "valid": self.valid, "kind": self.kind,
                "value": self.value, "problem": self.problem}


@dataclass
class TableReading:
    """Everything read from one photo.

    detections: the tiles in reading order (set by set), codes after inference.
    model_detections: the same tiles as the model read them (no inference).
    sets: every line of tiles; a lone tile is a set of one (invalid, with its problem).
    rack_total: what the tiles would cost left on a rack (``rules.scoring.rack_value``:
        face values, a joker ``joker_penalty``).
    """

    detections: TileDetections
    sets: list[SetReading]
    rack_total: int
    model_detections: TileDetections

    @property
    def tiles(self) -> list[Tile]:
        return self.detections.tiles

    def to_json(self, image: str | None = None) -> dict:
        """The ``read --json`` object for this photo."""
        d = self.detections
        boxes = d.boxes
        tiles = [
            {
                "code": code,
                "box": [round(float(v), 1) for v in boxes[i]],
                "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in d.quads[i]],
                "score": round(float(d.scores[i]), 4),
                "inferred": bool(d.inferred[i]),
            }
            for i, code in enumerate(d.codes)
        ]
        return {"image": image, "tiles": tiles, "sets": [s.to_json() for s in self.sets],
                "rack_total": int(self.rack_total)}


class TableReader:
    """Reads photos of the table with one loaded model (load once, read many)."""

    def __init__(self, model, options: ReaderOptions):
        if not isinstance(options, ReaderOptions):
            raise TypeError(f"TableReader needs ReaderOptions naming the rules in force, not {options!r}")
        self.model = model
        self.options = options

    @classmethod
    def from_model_dir(cls, path: str | Path | None, options: ReaderOptions,
                       **model_options) -> "TableReader":
        """``model_options`` go to :class:`vision.model.TileModel` (threads, second_look, ...)."""
        from vision.model import TileModel  # onnxruntime is loaded only when a model is

        return cls(TileModel.load(path, **model_options), options)

    def read(self, image_bgr: np.ndarray) -> TableReading:
        if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or not image_bgr.size:
            raise ValueError("expected a BGR colour image (H, W, 3)")
        return self.read_detections(self.model.detect(image_bgr))

    def read_detections(self, detections: TileDetections) -> TableReading:
        """Sets, verdicts and inferred tiles for tiles already found (the model's output)."""
        o = self.options
        lines = group_lines(detections.quads, o.geometry)
        order = [i for line in lines for i in line]
        found = detections[np.array(order, dtype=np.int64)] if order else TileDetections.empty()
        read = TileDetections(found.quads.copy(), found.class_ids.copy(), found.scores.copy(), found.inferred.copy())
        sets, start = [], 0
        for line in lines:
            indices = list(range(start, start + len(line)))
            start += len(line)
            sets.append(SetReading(indices, *self._judge(read, indices)))
        total = rack_value(read.tiles, o.rules)
        return TableReading(read, sets, total, found)

    def _judge(self, read: TileDetections, indices: list[int]) -> tuple[SetVerdict, SetVerdict | None]:
        """(the set's verdict, the verdict as read when its one doubtful tile was inferred, else None)."""
        tiles = [Tile.from_index(int(read.class_ids[i])) for i in indices]
        verdict = analyse_set(tiles, self.options.rules)
        if verdict.valid or len(tiles) < 3:
            return verdict, None
        doubtful = [k for k, i in enumerate(indices) if read.scores[i] < self.options.infer_below]
        if len(doubtful) != 1:
            return verdict, None
        k = doubtful[0]
        candidates = suggest_missing(tiles[:k] + [None] + tiles[k + 1:], self.options.rules)
        guess = _likely(tiles[k], candidates, lambda t: analyse_set(tiles[:k] + [t] + tiles[k + 1:], self.options.rules))
        if guess is None:
            return verdict, None
        read.class_ids[indices[k]] = guess.index
        read.inferred[indices[k]] = True
        tiles[k] = guess
        return analyse_set(tiles, self.options.rules), verdict


def _likely(as_read: Tile, candidates: list[Tile], judge) -> Tile | None:
    """The one candidate closest to what the model read, or None when no single one stands out.

    A candidate sharing the read tile's colour or number wins over one sharing
    neither; then one that keeps the set in the order it lies (10 11 ? -> 12,
    not 9); then a numbered tile over a joker (jokers are rare).
    """
    if not candidates:
        return None

    def closeness(t: Tile) -> tuple[int, int, int]:
        shared = (not t.is_joker and not as_read.is_joker
                  and (t.color == as_read.color) + (t.number == as_read.number))
        in_order = any(rank < 2 for rank in judge(t).ranks)  # 2: not as laid
        return (int(shared), int(in_order), 0 if t.is_joker else 1)

    ranked = sorted(candidates, key=closeness, reverse=True)
    if len(ranked) > 1 and closeness(ranked[0]) == closeness(ranked[1]):
        return None
    return ranked[0]


__all__ = ["ReaderOptions", "SetReading", "TableReading", "TableReader"]
