"""A 30000x30000 PNG of a few MB ("image bomb") through every way a picture comes in.

Each case runs in a fresh subprocess; the figures are its wall time and peak
resident memory (ru_maxrss from wait4), beside the same command on a small
sound photo, so what the bomb adds is plain.  The bomb is a real, complete PNG
(2.7 GB of zero pixels when decoded), written once to --work.

    python benchmarks/bench_image_bomb.py [--work DIR]
"""

from __future__ import annotations

import argparse
import os
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SIDE = 30000


def write_bomb(path: Path, side: int = SIDE) -> None:
    """A valid RGB PNG of side x side zero pixels, compressed row by row (no big buffer here either)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    row = b"\x00" * (1 + 3 * side)
    z = zlib.compressobj(9)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)))
        parts = [z.compress(row) for _ in range(side)]
        f.write(chunk(b"IDAT", b"".join(parts) + z.flush()))
        f.write(chunk(b"IEND", b""))


def write_dataset(folder: Path, image: Path) -> None:
    """A one-photo YOLO folder for ``eval``."""
    (folder / "images").mkdir(parents=True, exist_ok=True)
    (folder / "labels").mkdir(exist_ok=True)
    target = folder / "images" / image.name
    if not target.exists():
        os.link(image, target) if image.stat().st_dev == folder.stat().st_dev else target.write_bytes(image.read_bytes())
    (folder / "labels" / (image.stem + ".txt")).write_text("")
    (folder / "data.yaml").write_text("names:\n- black_1\n- red_1\n")


def measure(cmd: list[str]) -> tuple[float, float, int, str]:
    """(seconds, peak MB, exit status, last line of stderr) of one subprocess."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - start
    lines = [line for line in err.strip().splitlines() if line.strip()]
    return seconds, usage.ru_maxrss / 1024, proc.returncode, (lines[-1] if lines else "")


LOAD = "from vision.images import load_image, ImageError\ntry:\n    load_image({path!r})\nexcept ImageError as e:\n    raise SystemExit(str(e))"
FOLDER = ("from vision.capture import FolderSource, CaptureThread\nimport time\n"
          "c = CaptureThread(FolderSource({path!r}, seconds_per_image=0.1, fps=10)).start()\n"
          "end = time.monotonic() + 10\n"
          "while time.monotonic() < end and not (c.camera_error or c.buffer.count):\n    time.sleep(0.01)\n"
          "c.stop()\nraise SystemExit(c.camera_error or 'frames: %d' % c.buffer.count)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default="/tmp/rummikub-bomb", help="folder for the bomb and its dataset")
    args = ap.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    bomb = work / "bomb.png"
    if not bomb.exists():
        t = time.monotonic()
        write_bomb(bomb)
        print(f"wrote {bomb}: {bomb.stat().st_size / 1e6:.1f} MB file, {SIDE}x{SIDE} pixels "
              f"({3 * SIDE * SIDE / 1e9:.1f} GB decoded) in {time.monotonic() - t:.0f} s")
    sound = ROOT / "sample_images" / "invalid_table.jpg"
    for name, image in (("bomb", bomb), ("sound", sound)):
        write_dataset(work / f"dataset-{name}", image)
        (work / f"folder-{name}").mkdir(exist_ok=True)
        target = work / f"folder-{name}" / image.name
        if not target.exists():
            target.write_bytes(image.read_bytes())

    import resource

    from vision.images import ImageError, load_image

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    try:
        load_image(bomb)
    except ImageError as exc:
        refusal = str(exc)
    ms = (time.perf_counter() - t) * 1000
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(f"the refusal itself (in this process): {ms:.1f} ms, peak memory grew {grown:.0f} MB: {refusal}")
    py = sys.executable
    print(f"{'case':<34}{'picture':<8}{'seconds':>9}{'peak MB':>9}{'exit':>6}  message")
    for case, build in [
        ("vision.images.load_image", lambda n, p: [py, "-c", LOAD.format(path=str(p))]),
        ("rummikub-companion read", lambda n, p: [py, "-m", "cli", "read", str(p)]),
        ("rummikub-companion eval", lambda n, p: [py, "-m", "cli", "eval", str(work / f"dataset-{n}")]),
        ("folder source (serve --source)", lambda n, p: [py, "-c", FOLDER.format(path=str(work / f"folder-{n}"))]),
    ]:
        for name, image in (("bomb", bomb), ("sound", sound)):
            seconds, peak, code, message = measure(build(name, image))
            print(f"{case:<34}{name:<8}{seconds:9.2f}{peak:9.0f}{code:6d}  {message[:110]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
