"""Live pipeline benchmark: processed frames per second at 1280x720, and the delay
from a stable change on the table to the state update.

    python benchmarks/bench_live.py [--model-dir DIR] [--seconds 8] [--changes 5] [--photos A B]

Uses the real tile model when ``models/`` holds it (or ``--model-dir``);
otherwise says so and measures the pipeline minus the network: capture thread,
newest-frame slot, thumbnails, motion gate, voting, regrouping and judging the
sets with the reader, and the JPEGs of the state, with a stand-in model that
returns a fixed 34- or 37-tile table.

Figures:
  * read every frame: frames/s when the model runs on every still frame (the
    worst case, while a fresh table is being voted on);
  * steady: frames/s of the threaded pipeline on a 30 fps camera-like source,
    including the frames where the table is still and already voted;
  * change delay: from the first frame showing the new, still table (the hand
    has left) to ``wait_for_change`` returning the new version.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.tiles import parse_table  # noqa: E402
from vision.capture import FrameSource, sample_images_dir  # noqa: E402
from vision.live import LiveTable  # noqa: E402
from vision.types import TileDetections  # noqa: E402

SIZE = (1280, 720)
TABLE_A = "R1 R2 R3 R4 | K7 B7 O7 | B10 B11 B12 B13 | O1 O2 O3 | K9 R9 B9 O9 | J K5 K6 | R11 R12 R13 | B2 B3 B4 B5 | O10 O11 O12 | K1 K2 K3"
TABLE_B = TABLE_A + " | R5 R6 R7"  # a new run laid down


def photos() -> list[Path]:
    """Real table photos to benchmark on: the shipped samples, else the shared data set."""
    suffixes = {".jpg", ".jpeg", ".png"}
    found = sorted(p for p in sample_images_dir().glob("*") if p.suffix.lower() in suffixes)
    shared = ROOT.parent / "shared" / "datasets" / "rummikub-photos"
    if len(found) < 2 and shared.is_dir():
        found = sorted(p for p in shared.rglob("*") if p.suffix.lower() in suffixes)[:2]
    return found


def scene(path: Path | None, marker: int) -> np.ndarray:
    """A 1280x720 frame: a photo scaled to fill it, or a drawn table; pixel (0,0) marks which."""
    if path is not None:
        img = cv2.imread(str(path))
        h, w = img.shape[:2]
        s = max(SIZE[0] / w, SIZE[1] / h)
        img = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
        y0, x0 = (img.shape[0] - SIZE[1]) // 2, (img.shape[1] - SIZE[0]) // 2
        img = np.ascontiguousarray(img[y0 : y0 + SIZE[1], x0 : x0 + SIZE[0]])
    else:
        rng = np.random.default_rng(marker)
        img = np.full((SIZE[1], SIZE[0], 3), (40, 110, 60), np.uint8)
        for _ in range(45):
            x, y = int(rng.integers(0, SIZE[0] - 50)), int(rng.integers(0, SIZE[1] - 70))
            cv2.rectangle(img, (x, y), (x + 45, y + 65), (235, 235, 225), -1)
    img[0, 0] = marker
    return img


def hand_over(image: np.ndarray, k: int) -> np.ndarray:
    """The scene with a skin-coloured blob moving across it."""
    out = image.copy()
    cv2.ellipse(out, (200 + 180 * k, 380), (170, 110), 20, 0, 360, (120, 160, 210), -1)
    return out


class StandInModel:
    """Fixed detections per scene (pixel (0,0) says which): the model's cost is left out."""

    def __init__(self) -> None:
        self.tables = {1: self._detections(TABLE_A), 2: self._detections(TABLE_B)}

    @staticmethod
    def _detections(table: str) -> TileDetections:
        quads, ids = [], []
        for row, tiles in enumerate(parse_table(table)):
            for col, tile in enumerate(tiles):
                x = 40 + (row % 2) * 620 + 52 * col
                y = 40 + (row // 2) * 130
                quads.append([[x, y], [x + 48, y], [x + 48, y + 66], [x, y + 66]])
                ids.append(tile.index)
        return TileDetections(np.array(quads, np.float32), ids, np.full(len(ids), 0.95, np.float32))

    def detect(self, image: np.ndarray) -> TileDetections:
        return self.tables.get(int(image[0, 0, 0]), TileDetections.empty())


class ScriptedCamera(FrameSource):
    """A 30 fps camera looking at scene A, then a hand, then scene B, and so on.

    ``change_times`` records when the first still frame of each new scene was
    delivered, the moment the change delay is measured from.
    """

    name = "scripted camera"
    live = True

    def __init__(self, a: np.ndarray, b: np.ndarray, *, still_s: float = 1.5, hand_frames: int = 6, fps: float = 30.0) -> None:
        self.scenes = (a, b)
        self.still = round(still_s * fps)
        self.hand_frames = hand_frames
        self.frame_interval = 1.0 / fps
        self.k = 0
        self.change_times: list[float] = []
        self.lock = threading.Lock()

    def open(self) -> None:
        self.k = 0

    def read(self) -> np.ndarray:
        period = self.still + self.hand_frames
        n, i = divmod(self.k, period)
        self.k += 1
        base = self.scenes[n % 2]
        if i < self.hand_frames:
            return hand_over(self.scenes[(n + 1) % 2] if i < self.hand_frames // 2 else base, i)
        if i == self.hand_frames and n > 0:
            with self.lock:
                self.change_times.append(time.monotonic())
        return base


def make_reader(model_dir: str | None):
    from rules.options import find_variant
    from vision.live import live_reader
    from vision.reader import ReaderOptions, TableReader

    try:
        return live_reader(find_variant("sabra"), model_dir), "real tile model, crops read one way as in the live view"
    except Exception as exc:
        print(f"NOTE: no tile model ({exc}); measuring the pipeline minus the network")
        return TableReader(StandInModel(), ReaderOptions(rules=find_variant("sabra"))), "stand-in model (network not included)"


def bench_read_every_frame(reader, frames: list[np.ndarray], seconds: float) -> tuple[float, float]:
    """Frames/s through LiveTable.process with the model run on every still frame,
    and the CPU seconds per frame (all threads): on a busy machine the wall
    clock hides how fast a quiet one would be."""
    from vision.stability import TableStabiliser

    live = LiveTable(ScriptedCamera(frames[0], frames[1]), reader, stabiliser=TableStabiliser(max_votes=10**9))
    live.process(frames[0])
    n, t0, c0 = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        live.process(frames[0])
        n += 1
    assert live.frames_read >= n
    return n / (time.perf_counter() - t0), (time.process_time() - c0) / n


def bench_threaded(reader, a: np.ndarray, b: np.ndarray, changes: int, still_s: float) -> dict:
    camera = ScriptedCamera(a, b, still_s=still_s)
    live = LiveTable(camera, reader)
    added, flagged, removed, fps = [], [], [], []
    with live:
        state = live.wait_for_change(0, timeout=15)
        if state.version == 0:
            raise SystemExit("the table never became stable: nothing to measure")
        for _ in range(changes):
            new = live.wait_for_change(state.version, timeout=15)
            done = time.monotonic()
            if new.version == state.version:
                break
            with camera.lock:
                since = [t for t in camera.change_times if t <= done]
            if since:
                n_old, n_new = (len(s.tiles) for s in (state, new))
                invalid_old, invalid_new = (int(np.count_nonzero(~s.set_valid)) for s in (state, new))
                kind = removed if n_new < n_old else flagged if invalid_new > invalid_old else added
                kind.append(done - since[-1])
            fps.append(live.fps)
            state = new
        dropped = live.buffer.dropped
        captured = live.buffer.count
        processed, read = live.frames_processed, live.frames_read
    return {
        "fps": statistics.median(fps) if fps else 0.0,
        "added": added,
        "flagged": flagged,
        "removed": removed,
        "dropped": dropped,
        "captured": captured,
        "processed": processed,
        "read": read,
    }


def _delays(label: str, values: list[float]) -> None:
    if values:
        d = sorted(x * 1000 for x in values)
        print(f"  {label}: median {statistics.median(d):.0f} ms, max {d[-1]:.0f} ms over {len(d)} changes")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model-dir", help="folder with detector.onnx, classifier.onnx, model.json")
    ap.add_argument("--seconds", type=float, default=8.0, help="length of the read-every-frame run")
    ap.add_argument("--changes", type=int, default=6, help="table changes to time")
    ap.add_argument("--still", type=float, default=3.0, help="seconds each table lies still")
    ap.add_argument("--photos", nargs=2, type=Path, help="the two tables to swap (default: the first two samples)")
    args = ap.parse_args(argv)

    unreadable = [p for p in args.photos or [] if cv2.imread(str(p)) is None]
    if unreadable:
        ap.error(f"--photos: cannot read {', '.join(map(str, unreadable))} as a picture")
    reader, what = make_reader(args.model_dir)
    pics = list(args.photos) if args.photos else photos()
    a = scene(pics[0] if len(pics) > 0 else None, 1)
    b = scene(pics[1] if len(pics) > 1 else None, 2)
    print(f"frames: 1280x720 from {'photos ' + ', '.join(p.name for p in pics[:2]) if pics else 'drawn tables'}")
    print(f"reader: {what}; CPU cores: {os.cpu_count()}; load average: {os.getloadavg()[0]:.2f}")

    worst, cpu = bench_read_every_frame(reader, [a, b], args.seconds)
    print(f"read every frame: {worst:.1f} frames/s ({1000 / worst:.1f} ms per frame, {1000 * cpu:.1f} ms CPU per frame)")

    r = bench_threaded(reader, a, b, args.changes, args.still)
    print(
        f"threaded, 30 fps camera: {r['fps']:.1f} frames/s processed "
        f"({r['processed']} of {r['captured']} captured, {r['dropped']} stale dropped, model run on {r['read']})"
    )
    print("change delay, from the first still frame of the new table to the new version (aim < 300 ms):")
    _delays("tiles added", r["added"])
    _delays("tiles added that show a set more as invalid (waits invalid_seconds: it may be half laid)", r["flagged"])
    _delays("tiles removed (a loss of many waits drop_seconds: a hand may be resting)", r["removed"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
