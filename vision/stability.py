"""Deciding when the table has really changed: motion gating and voting over frames.

:class:`TableStabiliser` is a pure stateful step with no threads or clocks of
its own, so tests feed it synthetic sequences.  Per frame it gets a small grey
thumbnail and, for still frames, a table reading.  Frames that differ from the
previous one (hands moving) reset the vote; the tiles of the still frames since
then are matched across frames by quad centre, and each tile's code is the
vote of those frames.  With an ``assemble`` function (the reader's
``read_detections``, given the voted tiles and the latest still frame's tag,
the image in the live table, so racks and colours are read as on a photo) the
voted tiles are grouped and judged again, so one
frame's misread never reaches the sets; without it the kept frame that agrees
best with the vote is published.  The table, and ``version``, change only when
the voted sets differ from the published ones; a sudden loss of many tiles (a
hand resting over them) must last ``drop_seconds`` before it is believed.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Protocol, Sequence

import cv2
import numpy as np

from rules.tiles import Tile
from vision.types import TILE_CODES, TileDetections

THUMB_WIDTH = 96


class ReadingLike(Protocol):
    """What the stabiliser needs of a ``vision.reader.TableReading``."""

    detections: TileDetections
    # each with ``.indices`` (detection indices in the set), ``.group`` (table or rack) and
    # ``.status`` ("valid", "invalid", "unsure" or "rack": what the page shows)
    sets: Sequence[Any]


def make_thumbnail(image_bgr: np.ndarray, width: int = THUMB_WIDTH) -> np.ndarray:
    """Small blurred grey copy of a frame for motion checks (cheap at any resolution)."""
    h, w = image_bgr.shape[:2]
    size = (width, max(1, round(h * width / w)))
    step = max(1, w // (2 * width))  # every step-th pixel first: area-averaging a whole HD frame costs 4 ms
    small = cv2.resize(image_bgr[::step, ::step], size, interpolation=cv2.INTER_AREA)
    if small.ndim == 3:
        small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    return cv2.GaussianBlur(small, (3, 3), 0)


def motion_fraction(a: np.ndarray, b: np.ndarray, pixel_threshold: int = 25) -> float:
    """Share of thumbnail pixels that changed, ignoring an overall brightness shift."""
    if a.shape != b.shape:
        return 1.0
    diff = a.astype(np.int16) - b.astype(np.int16)
    diff -= np.int16(np.median(diff))
    return float(np.count_nonzero(np.abs(diff) > pixel_threshold)) / diff.size


def raw_detections(reading: Any) -> TileDetections:
    """The model's own tiles of a reading (before the rules inferred any), in the same order."""
    raw = getattr(reading, "model_detections", None)
    return reading.detections if raw is None else raw


def table_key(reading: Any) -> tuple:
    """What must differ for the table to count as changed: the sets and all tile codes."""
    codes = [int(c) for c in reading.detections.class_ids]
    sets = sorted((s.group, tuple(sorted(codes[i] for i in s.indices))) for s in reading.sets)
    return tuple(sets), tuple(sorted(codes))


def flagged_sets(reading: Any) -> int:
    """Table sets the reading shows as invalid (not unsure, not rack rows)."""
    return sum(1 for s in reading.sets if s.status == "invalid")


def reading_tables(reading: Any) -> list[list[Tile]]:
    tiles = reading.detections.tiles
    return [[tiles[i] for i in s.indices] for s in reading.sets]


@dataclass(frozen=True)
class StableView:
    """The stabiliser's answer after each frame (the table part of ``TableState``)."""

    version: int
    reading: Any | None  # the voted reading (or the kept frame's reading that matches it best)
    tables: list[list[Tile]]
    uncertain: list[int]
    stable: bool
    changed_at: float
    tag: Any = None  # what the caller passed with the latest frame of the vote (e.g. its image)


@dataclass
class _Track:
    """One physical tile followed across the still frames of a window."""

    quad: np.ndarray  # running mean of its corners
    size: float
    weights: Counter = field(default_factory=Counter)  # code -> sum of scores
    counts: Counter = field(default_factory=Counter)  # code -> frames that read it
    hits: int = 0
    probs: np.ndarray = field(default_factory=lambda: np.zeros(TILE_CODES))  # sum of each frame's probabilities

    @property
    def center(self) -> np.ndarray:
        return self.quad.mean(axis=0)

    @property
    def code(self) -> int:
        return max(self.weights, key=lambda c: (self.weights[c], self.counts[c]))

    @property
    def agreement(self) -> float:
        """Share of the frames that saw this tile and read it as the voted code."""
        return self.counts[self.code] / self.hits if self.hits else 0.0

    @property
    def score(self) -> float:
        """Mean score of the voted code, scaled by how many frames agreed."""
        c = self.code
        return self.weights[c] / self.counts[c] * self.agreement


@dataclass
class _Seen:
    reading: Any
    tracks: list[int]  # track id for each detection of the reading


def _tile_size(quads: np.ndarray) -> np.ndarray:
    """Short side of each quad (pixels)."""
    edges = np.linalg.norm(np.roll(quads, -1, axis=1) - quads, axis=2)
    return np.minimum(edges[:, 0] + edges[:, 2], edges[:, 1] + edges[:, 3]) / 2


class TableStabiliser:
    """Motion gate + vote; call :meth:`update` once per processed frame.

    assemble: builds a reading from voted tiles and the latest still frame's
        ``tag`` (``TableReader.read_detections(tiles, image)``); None publishes
        the kept frame that agrees best with the vote.
    pixel_threshold / motion_threshold: a thumbnail pixel counts as changed
        above this grey difference; the frame is moving above this share of
        changed pixels (against the previous frame, or against the first still
        frame of the window, which catches slow pushes).
    min_votes: still frames read before a new table is published.
    quick_votes: fewer frames that suffice when they all read every tile alike.
    max_votes: after this many votes in a still window, :attr:`wants_reading`
        is False: nothing new to learn until something moves.
    score_threshold / agreement_threshold: below these a tile is uncertain.
    drop_fraction / drop_seconds: losing more than this share of tiles (and at
        least 3) must last this long before it is believed.
    invalid_seconds: a table with more sets shown invalid than the one
        published must last this long before it is believed: a player laying a
        set stops with part of it down and a hand over the rest, and that pause
        must not flash "invalid" (a finished valid move, and the first table
        seen, are shown at once).
    match_ratio: a reading matching fewer of the window's tiles than this
        share starts a new vote even without visible motion.
    """

    def __init__(
        self,
        assemble: Callable[[TileDetections, Any], Any] | None = None,
        *,
        pixel_threshold: int = 25,
        motion_threshold: float = 0.01,
        min_votes: int = 3,
        quick_votes: int = 2,
        max_votes: int = 12,
        keep_frames: int = 6,
        score_threshold: float = 0.6,
        agreement_threshold: float = 0.75,
        drop_fraction: float = 0.3,
        drop_seconds: float = 2.0,
        invalid_seconds: float = 1.5,
        match_ratio: float = 0.6,
    ) -> None:
        if min_votes < 1 or max_votes < min_votes:
            raise ValueError("need 1 <= min_votes <= max_votes")
        self.assemble = assemble
        self.pixel_threshold = pixel_threshold
        self.motion_threshold = motion_threshold
        self.min_votes = min_votes
        self.quick_votes = min(max(1, quick_votes), min_votes)
        self.max_votes = max_votes
        self.keep_frames = max(1, keep_frames)
        self.score_threshold = score_threshold
        self.agreement_threshold = agreement_threshold
        self.drop_fraction = drop_fraction
        self.drop_seconds = drop_seconds
        self.invalid_seconds = invalid_seconds
        self.match_ratio = match_ratio

        self._last_thumb: np.ndarray | None = None
        self._anchor: np.ndarray | None = None  # first still thumbnail of the window
        self._view = StableView(0, None, [], [], False, time.monotonic())
        self._key: tuple | None = None
        self._flagged = 0  # sets the published table shows invalid
        self._reset_window(0.0)

    # -- window -------------------------------------------------------------
    def _reset_window(self, now: float) -> None:
        self._tracks: list[_Track] = []
        self._seen: list[_Seen] = []
        self._votes = 0
        self._window_start = now
        self._published_here = False  # a table was published from this window
        self._pending: tuple | None = None  # a changed key waiting for confirmation
        self._held: tuple | None = None  # a voted table with many tiles lost, waiting for drop_seconds
        self._tag: Any = None

    @property
    def votes(self) -> int:
        """Still frames read since the last movement."""
        return self._votes

    @property
    def wants_reading(self) -> bool:
        """Whether the next still frame is worth running the model on."""
        return self._votes < self.max_votes or self._pending is not None

    def is_moving(self, thumb: np.ndarray) -> bool:
        """Would ``thumb`` count as movement?  (Does not change the state.)"""
        if self._last_thumb is None:
            return True
        if motion_fraction(thumb, self._last_thumb, self.pixel_threshold) > self.motion_threshold:
            return True
        if self._anchor is not None:
            return motion_fraction(thumb, self._anchor, self.pixel_threshold) > self.motion_threshold
        return False

    def _match(self, det: TileDetections) -> tuple[list[int], int]:
        """Track id per detection (new tracks for unmatched) and how many matched."""
        sizes = _tile_size(det.quads) if len(det) else np.zeros(0)
        ids = [-1] * len(det)
        matched = 0
        if self._tracks and len(det):
            tc = np.stack([t.center for t in self._tracks])
            ts = np.array([t.size for t in self._tracks])
            dist = np.linalg.norm(det.centers[:, None, :] - tc[None, :, :], axis=2)
            pairs = np.argwhere(dist <= 0.5 * np.minimum(sizes[:, None], ts[None, :]))
            order = np.argsort(dist[pairs[:, 0], pairs[:, 1]], kind="stable")
            used: set[int] = set()
            for i, j in pairs[order]:
                if ids[i] < 0 and j not in used:
                    ids[i] = int(j)
                    used.add(int(j))
                    matched += 1
        for i in range(len(det)):
            if ids[i] < 0:
                self._tracks.append(_Track(det.quads[i].astype(np.float64), float(sizes[i])))
                ids[i] = len(self._tracks) - 1
        return ids, matched

    def _add(self, reading: Any) -> float:
        """Vote with one reading; returns the share of tiles that matched earlier frames."""
        det = raw_detections(reading)
        expected = sum(1 for t in self._tracks if t.hits * 2 >= self._votes)
        ids, matched = self._match(det)
        for i, tid in enumerate(ids):
            track = self._tracks[tid]
            track.hits += 1
            track.quad += (det.quads[i] - track.quad) / track.hits
            code = int(det.class_ids[i])
            track.weights[code] += max(float(det.scores[i]), 0.01) * (0.5 if det.inferred[i] else 1.0)
            track.counts[code] += 1
            track.probs += det.probs[i]
        self._votes += 1
        self._seen.append(_Seen(reading, ids))
        del self._seen[: -self.keep_frames]
        if self._votes == 1 or (expected == 0 and len(det) == 0):
            return 1.0  # the first vote, or an empty table again: nothing moved
        return matched / max(expected, len(det), 1)

    def _consensus(self) -> dict[int, _Track]:
        return {i: t for i, t in enumerate(self._tracks) if t.hits * 2 > self._votes}

    # -- the voted table ----------------------------------------------------------
    def _voted(self, consensus: dict[int, _Track]) -> tuple[Any, list[int]]:
        """The reading to publish and its uncertain tile indices."""
        if self.assemble is None:
            return self._best_seen(consensus)
        ids = list(consensus)
        voted = TileDetections(
            np.array([consensus[i].quad for i in ids], np.float32).reshape(-1, 4, 2),
            [consensus[i].code for i in ids],
            [consensus[i].score for i in ids],
            probs=np.array([consensus[i].probs / consensus[i].hits for i in ids]).reshape(-1, TILE_CODES),
        )
        reading = self.assemble(voted, self._tag)
        # the reader may reorder tiles: find each one's track again by its corners
        by_quad = {voted.quads[k].tobytes(): consensus[i] for k, i in enumerate(ids)}
        raw = raw_detections(reading)
        uncertain = []
        for k in range(len(reading.detections)):
            track = by_quad.get(np.asarray(raw.quads[k], np.float32).tobytes())
            if (
                track is None
                or track.agreement < self.agreement_threshold
                or track.score < self.score_threshold
                or reading.detections.inferred[k]
            ):
                uncertain.append(k)
        return reading, uncertain

    def _best_seen(self, consensus: dict[int, _Track]) -> tuple[Any, list[int]]:
        """The kept frame whose reading agrees most with the vote (latest on ties)."""

        def agreement(seen: _Seen) -> int:
            codes = raw_detections(seen.reading).class_ids
            good = sum(1 for i, tid in enumerate(seen.tracks) if tid in consensus and consensus[tid].code == codes[i])
            return 2 * good - len(codes)

        seen = max(reversed(self._seen), key=agreement)
        det, raw = seen.reading.detections, raw_detections(seen.reading)
        uncertain = []
        for i, tid in enumerate(seen.tracks):
            track = consensus.get(tid)
            if (
                track is None
                or track.code != int(raw.class_ids[i])
                or track.agreement < self.agreement_threshold
                or det.inferred[i]
                or det.scores[i] < self.score_threshold
            ):
                uncertain.append(i)
        return seen.reading, uncertain

    # -- the step -------------------------------------------------------------
    def update(self, thumb: np.ndarray, reading: Any | None = None, *, tag: Any = None, now: float | None = None) -> StableView:
        """Feed one frame: its thumbnail and, if the model ran on it, its reading.

        ``tag`` travels with the reading into :attr:`StableView.tag` (the frame
        image, so the caller can draw the published table on it).
        """
        now = time.monotonic() if now is None else now
        moving = self.is_moving(thumb)
        self._last_thumb = thumb
        if moving:
            self._anchor = None
            self._reset_window(now)
            return self._set_stable(False)
        if self._anchor is None:
            self._anchor = thumb
            self._reset_window(now)
        if reading is not None:
            if self._add(reading) < self.match_ratio:
                # the tiles moved but the picture hardly did: start the vote again
                self._reset_window(now)
                self._add(reading)
            self._tag = tag
            self._maybe_publish(now)
        elif self._held is not None:  # no new votes, but the held-back table may now be due
            self._publish(*self._held, now)
        return self._set_stable(True)

    def _set_stable(self, stable: bool) -> StableView:
        if self._view.stable != stable:
            self._view = replace(self._view, stable=stable)
        return self._view

    def _unanimous(self) -> bool:
        return all(t.hits == self._votes and len(t.counts) == 1 for t in self._tracks)

    def _maybe_publish(self, now: float) -> None:
        if self._votes < self.quick_votes or (self._votes < self.min_votes and not self._unanimous()):
            return
        reading, uncertain = self._voted(self._consensus())
        key = table_key(reading)
        self._held = None
        if key == self._key:
            self._pending = None
            return
        if self._published_here and self._pending != key:
            self._pending = key  # a late swing of the vote must hold for two frames
            return
        self._publish(reading, uncertain, key, now)

    def _publish(self, reading: Any, uncertain: list[int], key: tuple, now: float) -> None:
        old, new = (len(self._key[1]) if self._key else 0), len(key[1])
        lost, flagged, still = old - new, flagged_sets(reading), now - self._window_start
        if (lost >= 3 and lost > self.drop_fraction * old and still < self.drop_seconds) or \
                (self._key is not None and flagged > self._flagged and still < self.invalid_seconds):
            # probably a hand resting on the tiles, or a set half laid: believe it once it has lasted
            self._held = (reading, uncertain, key)
            return
        self._key, self._pending, self._held, self._published_here = key, None, None, True
        self._flagged = flagged
        self._view = StableView(
            version=self._view.version + 1,
            reading=reading,
            tables=reading_tables(reading),
            uncertain=uncertain,
            stable=True,
            changed_at=now,
            tag=self._tag,
        )

    @property
    def view(self) -> StableView:
        return self._view


__all__ = ["TableStabiliser", "StableView", "make_thumbnail", "motion_fraction", "table_key", "THUMB_WIDTH"]
