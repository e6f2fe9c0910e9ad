"""Frame sources: newest-frame buffering, slideshows, video files, camera reconnects."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from test_images import _png_bomb
from vision.capture import (
    CaptureThread,
    FolderSource,
    FrameSource,
    LatestFrame,
    SourceError,
    VideoCaptureSource,
    open_source,
    sample_images_dir,
)


def wait_until(predicate, timeout: float = 3.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


def write_images(folder: Path, values: list[int], size=(48, 64)) -> list[Path]:
    paths = []
    for i, v in enumerate(values):
        p = folder / f"img{i:02d}.png"
        cv2.imwrite(str(p), np.full((*size, 3), v, np.uint8))
        paths.append(p)
    return paths


# -- the newest-frame slot ------------------------------------------------------


def test_latest_frame_keeps_only_the_newest_and_counts_the_dropped():
    buf = LatestFrame()
    for v in range(5):
        buf.put(np.full((2, 2), v, np.uint8))
    frame = buf.get_newer(0, timeout=0)
    assert frame.index == 5 and frame.image[0, 0] == 4
    assert buf.dropped == 4
    assert buf.get_newer(5, timeout=0.01) is None  # nothing newer yet
    buf.put(np.zeros((2, 2), np.uint8))
    assert buf.get_newer(5, timeout=0).index == 6
    assert buf.dropped == 4  # that one was taken, not dropped


class CountingSource(FrameSource):
    """As fast as it can: frame k is an image whose pixels hold k."""

    name = "counter"

    def __init__(self, total: int) -> None:
        self.total = total
        self.k = 0

    def open(self) -> None:
        self.k = 0

    def read(self):
        if self.k >= self.total:
            return None
        self.k += 1
        time.sleep(0.0005)
        return np.full((4, 4), self.k % 256, np.uint8)


def test_threaded_capture_drops_stale_frames_for_a_slow_consumer():
    capture = CaptureThread(CountingSource(400)).start()
    got = []
    last = 0
    try:
        while not capture.finished or capture.buffer.count > last:
            frame = capture.buffer.get_newer(last, timeout=0.5)
            if frame is None:
                break
            last = frame.index
            got.append(frame.index)
            time.sleep(0.01)  # a slow model
    finally:
        capture.stop()
    assert got == sorted(set(got))  # never an old frame after a newer one
    assert got[-1] == 400  # the last frame is always delivered
    assert len(got) < 200 and capture.buffer.dropped == 400 - len(got)


# -- choosing a source ------------------------------------------------------------


def test_open_source_understands_each_kind_of_spec(tmp_path):
    write_images(tmp_path, [10])
    video = tmp_path / "game.avi"
    video.write_bytes(b"not really")
    cam = open_source("0")
    assert isinstance(cam, VideoCaptureSource) and cam.target == 0 and cam.live
    url = open_source("rtsp://192.168.1.5/stream")
    assert isinstance(url, VideoCaptureSource) and url.live
    assert isinstance(open_source(str(tmp_path)), FolderSource)
    assert isinstance(open_source(str(tmp_path / "img00.png")), FolderSource)
    vid = open_source(str(video))
    assert isinstance(vid, VideoCaptureSource) and not vid.live
    default = open_source(None)
    assert isinstance(default, FolderSource) and default.path == sample_images_dir()


@pytest.mark.parametrize("spec", ["", "   ", "/no/such/place.mp4", "camera"])
def test_open_source_rejects_what_it_cannot_open_naming_it(spec):
    with pytest.raises(ValueError, match="source"):
        open_source(spec)


# -- slideshow ------------------------------------------------------------------------


def test_folder_slideshow_repeats_each_image_and_loops(tmp_path):
    write_images(tmp_path, [10, 20, 30])
    src = FolderSource(tmp_path, seconds_per_image=0.3, fps=10)
    assert src.frames_per_image == 3
    values = [int(f.image[0, 0, 0]) for f in src.frames(limit=12)]
    assert values == [10] * 3 + [20] * 3 + [30] * 3 + [10] * 3


def test_folder_slideshow_without_loop_ends(tmp_path):
    write_images(tmp_path, [10, 20])
    frames = list(FolderSource(tmp_path, seconds_per_image=0.1, fps=10, loop=False).frames())
    assert [f.label for f in frames] == ["img00.png", "img01.png"]
    assert [f.index for f in frames] == [1, 2]


def test_a_corrupt_image_is_skipped_with_a_message(tmp_path):
    write_images(tmp_path, [10, 20])
    (tmp_path / "img005.jpg").write_bytes(b"\xff\xd8 broken jpeg")  # sorts between the two
    src = FolderSource(tmp_path, seconds_per_image=0.1, fps=10, loop=False)
    src.open()
    assert int(src.read()[0, 0, 0]) == 10
    assert src.take_warning() is None
    assert int(src.read()[0, 0, 0]) == 20
    warning = src.take_warning()
    assert "img005.jpg" in warning and "skipped" in warning
    assert src.take_warning() is None


def test_capture_thread_reports_a_skipped_file_but_keeps_going(tmp_path):
    write_images(tmp_path, [10, 20])
    (tmp_path / "img005.jpg").write_bytes(b"garbage")
    capture = CaptureThread(FolderSource(tmp_path, seconds_per_image=0.05, fps=100)).start()
    try:
        assert wait_until(lambda: capture.camera_error and "img005.jpg" in capture.camera_error)
        assert capture.camera_ok
        assert wait_until(lambda: capture.buffer.count > 20)
    finally:
        capture.stop()


def test_folder_errors(tmp_path):
    with pytest.raises(SourceError, match="no images"):
        FolderSource(tmp_path).open()
    (tmp_path / "a.png").write_bytes(b"nope")
    src = FolderSource(tmp_path)
    src.open()
    with pytest.raises(SourceError, match="can be read"):
        src.read()
    with pytest.raises(ValueError):
        FolderSource(tmp_path, seconds_per_image=0)


# -- video files ----------------------------------------------------------------------


def write_video(path: Path, values: list[int], fps: float = 50.0) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (64, 48))
    assert writer.isOpened()
    for v in values:
        writer.write(np.full((48, 64, 3), v, np.uint8))
    writer.release()


def test_video_file_plays_paced_at_its_rate_and_loops_or_ends(tmp_path):
    path = tmp_path / "game.avi"
    write_video(path, [0, 100, 200], fps=50.0)
    once = open_source(str(path), loop=False)
    values = [int(f.image.mean()) for f in once.frames()]
    assert len(values) == 3 and values[0] < 50 < values[1] < 150 < values[2]
    assert once.frame_interval == pytest.approx(1 / 50)
    looped = [f.image.mean() for f in open_source(str(path), loop=True).frames(limit=7)]
    assert len(looped) == 7 and looped[3] < 50

    capture = CaptureThread(open_source(str(path), loop=False)).start()
    try:
        assert wait_until(lambda: capture.finished)
        assert capture.buffer.count == 3 and not capture.camera_ok
        assert "ended" in capture.camera_error
    finally:
        capture.stop()


def test_a_network_stream_url_is_read_through_opencv(tmp_path):
    """A video served over HTTP on this machine stands in for an IP camera."""
    import functools
    import http.server

    write_video(tmp_path / "cam.avi", [0, 100, 200, 100, 0])
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        source = open_source(f"http://127.0.0.1:{server.server_address[1]}/cam.avi")
        assert source.live
        frames = list(source.frames(limit=3))
        assert [f.image.shape for f in frames] == [(48, 64, 3)] * 3
        assert frames[1].image.mean() > frames[0].image.mean() + 50
    finally:
        server.shutdown()
    with pytest.raises(SourceError, match="cannot open"):
        VideoCaptureSource("http://127.0.0.1:9/none.mjpg", live=True, timeout=1).open()


# -- a webcam that is unplugged and plugged back ------------------------------------------


class FakeCamera:
    """Stands in for cv2.VideoCapture; ``plugged`` is shared by every instance."""

    plugged = threading.Event()
    opened = 0

    def __init__(self, target):
        self.target = target
        self.ok = FakeCamera.plugged.is_set()
        self.settings = {}
        FakeCamera.opened += 1
        FakeCamera.last = self

    def isOpened(self):
        return self.ok

    def read(self):
        if not (self.ok and FakeCamera.plugged.is_set()):
            return False, None
        return True, np.full((48, 64, 3), 77, np.uint8)

    def get(self, prop):
        return 30.0

    def set(self, prop, value):
        self.settings[prop] = value
        return True

    def release(self):
        self.ok = False


def test_camera_disconnect_is_reported_and_it_reconnects_with_backoff():
    FakeCamera.plugged.set()
    FakeCamera.opened = 0
    source = VideoCaptureSource(0, live=True, capture_factory=FakeCamera)
    capture = CaptureThread(source, backoff=0.01, max_backoff=0.05).start()
    try:
        assert wait_until(lambda: capture.camera_ok and capture.buffer.count > 5)
        FakeCamera.plugged.clear()
        assert wait_until(lambda: not capture.camera_ok)
        assert "camera 0" in capture.camera_error
        assert wait_until(lambda: FakeCamera.opened >= 3)  # keeps trying
        stalled = capture.buffer.count
        time.sleep(0.05)
        assert capture.buffer.count == stalled  # no frames while unplugged
        FakeCamera.plugged.set()
        assert wait_until(lambda: capture.camera_ok and capture.buffer.count > stalled + 5)
        assert capture.camera_error is None and capture.reconnects >= 1
    finally:
        capture.stop()
    assert not capture.running


def test_a_webcam_is_asked_for_1280x720_and_a_short_buffer():
    FakeCamera.plugged.set()
    source = VideoCaptureSource(0, live=True, capture_factory=FakeCamera)
    source.open()
    assert FakeCamera.last.settings == {
        cv2.CAP_PROP_BUFFERSIZE: 1,
        cv2.CAP_PROP_FRAME_WIDTH: 1280,
        cv2.CAP_PROP_FRAME_HEIGHT: 720,
    }
    source.close()


def test_a_camera_that_cannot_be_opened_says_so():
    FakeCamera.plugged.clear()
    source = VideoCaptureSource(3, live=True, capture_factory=FakeCamera)
    with pytest.raises(SourceError, match="cannot open camera 3"):
        source.open()


def test_a_single_dropped_webcam_frame_is_tolerated():
    frames = iter([(False, None), (True, np.zeros((4, 4, 3), np.uint8))])

    class Flaky(FakeCamera):
        def read(self):
            return next(frames)

    FakeCamera.plugged.set()
    source = VideoCaptureSource(0, live=True, capture_factory=Flaky)
    source.open()
    assert source.read().shape == (4, 4, 3)


# -- sources that die and come back ----------------------------------------------------------


def test_an_emptied_folder_is_reported_and_the_show_comes_back_with_its_files(tmp_path):
    paths = write_images(tmp_path, [10, 20])
    capture = CaptureThread(FolderSource(tmp_path, seconds_per_image=0.02, fps=100),
                            backoff=0.02, max_backoff=0.1).start()
    try:
        assert wait_until(lambda: capture.camera_ok and capture.buffer.count > 3)
        for p in paths:
            p.unlink()
        assert wait_until(lambda: not capture.camera_ok)
        assert "no images" in capture.camera_error and "retrying" in capture.camera_error
        assert capture.running
        stalled = capture.buffer.count
        write_images(tmp_path, [30])
        assert wait_until(lambda: capture.camera_ok and capture.buffer.count > stalled)
        assert int(capture.buffer.get_newer(0, timeout=0).image[0, 0, 0]) == 30
        assert capture.camera_error is None and capture.reconnects >= 1
    finally:
        capture.stop()


def test_a_deleted_video_is_reported_and_plays_again_when_it_returns(tmp_path):
    path = tmp_path / "game.avi"
    write_video(path, [0, 100, 200], fps=100.0)
    kept = path.read_bytes()
    capture = CaptureThread(open_source(str(path), loop=True), backoff=0.02, max_backoff=0.1).start()
    try:
        assert wait_until(lambda: capture.camera_ok and capture.buffer.count > 5)
        path.unlink()
        assert wait_until(lambda: not capture.camera_ok)
        assert "game.avi" in capture.camera_error and "gone" in capture.camera_error
        stalled = capture.buffer.count
        path.write_bytes(kept)
        assert wait_until(lambda: capture.camera_ok and capture.buffer.count > stalled + 3)
    finally:
        capture.stop()


def test_a_damaged_video_is_said_once_in_our_words_and_not_retried(tmp_path, capfd):
    """A video file that is there but no video (cut short in a copy, another file renamed) is no camera that
    may come back: retrying it said "retrying" every 5 s, after FFmpeg's own "moov atom not found"."""
    path = tmp_path / "game.mp4"
    path.write_bytes(np.random.default_rng(0).integers(0, 256, 20_000, dtype=np.uint8).tobytes())
    capture = CaptureThread(open_source(str(path)), backoff=0.02, max_backoff=0.1).start()
    try:
        assert wait_until(lambda: capture.finished and not capture.running)
    finally:
        capture.stop()
    assert capture.camera_error == (f"{path} cannot be read as a video (damaged, or not a video this build of "
                                    "OpenCV decodes)")
    assert not capture.camera_ok and capture.reconnects == 0
    err = capfd.readouterr().err
    assert "moov" not in err and "[mov" not in err, err


def test_a_stream_that_connects_but_sends_nothing_is_not_hammered():
    class Silent(FakeCamera):
        def read(self):
            return False, None

    FakeCamera.plugged.set()
    FakeCamera.opened = 0
    source = VideoCaptureSource("http://cam.local/stream", live=True, capture_factory=Silent)
    capture = CaptureThread(source, backoff=0.05, max_backoff=0.4).start()
    try:
        time.sleep(1.5)
        assert not capture.camera_ok and "stopped sending frames" in capture.camera_error
        # pauses 0.05, 0.1, 0.2, 0.4, 0.4, ...: a handful of reconnects, not hundreds a second
        assert 3 <= FakeCamera.opened <= 8, FakeCamera.opened
    finally:
        capture.stop()


def test_one_bad_file_never_stops_the_capture_thread(tmp_path, monkeypatch):
    import vision.capture as capture_module

    write_images(tmp_path, [10, 20, 30])
    (tmp_path / "bomb.png").write_bytes(_png_bomb(30000, 30000))
    real_load = capture_module.load_image

    def flaky_load(path, **kw):
        if path.name == "img01.png":
            raise MemoryError("the decoder ran out of memory")  # not an ImageError: still only a skip
        return real_load(path, **kw)

    monkeypatch.setattr(capture_module, "load_image", flaky_load)
    src = FolderSource(tmp_path, seconds_per_image=0.01, fps=100)
    capture = CaptureThread(src, backoff=0.02, max_backoff=0.1, paced=False)
    capture.warning_seconds = 0  # each warning is replaced by the next one at once
    seen = []
    capture.start()
    try:
        assert wait_until(lambda: capture.buffer.count > 20)
        while len(seen) < 2 and wait_until(lambda: capture.camera_error is not None, 1.0):
            if capture.camera_error not in seen:
                seen.append(capture.camera_error)
        labels = set()
        for _ in range(20):
            frame = capture.buffer.get_newer(capture.buffer.count - 1, timeout=1)
            labels.add(frame.label)
        assert capture.running and labels <= {"img00.png", "img02.png"}
    finally:
        capture.stop()
    messages = list(src._warnings) + seen
    assert any("bomb.png" in m and "too large" in m and "before decoding" in m for m in messages), messages
    assert any("img01.png" in m and "MemoryError" in m for m in messages), messages


def test_a_fault_in_any_source_is_retried_not_fatal():
    class Faulty(CountingSource):
        """Raises an error nobody planned for on its third frame, then works again."""

        name = "faulty"
        faults = 0

        def read(self):
            if self.k == 2 and Faulty.faults == 0:
                Faulty.faults += 1
                raise ZeroDivisionError("bug")
            return super().read()

    capture = CaptureThread(Faulty(10**9), backoff=0.01, max_backoff=0.02).start()
    try:
        assert wait_until(lambda: Faulty.faults == 1)
        assert wait_until(lambda: capture.camera_ok and capture.buffer.count > 10)
        assert capture.reconnects == 1 and capture.running
    finally:
        capture.stop()


def test_the_page_state_shows_a_dead_source_and_its_return(tmp_path):
    """Through the web app: the camera block of GET /api/state (the page's banner) follows the folder."""
    from test_live import FakeReader
    from vision.live import LiveTable
    from webui.app import create_app

    folder = tmp_path / "photos"
    folder.mkdir()
    paths = write_images(folder, [60])
    live = LiveTable(FolderSource(folder, seconds_per_image=0.05, fps=40), FakeReader({}))
    live.capture.backoff, live.capture.max_backoff = 0.02, 0.1
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": live, "TICKER": False})
    client = app.test_client()
    live.start()
    try:
        camera = lambda: client.get("/api/state").get_json()["camera"]  # noqa: E731
        assert wait_until(lambda: camera()["ok"] and camera()["has_picture"], 5)  # open, and showing pictures
        paths[0].unlink()
        assert wait_until(lambda: not camera()["ok"], 5)
        assert "no images" in camera()["error"]
        write_images(folder, [120])
        assert wait_until(lambda: camera()["ok"] and camera()["error"] is None, 5)
    finally:
        live.stop()
        app.extensions["companion"].session.store.close()


def test_a_camera_that_is_not_there_is_reported_in_our_words_only(capfd):
    """OpenCV's own "[ WARN:0@...] can't open camera by index" lines came every retry (5 s) on stderr."""
    source = VideoCaptureSource(7 if not Path("/dev/video7").exists() else 99, live=True)
    with pytest.raises(SourceError, match="cannot open camera"):
        source.open()
    err = capfd.readouterr().err
    assert "WARN" not in err and "ERROR" not in err, err
    assert cv2.utils.logging.getLogLevel() != cv2.utils.logging.LOG_LEVEL_SILENT  # only while it opened
