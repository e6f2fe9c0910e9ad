"""How well the reader does on labelled photos: detection, reading, whole photos, time.

A found tile matches a labelled one when their outlines overlap with IoU of
at least 0.5 (polygon IoU of the quads); each label matches at most one tile,
best overlaps first.  Scores are taken on what the reader outputs (so a tile
inferred from its set counts as read the way it was output).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from rules.tiles import JOKER_INDEX, Tile
from vision.datasets import LabelledImage

NONE = JOKER_INDEX + 1  # row/column of the confusion matrix for "no tile" (extra or missed)


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads (4, 2)."""
    a = np.asarray(a, dtype=np.float32).reshape(4, 2)
    b = np.asarray(b, dtype=np.float32).reshape(4, 2)
    area_a, area_b = abs(cv2.contourArea(a)), abs(cv2.contourArea(b))
    if area_a <= 0 or area_b <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(cv2.convexHull(a), cv2.convexHull(b))
    inter = max(float(inter), 0.0)
    return inter / (area_a + area_b - inter)


def match_tiles(pred: np.ndarray, truth: np.ndarray, threshold: float = 0.5) -> list[tuple[int, int]]:
    """(pred index, truth index) pairs, greedy by IoU, each at least ``threshold``."""
    pred = np.asarray(pred, dtype=np.float32).reshape(-1, 4, 2)
    truth = np.asarray(truth, dtype=np.float32).reshape(-1, 4, 2)
    if not len(pred) or not len(truth):
        return []
    pb = np.concatenate([pred.min(1), pred.max(1)], 1)
    tb = np.concatenate([truth.min(1), truth.max(1)], 1)
    overlap = ((np.minimum(pb[:, None, 2], tb[None, :, 2]) > np.maximum(pb[:, None, 0], tb[None, :, 0]))
               & (np.minimum(pb[:, None, 3], tb[None, :, 3]) > np.maximum(pb[:, None, 1], tb[None, :, 1])))
    pairs = []
    for i, j in zip(*np.nonzero(overlap)):
        iou = quad_iou(pred[i], truth[j])
        if iou >= threshold:
            pairs.append((iou, int(i), int(j)))
    pairs.sort(reverse=True)
    used_p, used_t, out = set(), set(), []
    for _, i, j in pairs:
        if i not in used_p and j not in used_t:
            used_p.add(i)
            used_t.add(j)
            out.append((i, j))
    return out


@dataclass
class PhotoScore:
    """One photo: counts and time."""

    image: str
    truth: int
    found: int
    matched: int
    read_right: int
    ms: float
    pairs: list[tuple[int, int]] = field(default_factory=list)  # (true class, read class) for matched tiles
    missed: list[int] = field(default_factory=list)  # true classes of labels nothing matched
    extra: list[int] = field(default_factory=list)  # read classes of tiles matching no label

    @property
    def exact(self) -> bool:
        return self.read_right == self.truth == self.found


def _ratio(a: float, b: float) -> float:
    return a / b if b else 1.0


@dataclass
class Evaluation:
    """Scores over a list of photos."""

    photos: list[PhotoScore]
    iou: float = 0.5

    def _sum(self, name: str) -> int:
        return sum(getattr(p, name) for p in self.photos)

    @property
    def precision(self) -> float:
        return _ratio(self._sum("matched"), self._sum("found"))

    @property
    def recall(self) -> float:
        return _ratio(self._sum("matched"), self._sum("truth"))

    @property
    def accuracy(self) -> float:
        """Tiles read right among the tiles found that match a label."""
        return _ratio(self._sum("read_right"), self._sum("matched"))

    @property
    def f1(self) -> float:
        """End to end: a tile counts when it is found and read right."""
        return _ratio(2 * self._sum("read_right"), self._sum("found") + self._sum("truth"))

    @property
    def exact(self) -> int:
        return sum(p.exact for p in self.photos)

    @property
    def ms_median(self) -> float:
        return float(np.median([p.ms for p in self.photos])) if self.photos else 0.0

    @property
    def ms_mean(self) -> float:
        return float(np.mean([p.ms for p in self.photos])) if self.photos else 0.0

    def confusion(self) -> np.ndarray:
        """(54, 54) counts: rows the true tile, columns what was read; index 53 is 'no tile'
        (row 53: tiles found where there is none; column 53: labelled tiles missed)."""
        m = np.zeros((NONE + 1, NONE + 1), dtype=np.int64)
        for p in self.photos:
            for t, r in p.pairs:
                m[t, r] += 1
            for t in p.missed:
                m[t, NONE] += 1
            for r in p.extra:
                m[NONE, r] += 1
        return m

    def mistakes(self, top: int = 10) -> list[tuple[str, str, int]]:
        """The most frequent misreadings (true code, read code, count)."""
        m = self.confusion()
        np.fill_diagonal(m, 0)
        names = [Tile.from_index(i).code for i in range(NONE)] + ["-"]
        idx = np.argsort(m, axis=None)[::-1][:top]
        return [(names[i // m.shape[1]], names[i % m.shape[1]], int(m.flat[i])) for i in idx if m.flat[i]]

    def to_dict(self) -> dict:
        return {
            "photos": len(self.photos),
            "tiles": self._sum("truth"),
            "found": self._sum("found"),
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "accuracy": round(self.accuracy, 4),
            "f1": round(self.f1, 4),
            "exact_photos": self.exact,
            "ms_per_photo": round(self.ms_median, 1),
            "ms_mean": round(self.ms_mean, 1),
            "iou": self.iou,
        }


def score_photo(reader, item: LabelledImage, iou: float = 0.5) -> PhotoScore:
    """Read one labelled photo and count what was found and read right."""
    image = item.load()
    start = time.perf_counter()
    reading = reader.read(image)
    ms = (time.perf_counter() - start) * 1000
    d = reading.detections
    pairs = match_tiles(d.quads, item.quads, iou)
    matched_p = {i for i, _ in pairs}
    matched_t = {j for _, j in pairs}
    classes = [(int(item.class_ids[j]), int(d.class_ids[i])) for i, j in pairs]
    return PhotoScore(
        image=str(item.image_path),
        truth=len(item.quads),
        found=len(d),
        matched=len(pairs),
        read_right=sum(t == r for t, r in classes),
        ms=ms,
        pairs=classes,
        missed=[int(item.class_ids[j]) for j in range(len(item.quads)) if j not in matched_t],
        extra=[int(d.class_ids[i]) for i in range(len(d)) if i not in matched_p],
    )


def evaluate(reader, items: list[LabelledImage], iou: float = 0.5, progress=None) -> Evaluation:
    """Score ``reader`` (anything with ``read(image) -> TableReading``) on labelled photos."""
    photos = []
    for k, item in enumerate(items):
        photos.append(score_photo(reader, item, iou))
        if progress:
            progress(k + 1, len(items))
    return Evaluation(photos, iou)


def format_table(rows: list[tuple[str, Evaluation]]) -> str:
    """A plain text table, one row per folder (and a total when there are several)."""
    head = f"{'folder':<32} {'photos':>6} {'tiles':>6} {'prec':>6} {'recall':>6} {'acc':>6} {'F1':>6} {'exact':>9} {'ms':>7}"
    lines = [head, "-" * len(head)]
    for name, e in rows:
        name = name if len(name) <= 32 else "..." + name[-29:]
        lines.append(
            f"{name:<32} {len(e.photos):>6} {e._sum('truth'):>6} {e.precision:>6.3f} {e.recall:>6.3f} "
            f"{e.accuracy:>6.3f} {e.f1:>6.3f} {f'{e.exact}/{len(e.photos)}':>9} {e.ms_median:>7.1f}"
        )
    return "\n".join(lines)


__all__ = ["quad_iou", "match_tiles", "PhotoScore", "Evaluation", "score_photo", "evaluate", "format_table"]
