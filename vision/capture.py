"""Frame sources: a camera, a video file, a network stream or a folder of images.

Every source is read the same way (``open``/``read``/``close``), so the live
pipeline, the tests and the benchmark replay a folder of photos through exactly
the path a webcam takes.  :class:`CaptureThread` reads a source in its own
thread into a :class:`LatestFrame` slot: processing always gets the newest
frame and stale ones are dropped, so a slow model never falls behind the table.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import logging
import os
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

# FFmpeg, under OpenCV, would print its own line ("moov atom not found") for a damaged video before the
# source's SourceError says it in words; it reads this once, at its first file (OPENCV_FFMPEG_LOGLEVEL
# set by the user still wins, e.g. 32 to see FFmpeg's view)
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.images import ImageError, load_image

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})
VIDEO_SUFFIXES = frozenset({".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mpg", ".mpeg"})


_opencv_log_lock = threading.Lock()


@contextlib.contextmanager
def _opencv_quiet():
    """OpenCV's own log off meanwhile: a camera that is not there would say so at every retry in its words
    ("[ WARN:0@...] ... can't open camera by index"); the source's own SourceError says it, once, in ours."""
    cv_log = getattr(getattr(cv2, "utils", None), "logging", None)
    if cv_log is None:  # an OpenCV without the log switch: its lines stay
        yield
        return
    with _opencv_log_lock:
        level = cv_log.getLogLevel()
        cv_log.setLogLevel(cv_log.LOG_LEVEL_SILENT)
        try:
            yield
        finally:
            cv_log.setLogLevel(level)


class SourceError(RuntimeError):
    """A source that cannot be opened or read (camera unplugged, bad path, ...)."""


class UnreadableSource(SourceError):
    """A source that no retry will open: a video file there that is damaged or not a video."""


@dataclass(frozen=True)
class Frame:
    """One captured picture: BGR pixels, its running number and when it came in."""

    image: np.ndarray
    index: int
    timestamp: float
    label: str = ""  # e.g. the image file a slideshow frame came from


class FrameSource:
    """Base of all sources.

    ``read`` returns a BGR image, ``None`` when a finite source has ended, and
    raises :class:`SourceError` when the device fails.  ``frame_interval`` is
    the pacing a real-time reader should keep (seconds), or ``None`` for
    devices whose ``read`` already blocks until the next frame.
    """

    name: str = "source"
    live: bool = False  # True: a device that can disconnect and come back
    frame_interval: float | None = None
    label: str = ""  # what the last frame showed (slideshow: file name)

    def open(self) -> None:
        raise NotImplementedError

    def read(self) -> np.ndarray | None:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def take_warning(self) -> str | None:
        """A problem that did not stop the source (a skipped file); cleared once read."""
        return None

    def frames(self, limit: int | None = None) -> Iterator[Frame]:
        """Yield frames without a thread or pacing (tests, benchmarks, batch replay)."""
        self.open()
        try:
            index = 0
            while limit is None or index < limit:
                image = self.read()
                if image is None:
                    return
                index += 1
                yield Frame(image, index, time.monotonic(), self.label)
        finally:
            self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class VideoCaptureSource(FrameSource):
    """Anything ``cv2.VideoCapture`` opens: a camera index, a video file, a stream URL.

    ``capture_factory`` is ``cv2.VideoCapture`` unless a test swaps in a fake.
    A video file loops when ``loop`` is set so a recorded game can be replayed.
    A webcam is asked for ``resolution`` (it may give another) and a one-frame
    driver buffer; a stream gives up opening or reading after ``timeout`` s, so
    a dead link is reported instead of hanging.
    """

    def __init__(
        self,
        target: int | str,
        *,
        live: bool,
        loop: bool = False,
        capture_factory: Callable[..., object] | None = None,
        fail_limit: int = 3,
        resolution: tuple[int, int] | None = (1280, 720),
        timeout: float = 5.0,
    ) -> None:
        self.target = target
        self.name = f"camera {target}" if isinstance(target, int) else str(target)
        self.live = live
        self.loop = loop
        self.capture_factory = capture_factory
        self.fail_limit = fail_limit
        self.resolution = resolution
        self.timeout = timeout
        self._cap = None
        self._fails = 0

    def open(self) -> None:
        self.close()
        with _opencv_quiet():
            cap = self._capture()
            if not cap.isOpened():
                cap.release()
                if isinstance(self.target, str) and "://" not in self.target:
                    if not Path(self.target).is_file():
                        raise SourceError(f"the video {self.name} is gone")
                    raise UnreadableSource(f"{self.name} cannot be read as a video (damaged, or not a video "
                                           "this build of OpenCV decodes)")
                raise SourceError(f"cannot open {self.name}")
            if isinstance(self.target, int):
                cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # where the driver allows: no queue of old frames
                if self.resolution:
                    cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.resolution[0])
                    cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.resolution[1])
        self._cap = cap
        self._fails = 0
        if not self.live:
            fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
            self.frame_interval = 1.0 / fps if 1.0 <= fps <= 240.0 else 1.0 / 25.0

    def _capture(self):
        if self.capture_factory is not None:
            return self.capture_factory(self.target)
        if isinstance(self.target, str) and "://" in self.target:
            ms = int(self.timeout * 1000)
            params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms]
            return cv2.VideoCapture(self.target, cv2.CAP_ANY, params)
        return cv2.VideoCapture(self.target)

    def read(self) -> np.ndarray | None:
        if self._cap is None:
            raise SourceError(f"{self.name} is not open")
        ok, image = self._cap.read()
        if ok and image is not None:
            self._fails = 0
            return image
        if not self.live:
            if not self.loop:
                return None
            self.open()  # from the start, as a new file: a deleted or replaced video is noticed
            ok, image = self._cap.read()
            if ok and image is not None:
                return image
            raise SourceError(f"cannot read {self.name}")
        # a webcam may drop the odd frame; several failures in a row mean it is gone
        self._fails += 1
        if self._fails >= self.fail_limit:
            raise SourceError(f"{self.name} stopped sending frames (disconnected?)")
        return self.read()

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class FolderSource(FrameSource):
    """A folder of photos played as a slideshow: each shown ``seconds_per_image``.

    Each photo is repeated at ``fps`` like a camera watching a still table, so
    the stabiliser sees the change, then still frames to vote on.  Unreadable
    files are skipped with a warning; the show loops unless ``loop`` is False.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        seconds_per_image: float = 5.0,
        fps: float = 10.0,
        loop: bool = True,
    ) -> None:
        self.path = Path(path)
        if seconds_per_image <= 0 or fps <= 0:
            raise ValueError("seconds_per_image and fps must be positive")
        self.name = str(self.path)
        self.seconds_per_image = seconds_per_image
        self.fps = fps
        self.frame_interval = 1.0 / fps
        self.loop = loop
        self.files: list[Path] = []
        self._logged: set[str] = set()
        self._warnings: deque[str] = deque(maxlen=8)  # a folder failing for hours keeps only the latest
        self._position = 0  # next file to show
        self._repeats_left = 0
        self._image: np.ndarray | None = None

    @property
    def frames_per_image(self) -> int:
        return max(1, round(self.seconds_per_image * self.fps))

    def open(self) -> None:
        self._scan()
        self._position = 0
        self._repeats_left = 0
        self._image = None

    def _scan(self) -> None:
        """List the pictures again (each round of the show): files may come and go."""
        try:
            if self.path.is_file():
                self.files = [self.path]
            elif self.path.is_dir():
                self.files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            else:
                raise SourceError(f"no such image or folder: {self.path}")
        except OSError as exc:  # the folder vanished while being listed, a network share went away
            raise SourceError(f"cannot list {self.path}: {exc.strerror or exc}") from None
        if not self.files:
            raise SourceError(f"no images ({', '.join(sorted(IMAGE_SUFFIXES))}) in {self.path}")

    def read(self) -> np.ndarray | None:
        if self._repeats_left > 0 and self._image is not None:
            self._repeats_left -= 1
            return self._image
        for _ in range(len(self.files)):
            if self._position >= len(self.files):
                if not self.loop:
                    return None
                self._scan()
                self._position = 0
            file = self.files[self._position]
            self._position += 1
            try:
                image = load_image(file)
            except Exception as exc:  # ImageError, or worse: one bad file never stops the show
                reason = str(exc).removeprefix(str(file) + ": ") if isinstance(exc, ImageError) else repr(exc)
                message = f"skipped {file.name}: {reason}"
                if message not in self._logged:  # once in the log, every round on the page
                    self._logged.add(message)
                    log.warning("%s", message)
                self._warnings.append(message)
                continue
            image.setflags(write=False)  # shared by the repeats: nobody may draw on it
            self._image = image
            self.label = file.name
            self._repeats_left = self.frames_per_image - 1
            return image
        last = f" ({self._warnings[-1].removeprefix('skipped ')})" if self._warnings else ""
        raise SourceError(f"none of the {len(self.files)} images in {self.path} can be read{last}")

    def take_warning(self) -> str | None:
        return self._warnings.popleft() if self._warnings else None


def sample_images_dir() -> Path:
    """The sample_images/ folder shipped with the package (or next to the repo)."""
    try:
        path = Path(str(importlib.resources.files("sample_images")))
        if path.is_dir():
            return path
    except (ModuleNotFoundError, TypeError, OSError):  # not installed, or an empty namespace folder
        pass
    return Path(__file__).resolve().parents[1] / "sample_images"


def open_source(spec: str | None, *, seconds_per_image: float = 5.0, loop: bool = True) -> FrameSource:
    """Turn ``--source`` text into a source (not yet opened).

    ``None``: the shipped sample_images/ slideshow; ``"0"``: webcam 0;
    ``rtsp://...``/``http://...``: a network stream; a folder or image file:
    a slideshow; another file: a video.
    """
    if spec is None:
        return FolderSource(sample_images_dir(), seconds_per_image=seconds_per_image, loop=loop)
    text = str(spec).strip()
    if not text:
        raise ValueError("empty source: give a camera number, a file, a folder or a URL")
    if text.isdigit():
        return VideoCaptureSource(int(text), live=True)
    if "://" in text:
        return VideoCaptureSource(text, live=True)
    path = Path(text).expanduser()
    if path.is_dir() or (path.is_file() and path.suffix.lower() in IMAGE_SUFFIXES):
        return FolderSource(path, seconds_per_image=seconds_per_image, loop=loop)
    if path.is_file():
        return VideoCaptureSource(str(path), live=False, loop=loop)
    raise ValueError(f"source {text!r} is not a camera number, a URL, or an existing file or folder")


class LatestFrame:
    """A one-slot buffer: ``put`` overwrites, ``get_newer`` waits for a newer frame.

    ``dropped`` counts frames overwritten before anyone took them.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._frame: Frame | None = None
        self._count = 0
        self._taken = 0
        self.dropped = 0

    @property
    def count(self) -> int:
        """Frames put so far (the index of the newest)."""
        return self._count

    def put(self, image: np.ndarray, label: str = "") -> Frame:
        with self._cond:
            if self._frame is not None and self._taken < self._count:
                self.dropped += 1
            self._count += 1
            self._frame = Frame(image, self._count, time.monotonic(), label)
            self._cond.notify_all()
            return self._frame

    def get_newer(self, than: int, timeout: float | None = None) -> Frame | None:
        """The newest frame with ``index > than``, waiting up to ``timeout`` s; else None."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._count > than, timeout):
                return None
            self._taken = self._count
            return self._frame

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()


class CaptureThread:
    """Reads a source in a daemon thread into a :class:`LatestFrame`.

    Any source that fails (an unplugged camera, a stream that connects but
    sends nothing, an emptied folder, a deleted video, an error nobody
    foresaw) is reported (``camera_ok`` False, ``camera_error``) and reopened
    after growing pauses (``backoff`` doubling up to ``max_backoff``) until
    frames come again; the pause is reset only by a frame, so a source that
    opens but never delivers is not hammered.  A finite source that ends
    (a video without ``loop``), or a video file no retry will open
    (:class:`UnreadableSource`), leaves ``finished`` set.
    """

    def __init__(
        self,
        source: FrameSource,
        buffer: LatestFrame | None = None,
        *,
        backoff: float = 0.5,
        max_backoff: float = 5.0,
        paced: bool = True,
    ) -> None:
        self.source = source
        self.buffer = buffer or LatestFrame()
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.paced = paced
        self.warning_seconds = 10.0
        self.camera_ok = False
        self.camera_error: str | None = None
        self.finished = False
        self.reconnects = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "CaptureThread":
        if self._thread and self._thread.is_alive():
            return self
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"capture {self.source.name}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        self.buffer.wake()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _fail(self, message: str) -> None:
        if self.camera_ok or self.camera_error != message:
            log.warning("%s", message)
        self.camera_ok = False
        self.camera_error = message

    def _run(self) -> None:
        source = self.source
        opened = False
        pause = self.backoff
        next_due = time.monotonic()
        warning_until = 0.0
        try:
            while not self._stop.is_set():
                try:
                    if not opened:
                        source.open()
                        opened = True
                        next_due = time.monotonic()
                    image = source.read()
                except UnreadableSource as exc:  # a damaged video stays damaged: said, not retried
                    self.finished = True
                    self._fail(str(exc))
                    return
                except Exception as exc:  # SourceError, or a fault nobody foresaw: retry, never die
                    if not isinstance(exc, SourceError):
                        log.exception("reading %s failed", source.name)
                    if opened:
                        opened = False
                        try:
                            source.close()
                        except Exception:  # a driver failing to let go: the next open starts afresh
                            log.exception("closing %s failed", source.name)
                    self._fail(f"{exc if isinstance(exc, SourceError) else repr(exc)}; retrying in {pause:.1f} s")
                    self._stop.wait(pause)
                    pause = min(pause * 2, self.max_backoff)
                    continue
                if image is None:
                    self.finished = True
                    self._fail(f"{source.name} has ended")
                    return
                if not self.camera_ok:
                    if self.camera_error is not None:
                        self.reconnects += 1
                    self.camera_ok, self.camera_error = True, None
                pause = self.backoff
                warning = source.take_warning()
                if warning:  # shown for a while, but frames still come
                    self.camera_error, warning_until = warning, time.monotonic() + self.warning_seconds
                elif self.camera_error and time.monotonic() > warning_until:
                    self.camera_error = None
                self.buffer.put(image, source.label)
                if self.paced and source.frame_interval:
                    next_due = max(next_due + source.frame_interval, time.monotonic() - source.frame_interval)
                    self._stop.wait(max(0.0, next_due - time.monotonic()))
        finally:
            source.close()
