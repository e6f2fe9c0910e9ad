"""The live table: camera frames in, a stable, versioned table state out.

:class:`LiveTable` joins a :class:`~vision.capture.CaptureThread` (newest frame
only) to a processing thread that gates motion, reads still frames with the
tile reader and lets :class:`~vision.stability.TableStabiliser` decide when the
table really changed.  The web page reads :meth:`LiveTable.state` and waits on
:meth:`LiveTable.wait_for_change`; tests call :meth:`LiveTable.process`
directly, frame by frame, without threads.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from typing import Any, Sequence

import cv2
import numpy as np

from rules.game_tally import laid_out
from rules.options import RuleOptions
from rules.scoring import rack_value
from rules.tiles import Tile
from vision.capture import CaptureThread, FrameSource, LatestFrame, open_source
from vision.geometry import RACK, TABLE
from vision.stability import StableView, TableStabiliser, make_thumbnail

log = logging.getLogger(__name__)

SET_STATUS = ("valid", "invalid", "unsure", RACK)  # TableState.set_status codes: the reader's SetReading.status
GROUP_KINDS = (TABLE, RACK)  # TableState.set_group codes: a set on the table, or a row on a rack


@dataclass(frozen=True)
class TableState:
    """Everything the page shows about the table, as one immutable snapshot of plain arrays.

    The tiles come in reading order, group by group; a group is a set on the
    table or a row of tiles standing on a rack (never judged as a meld, never
    part of the table a turn is judged on: see :attr:`tables` and :attr:`racks`):

    tiles: (N,) int16, each tile's index 0-52 (``rules.tiles.Tile.from_index``).
    set_ids: (N,) int16, the group (0..S-1, in reading order) each tile lies in.
    scores: (N,) float32, the reading's confidence in each tile.
    inferred: (N,) bool, the code was suggested by the rules, not read.
    uncertain: (N,) bool, read with low confidence, disputed between frames, or inferred.
    doubtful: (N,) bool, a low-confidence tile an unsure set's verdict hangs on.
    set_status: (S,) int8, each group's status under the rules the reader
        follows, an index into :data:`SET_STATUS` (valid, invalid, unsure, rack).
    set_group: (S,) int8, each group's kind, an index into :data:`GROUP_KINDS` (table, rack).
    set_past_edge: (S,) bool, an unsure set that runs into the photo's edge, a tile past it
        out of sight would make it valid, or a rack row that may go on out of sight
        (``SetReading.past_edge``).
    warnings: what makes the photo's colours doubtful, printed numbers left out, a rack row
        running past the photo's edge, in plain words (``TableReading.warnings``).
    version: bumps only when the stable table really changed.
    stable: False while hands move over the table.
    camera_ok / camera_error: frames are coming in (or the source is still opening: it has not
        failed) and the tile reader works / what went wrong (a skipped file is reported here while
        ``camera_ok`` stays True).
    annotated_jpeg: the frame behind the table with tiles and sets drawn.
    frame_jpeg: the newest camera frame.
    changed_at: ``time.time()`` of the last version bump.
    fps: frames processed per second, recently.
    frame: the running number of the newest frame processed (1 = the source's first, 0 = none yet);
        a looping video keeps counting, so its place in the video is ``(frame - 1) % length``.
    read: the tiles are what lies on the table now, as far as anyone can tell: the camera works and
        has given a steady reading since it started.  False before that first reading (a table not
        read yet is unknown, not empty) and while the camera is out (the tiles are then its last
        reading, not the table now).
    picture_at: ``time.time()`` when the newest frame came in (0: none), so the last picture can be
        shown with its time once the camera is out.
    """

    version: int
    tiles: np.ndarray
    set_ids: np.ndarray
    scores: np.ndarray
    inferred: np.ndarray
    uncertain: np.ndarray
    doubtful: np.ndarray
    set_status: np.ndarray
    set_group: np.ndarray
    set_past_edge: np.ndarray
    warnings: tuple[str, ...]
    stable: bool
    camera_ok: bool
    camera_error: str | None
    annotated_jpeg: bytes | None
    frame_jpeg: bytes | None
    changed_at: float
    fps: float
    frame: int = 0
    read: bool = False
    picture_at: float = 0.0

    @classmethod
    def empty(cls, **kw: Any) -> "TableState":
        """No table read yet (or no camera): zero tiles."""
        arrays = dict(tiles=np.zeros(0, np.int16), set_ids=np.zeros(0, np.int16), scores=np.zeros(0, np.float32),
                      inferred=np.zeros(0, bool), uncertain=np.zeros(0, bool), doubtful=np.zeros(0, bool),
                      set_status=np.zeros(0, np.int8), set_group=np.zeros(0, np.int8), warnings=(),
                      set_past_edge=np.zeros(0, bool))
        base = dict(version=0, stable=True, camera_ok=False, camera_error=None, annotated_jpeg=None,
                    frame_jpeg=None, changed_at=0.0, fps=0.0)
        return cls(**{**arrays, **base, **kw})

    @classmethod
    def from_sets(cls, sets: Sequence[Sequence[Tile]], *, scores: Sequence[float] | None = None,
                  inferred: Sequence[bool] | None = None, uncertain: Sequence[bool] | None = None,
                  doubtful: Sequence[bool] | None = None, status: Sequence[str] | None = None,
                  past_edge: Sequence[bool] | None = None, **kw: Any) -> "TableState":
        """A state from groups of tiles (per-tile marks in reading order over all groups), taken as read
        (``read`` True) unless said otherwise.

        ``status``: each group's word from :data:`SET_STATUS` (default all valid); ``"rack"`` makes it a rack row.
        """
        kw.setdefault("read", True)
        flat = [t for s in sets for t in s]
        n = len(flat)
        words = list(status) if status is not None else ["valid"] * len(sets)
        if len(words) != len(sets) or any(w not in SET_STATUS for w in words):
            raise ValueError(f"status needs one of {SET_STATUS} per group, got {words!r}")
        return cls.empty(
            tiles=np.array([t.index for t in flat], np.int16),
            set_ids=np.array([i for i, s in enumerate(sets) for _ in s], np.int16),
            scores=np.asarray(scores if scores is not None else np.ones(n), np.float32),
            inferred=np.asarray(inferred if inferred is not None else np.zeros(n), bool),
            uncertain=np.asarray(uncertain if uncertain is not None else np.zeros(n), bool),
            doubtful=np.asarray(doubtful if doubtful is not None else np.zeros(n), bool),
            set_status=np.array([SET_STATUS.index(w) for w in words], np.int8),
            set_group=np.array([GROUP_KINDS.index(RACK if w == RACK else TABLE) for w in words], np.int8),
            set_past_edge=np.asarray(past_edge if past_edge is not None else np.zeros(len(sets)), bool),
            **kw,
        )

    @property
    def groups(self) -> tuple[tuple[Tile, ...], ...]:
        """Every group (table sets and rack rows) as tiles, in reading order."""
        out: list[list[Tile]] = [[] for _ in range(len(self.set_status))]
        for code, set_id in zip(self.tiles.tolist(), self.set_ids.tolist()):
            out[set_id].append(Tile.from_index(code))
        return tuple(tuple(s) for s in out)

    def _of_kind(self, kind: str) -> tuple[tuple[Tile, ...], ...]:
        code = GROUP_KINDS.index(kind)
        return tuple(g for g, k in zip(self.groups, self.set_group.tolist()) if k == code)

    @property
    def tables(self) -> tuple[tuple[Tile, ...], ...]:
        """The stable sets on the table as tiles (rack rows left out: turns are judged on these)."""
        return self._of_kind(TABLE)

    @property
    def racks(self) -> tuple[tuple[Tile, ...], ...]:
        """The rows of tiles standing on racks."""
        return self._of_kind(RACK)

    @property
    def set_valid(self) -> np.ndarray:
        """(S,) bool: each group is a valid table set (rack rows and unsure sets are not)."""
        return self.set_status == SET_STATUS.index("valid")


def reading_state(reading: Any, uncertain: Sequence[int], **kw: Any) -> TableState:
    """The table part of a state from a ``vision.reader.TableReading`` (tiles in set order)."""
    if reading is None:
        return TableState.empty(**kw)
    det = reading.detections
    order = [int(i) for s in reading.sets for i in s.indices]
    marked = set(int(i) for i in uncertain)
    doubtful = {int(i) for s in reading.sets for i in s.doubtful}
    return TableState.empty(
        tiles=det.class_ids[order].astype(np.int16),
        set_ids=np.array([k for k, s in enumerate(reading.sets) for _ in s.indices], np.int16),
        scores=det.scores[order].astype(np.float32),
        inferred=det.inferred[order].astype(bool),
        uncertain=np.array([i in marked or bool(det.inferred[i]) for i in order], bool),
        doubtful=np.array([i in doubtful for i in order], bool),
        set_status=np.array([SET_STATUS.index(s.status) for s in reading.sets], np.int8),
        set_group=np.array([GROUP_KINDS.index(s.group) for s in reading.sets], np.int8),
        set_past_edge=np.array([s.past_edge for s in reading.sets], bool),
        warnings=tuple(reading.warnings),
        **kw,
    )


def encode_jpeg(image: np.ndarray | None, quality: int = 80, max_width: int | None = None) -> bytes | None:
    if image is None:
        return None
    if max_width and image.shape[1] > max_width:
        h = round(image.shape[0] * max_width / image.shape[1])
        image = cv2.resize(image, (max_width, h), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    return buf.tobytes() if ok else None


def _annotate(image: np.ndarray, reading: Any) -> np.ndarray:
    """Draw the reading with vision.annotate (imported late: it loads the reader)."""
    from vision.annotate import annotate

    return annotate(image, reading)


def as_counted(reading: Any, final: tuple | None, rules: RuleOptions | None) -> Any:
    """The reading as drawn while the racks are counted: each group that is not a set of the
    final table is a rack laid out to be read (totalled, no verdict), on a rack board or not."""
    if final is None or reading is None or rules is None:
        return reading
    tiles = reading.detections.tiles
    groups = [[tiles[i] for i in s.indices] for s in reading.sets]
    sets = [replace(s, group=RACK, verdict=None, as_read=None, doubtful=(), past_edge=False,
                    rack_value=rack_value(g, rules))
            if laid and s.group != RACK else s
            for s, g, laid in zip(reading.sets, groups, laid_out(final, groups))]
    return replace(reading, sets=sets)


def live_reader(rules: RuleOptions, model_dir: str | None = None) -> Any:
    """The reader for a camera: each crop is read once.

    A single photo gets a second look at its unsure tiles (turned half a turn);
    a camera already votes over many still frames, so the second look would
    only take time from the frame rate.
    """
    from vision.reader import ReaderOptions, TableReader

    return TableReader.from_model_dir(model_dir, ReaderOptions(rules=rules), second_look=False)


class LiveTable:
    """A camera (or any :class:`FrameSource`) watched for a stable table.

    ``source``: a FrameSource, or ``--source`` text for :func:`open_source`
    (None: the shipped sample images).  ``reader``: anything with
    ``read(image_bgr) -> TableReading``; None loads :func:`live_reader`
    when the processing thread starts (if that fails the camera view still
    works and the reason is shown in ``camera_error``), judging under
    ``rules``, which must then be given.
    """

    def __init__(
        self,
        source: FrameSource | str | None = None,
        reader: Any | None = None,
        *,
        rules: RuleOptions | None = None,
        stabiliser: TableStabiliser | None = None,
        jpeg_quality: int = 80,
        jpeg_max_width: int | None = 1280,
        preview_interval: float = 0.2,
    ) -> None:
        self.source = source if isinstance(source, FrameSource) else open_source(source)
        if reader is None and not isinstance(rules, RuleOptions):
            raise TypeError("LiveTable without a reader needs rules=RuleOptions (the rules in force)")
        self.reader = reader
        self.rules = rules
        self.counting: tuple | None = None  # the final table while the racks are counted
        self.reader_error: str | None = None
        self.stabiliser = stabiliser or TableStabiliser()
        self._attach_reader()
        self.jpeg_quality = jpeg_quality
        self.jpeg_max_width = jpeg_max_width
        self.preview_interval = preview_interval  # the camera picture is re-encoded at most this often
        self.buffer = LatestFrame()
        self.capture = CaptureThread(self.source, self.buffer)
        self._cond = threading.Condition()
        self._view: StableView = self.stabiliser.view
        self._changed_wall = time.time()
        self._latest: np.ndarray | None = None
        self._latest_index = 0
        self._latest_wall = 0.0  # time.time() the newest frame was processed
        self._jpeg_cache: dict[str, tuple[Any, bytes | None, float]] = {}
        self._jpeg_lock = threading.Lock()
        self._times: deque[float] = deque(maxlen=30)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.frames_processed = 0
        self.frames_read = 0

    # -- threads --------------------------------------------------------------
    def start(self) -> "LiveTable":
        if self._thread and self._thread.is_alive():
            return self
        self._stop.clear()
        self.capture.start()
        self._thread = threading.Thread(target=self._run, name="live table", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 3.0) -> None:
        self._stop.set()
        self.capture.stop(timeout)
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        with self._cond:
            self._cond.notify_all()

    def __enter__(self) -> "LiveTable":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def follow_rules(self, rules: RuleOptions) -> None:
        """Judge sets, and infer misread tiles, by the game's rules from the next frame on."""
        self.rules = rules
        self._apply_rules()

    def follow_count(self, final: Sequence[Sequence[Tile]] | None) -> None:
        """While the racks are counted (``final``: the table when the hand ended), draw every other
        group as a rack laid out to be read, valued by the rules followed; None when play goes on."""
        self.counting = None if final is None else tuple(tuple(s) for s in final)

    def _apply_rules(self) -> None:
        from vision.reader import TableReader

        if self.rules is not None and isinstance(self.reader, TableReader) and self.reader.options.rules != self.rules:
            self.reader.options = replace(self.reader.options, rules=self.rules)

    def _attach_reader(self) -> None:
        """Let the stabiliser rebuild sets from voted tiles, in the latest still frame, when the reader can."""
        self._apply_rules()
        if self.reader is not None and self.stabiliser.assemble is None:
            self.stabiliser.assemble = getattr(self.reader, "read_detections", None)

    def _ensure_reader(self) -> None:
        if self.reader is None and self.reader_error is None:
            try:
                self.reader = live_reader(self.rules)
            except Exception as exc:  # no model files, bad install: keep the camera view
                self.reader_error = f"tile reader unavailable: {exc}"
                log.error("%s", self.reader_error)
            self._attach_reader()

    def _run(self) -> None:
        self._ensure_reader()
        last = 0
        while not self._stop.is_set():
            frame = self.buffer.get_newer(last, timeout=0.5)
            if frame is None:
                continue
            last = frame.index
            try:
                self.process(frame.image, index=frame.index)
            except Exception:  # one bad frame must not stop the table
                log.exception("processing frame %d failed", frame.index)

    # -- the step ---------------------------------------------------------------
    def process(self, image: np.ndarray, *, index: int | None = None, now: float | None = None) -> StableView:
        """Gate, read and vote one frame; the same path for threads and tests."""
        thumb = make_thumbnail(image)
        reading = None
        if self.reader is not None and self.stabiliser.wants_reading and not self.stabiliser.is_moving(thumb):
            reading = self.reader.read(image)
            self.frames_read += 1
        view = self.stabiliser.update(thumb, reading, tag=image if reading is not None else None, now=now)
        t = time.monotonic()
        with self._cond:
            self._times.append(t)
            self.frames_processed += 1
            self._latest = image
            self._latest_index = index if index is not None else self.frames_processed
            self._latest_wall = time.time()
            if view.version != self._view.version:
                self._changed_wall = time.time()
            changed = view is not self._view
            self._view = view
            if changed:
                self._cond.notify_all()
        return view

    # -- reading the state --------------------------------------------------------
    def _jpeg(self, name: str, key: Any, make, max_age: float | None = None) -> bytes | None:
        """Encode once per ``key``; with ``max_age``, keep serving a stale one that young (not a missing
        one: the first picture shows as soon as it comes)."""
        with self._jpeg_lock:
            cached = self._jpeg_cache.get(name)
            now = time.monotonic()
            fresh = max_age and cached is not None and cached[1] is not None and now - cached[2] < max_age
            if cached is not None and (cached[0] == key or fresh):
                return cached[1]
            data = make()
            self._jpeg_cache[name] = (key, data, now)
            return data

    @property
    def fps(self) -> float:
        with self._cond:
            times = list(self._times)
        if len(times) < 2 or times[-1] <= times[0]:
            return 0.0
        if time.monotonic() - times[-1] > 2.0:
            return 0.0  # nothing processed lately
        return (len(times) - 1) / (times[-1] - times[0])

    def state(self) -> TableState:
        with self._cond:
            view, latest, index, changed = self._view, self._latest, self._latest_index, self._changed_wall
            picture_at = self._latest_wall
        q, w = self.jpeg_quality, self.jpeg_max_width
        frame_jpeg = self._jpeg("frame", index, lambda: encode_jpeg(latest, q, w), self.preview_interval)
        annotated = None
        if view.reading is not None and view.tag is not None:
            counting, rules = self.counting, self.rules
            annotated = self._jpeg(
                "annotated", (view.version, counting),
                lambda: encode_jpeg(_annotate(np.array(view.tag), as_counted(view.reading, counting, rules)), q, w),
            )
        camera_error = self.capture.camera_error
        if self.reader_error:
            camera_error = f"{camera_error}; {self.reader_error}" if camera_error else self.reader_error
        camera_ok = self._camera_ok(latest)
        return reading_state(
            view.reading, view.uncertain,
            version=view.version,
            stable=view.stable,
            camera_ok=camera_ok,
            camera_error=camera_error,
            annotated_jpeg=annotated,
            frame_jpeg=frame_jpeg,
            changed_at=changed,
            fps=self.fps,
            frame=index,
            # the stabiliser publishes its first table (an empty one too) as version 1
            read=camera_ok and view.version > 0,
            picture_at=picture_at,
        )

    def _camera_ok(self, latest: np.ndarray | None) -> bool:
        """Frames come in, or the source is still opening (it has not failed: a table not read yet is
        waited for, not taken for no camera), and the tile reader works (without it no tile is ever read:
        the game goes on as with no camera, the picture still shown)."""
        if self.reader_error:
            return False
        capture = self.capture
        if capture.running or capture.finished:
            return capture.camera_ok or (capture.running and capture.camera_error is None)
        return latest is not None

    def wait_for_change(self, version: int, timeout: float | None = None) -> TableState:
        """Block until the version differs from ``version`` (or ``timeout`` s); return the state."""
        with self._cond:
            self._cond.wait_for(lambda: self._view.version != version or self._stop.is_set(), timeout)
        return self.state()


__all__ = ["LiveTable", "TableState", "SET_STATUS", "GROUP_KINDS", "reading_state", "TableStabiliser", "encode_jpeg"]
