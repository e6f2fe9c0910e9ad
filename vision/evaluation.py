"""How well the reader does on labelled photos: detection, reading, whole photos, time.

A found tile matches a labelled one when their outlines overlap with IoU of
at least 0.5 (polygon IoU of the quads); each label matches at most one tile,
best overlaps first.  Scores are taken on what the reader outputs (so a tile
inferred from its set counts as read the way it was output).

On photos with set labels (``vision.datasets`` sets files) the groups are
scored as players see them, through the tile matching:

- a labelled set is *read exactly* when one table set of the reading holds
  exactly its tiles;
- a *false alarm* is a valid labelled set not shown valid: split, merged into
  an invalid line, judged invalid (an *unsure* set, its verdict hanging on a
  doubtful tile or the set running past the photo's edge, is counted apart,
  not as a false alarm);
- a *miss* is an invalid labelled set shown valid (one shown unsure is
  counted apart too);
- a set with a tile the reader missed is judged by the one group holding
  all its tiles that were found (what the player sees of it), and is never
  read exactly;
- a rack row is read exactly when one rack row holds its tiles in its order,
  and a photo's *rack total* is right when the reading's total of the tiles on
  racks equals the labelled one; a total that came with the warning that a rack
  row runs past the photo's edge is counted apart as well (*warned*), right or wrong;
- a loose tile is right when it is read as a group of its own;
- a *phantom* is a table set of two or more finds shown invalid where no
  labelled tile lies (a score sheet's numbers, letter tiles, a keyboard): a
  flag the players see with nothing behind it.  On rendered photos a tile
  left unlabelled (cut by the frame, mostly covered) counts as nothing too.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from rules.options import RuleOptions
from rules.scoring import rack_value
from rules.sets import analyse_set
from rules.tiles import JOKER_INDEX, Tile
from vision.datasets import LabelledImage
from vision.images import ImageError

log = logging.getLogger(__name__)

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


SET_FIELDS = ("sets", "sets_exact", "valid_sets", "false_alarms", "unsure", "invalid_sets", "misses", "invalid_unsure",
              "rack_rows", "rack_rows_exact", "rack_photos", "rack_totals_right", "rack_totals_warned",
              "rack_totals_warned_right", "loose", "loose_right", "phantoms")


@dataclass
class SetCounts:
    """Set-level counts on one photo (or summed over many): see the module doc."""

    sets: int = 0
    sets_exact: int = 0
    valid_sets: int = 0
    false_alarms: int = 0
    unsure: int = 0
    invalid_sets: int = 0
    misses: int = 0
    invalid_unsure: int = 0  # invalid sets shown unsure (not flagged invalid, not passed as valid)
    rack_rows: int = 0
    rack_rows_exact: int = 0
    rack_photos: int = 0
    rack_totals_right: int = 0
    rack_totals_warned: int = 0  # rack totals shown with "a rack row runs past the photo's edge"
    rack_totals_warned_right: int = 0  # ... that were right all the same
    loose: int = 0
    loose_right: int = 0
    phantoms: int = 0  # table sets shown invalid made only of finds where no tile is labelled
    problems: list[str] = field(default_factory=list)  # what went wrong, in words, for the report

    def __add__(self, other: "SetCounts") -> "SetCounts":
        out = SetCounts(**{f: getattr(self, f) + getattr(other, f) for f in SET_FIELDS})
        out.problems = self.problems + other.problems
        return out


def score_groups(reading, item: LabelledImage, pairs: list[tuple[int, int]], rules: RuleOptions) -> SetCounts:
    """Set-level counts of a reading against the photo's set labels (empty counts without labels),
    the labelled sets judged under ``rules``."""
    c = SetCounts()
    if item.groups is None:
        return c
    pred_of = {j: i for i, j in pairs}
    group_of, position = {}, {}
    for k, s in enumerate(reading.sets):
        for pos, i in enumerate(s.indices):
            group_of[i], position[i] = k, pos
    codes = reading.detections.codes
    name = item.image_path.name

    def seen_group(tiles) -> int | None:
        """The reading's group holding every one of these labelled tiles that was found, or None
        (none found, or split): what the player sees of a set, a missed tile aside."""
        ks = {group_of.get(pred_of[t]) for t in tiles if t in pred_of}
        return ks.pop() if len(ks) == 1 and None not in ks else None

    def one_group(tiles) -> int | None:
        """The reading's group holding all these labelled tiles, or None (missed or split)."""
        return seen_group(tiles) if all(t in pred_of for t in tiles) else None

    truth_rack = 0
    for g in item.groups:
        tiles = list(g.tiles)
        k = one_group(tiles)
        found = reading.sets[k] if k is not None else None
        if g.kind == "rack":
            c.rack_rows += 1
            truth_rack += rack_value([Tile.from_index(int(item.class_ids[t])) for t in tiles], rules)
            exact = (found is not None and found.group == "rack" and len(found.indices) == len(tiles)
                     and [position[pred_of[t]] for t in tiles] == list(range(len(tiles))))
            c.rack_rows_exact += exact
            if not exact:
                c.problems.append(f"{name}: rack row {_codes(item, tiles)} read as "
                                  f"{_shown(reading, codes, found, tiles, pred_of, group_of)}")
            continue
        c.sets += 1
        exact = found is not None and found.group == "table" and len(found.indices) == len(tiles)
        c.sets_exact += exact
        valid = analyse_set([Tile.from_index(int(item.class_ids[t])) for t in tiles], rules).valid
        k_seen = seen_group(tiles)  # k itself when no tile was missed
        seen = reading.sets[k_seen] if k_seen is not None else None
        shown_valid = seen is not None and seen.group == "table" and seen.valid
        if valid:
            c.valid_sets += 1
            if not shown_valid:
                if seen is not None and seen.group == "table" and seen.unsure:
                    c.unsure += 1
                else:
                    c.false_alarms += 1
        else:
            c.invalid_sets += 1
            c.misses += shown_valid
            c.invalid_unsure += seen is not None and seen.group == "table" and seen.unsure
        if not exact or (valid and not shown_valid) or (not valid and shown_valid):
            c.problems.append(f"{name}: {'valid' if valid else 'invalid'} set {_codes(item, tiles)} read as "
                              f"{_shown(reading, codes, found, tiles, pred_of, group_of)}")
    for t in item.loose:
        c.loose += 1
        k = one_group([t])
        c.loose_right += k is not None and len(reading.sets[k].indices) == 1
    matched = set(pred_of.values())
    for s in reading.sets:
        if (s.group == "table" and len(s.indices) >= 2 and s.status == "invalid"
                and not matched.intersection(s.indices)):
            c.phantoms += 1
            c.problems.append(f"{name}: [{' '.join(codes[i] for i in s.indices)}] shown invalid where no tile "
                              f"is labelled")
    if any(g.kind == "rack" for g in item.groups):
        c.rack_photos = 1
        c.rack_totals_right = int(reading.rack_total == truth_rack)
        warned = any(s.group == "rack" and s.past_edge for s in reading.sets)
        c.rack_totals_warned = int(warned)
        c.rack_totals_warned_right = int(warned and reading.rack_total == truth_rack)
        if reading.rack_total != truth_rack:
            c.problems.append(f"{name}: rack total {reading.rack_total}, labelled {truth_rack}"
                              + (" (warned: a rack row runs past the photo's edge)" if warned else ""))
    return c


def _codes(item: LabelledImage, tiles) -> str:
    return " ".join(Tile.from_index(int(item.class_ids[t])).code for t in tiles)


def _shown(reading, codes, found, tiles, pred_of, group_of) -> str:
    """How the reading shows a labelled group: the groups its tiles fell into, with their status."""
    ks = []
    for t in tiles:
        k = group_of.get(pred_of.get(t))
        if k not in ks:
            ks.append(k)
    parts = []
    for k in ks:
        if k is None:
            parts.append("(missed tiles)")
        else:
            s = reading.sets[k]
            parts.append(f"[{' '.join(codes[i] for i in s.indices)}] {s.status}")
    return " + ".join(parts)


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
    groups: SetCounts = field(default_factory=SetCounts)  # set-level counts (photos with set labels)
    warnings: list[str] = field(default_factory=list)  # what the reader said about the photo

    @property
    def exact(self) -> bool:
        return self.read_right == self.truth == self.found


def _ratio(a: float, b: float) -> float:
    return a / b if b else 1.0


def _rate(a: float, b: float) -> float | None:
    """a / b for the JSON, None when there is nothing to count (0 / 0 is no score, not a perfect one)."""
    return round(a / b, 4) if b else None


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

    @property
    def groups(self) -> SetCounts:
        """Set-level counts summed over the photos with set labels."""
        total = SetCounts()
        for p in self.photos:
            total = total + p.groups
        return total

    @property
    def set_photos(self) -> int:
        return sum(p.groups.sets + p.groups.rack_rows + p.groups.loose > 0 for p in self.photos)

    def set_dict(self) -> dict:
        g = self.groups
        return {
            "set_photos": self.set_photos,
            "sets": g.sets, "sets_exact": g.sets_exact, "sets_exact_rate": _rate(g.sets_exact, g.sets),
            "valid_sets": g.valid_sets, "false_alarms": g.false_alarms,
            "false_alarm_rate": _rate(g.false_alarms, g.valid_sets),
            "unsure": g.unsure, "invalid_sets": g.invalid_sets, "misses": g.misses,
            "invalid_unsure": g.invalid_unsure,
            "rack_rows": g.rack_rows, "rack_rows_exact": g.rack_rows_exact,
            "rack_photos": g.rack_photos, "rack_totals_right": g.rack_totals_right,
            "rack_totals_warned": g.rack_totals_warned, "rack_totals_warned_right": g.rack_totals_warned_right,
            "loose": g.loose, "loose_right": g.loose_right, "phantoms": g.phantoms,
        }

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
            **self.set_dict(),
        }


def score_photo(reader, item: LabelledImage, iou: float = 0.5) -> PhotoScore:
    """Read one labelled photo and count what was found and read right (and its sets, when labelled)."""
    image = item.load()
    start = time.perf_counter()
    reading = reader.read(image)
    ms = (time.perf_counter() - start) * 1000
    return score_reading(reading, item, reader.options.rules, ms, iou)


def score_reading(reading, item: LabelledImage, rules: RuleOptions, ms: float = 0.0, iou: float = 0.5) -> PhotoScore:
    """Count what a reading of a labelled photo found and read right, tiles and sets."""
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
        groups=score_groups(reading, item, pairs, rules),
        warnings=list(getattr(reading, "warnings", [])),
    )


def evaluate(reader, items: list[LabelledImage], iou: float = 0.5, progress=None) -> Evaluation:
    """Score ``reader`` (anything with ``read(image) -> TableReading``) on labelled photos.

    A photo that cannot be decoded (a truncated or corrupt file, which its
    header alone does not show when the folder is loaded) is left out with a
    warning naming it, as ``load_folder`` leaves out one it cannot read.
    """
    photos = []
    for k, item in enumerate(items):
        try:
            photos.append(score_photo(reader, item, iou))
        except ImageError as exc:
            log.warning("skipped %s", exc)  # the message names the file and what is wrong
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


def format_set_table(rows: list[tuple[str, Evaluation]]) -> str:
    """Set-level figures, one row per folder: only folders with set labels."""
    head = (f"{'folder':<32} {'photos':>6} {'sets':>5} {'exact':>12} {'valid':>5} {'false alarms':>14} "
            f"{'unsure':>6} {'misses':>8} {'rack rows':>10} {'rack totals':>11} {'warned':>10} {'loose':>9} "
            f"{'phantoms':>8}")
    lines = [head, "-" * len(head)]
    for name, e in rows:
        if not e.set_photos:
            continue
        g = e.groups
        name = name if len(name) <= 32 else "..." + name[-29:]
        rate = f"{g.false_alarms}/{g.valid_sets}" + (f" {g.false_alarms / g.valid_sets:.1%}" if g.valid_sets else "")
        exact = f"{g.sets_exact}" + (f" {g.sets_exact / g.sets:.1%}" if g.sets else "")
        lines.append(
            f"{name:<32} {e.set_photos:>6} {g.sets:>5} {exact:>12} "
            f"{g.valid_sets:>5} {rate:>14} {g.unsure:>6} {f'{g.misses}/{g.invalid_sets}':>8} "
            f"{f'{g.rack_rows_exact}/{g.rack_rows}':>10} {f'{g.rack_totals_right}/{g.rack_photos}':>11} "
            f"{f'{g.rack_totals_warned} ({g.rack_totals_warned_right} ok)':>10} {f'{g.loose_right}/{g.loose}':>9} "
            f"{g.phantoms:>8}"
        )
    return "\n".join(lines) if len(lines) > 2 else ""


__all__ = ["SetCounts", "score_groups", "score_reading", "format_set_table", "quad_iou", "match_tiles", "PhotoScore", "Evaluation", "score_photo", "evaluate", "format_table"]
