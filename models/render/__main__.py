"""``python -m models.render --out DIR --count N --seed S [--size WxH] [--workers K] [--edition NAME]``

Writes DIR/images/NNNNNN.jpg, DIR/labels/NNNNNN.txt (``cls x1 y1 ... x4 y4``,
face corners in reading order, normalised), DIR/sets/NNNNNN.txt (which tiles
were laid together: ``set``/``rack`` and label line numbers, as
``vision.datasets`` reads them) and DIR/data.yaml.  Scene ``i``
depends only on (seed, i), so any worker count gives the same files.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from models.render.scene import EXTRA_KINDS, KINDS, SIZES, render_drawn
from models.render.styles import EDITIONS, UNKNOWN_EDITION
from rules.tiles import Tile

KINDS_CHOICES = sorted(set(KINDS) | set(EXTRA_KINDS))


def data_yaml() -> str:
    names = "\n".join(f"  - {Tile.from_index(i).code}" for i in range(53))
    return ("# Rendered Rummikub scenes (python -m models.render)\n"
            "# corners: reading-order (TL, TR, BR, BL of the upright tile face)\n"
            f"path: .\ntrain: images\nval: images\nnc: 53\nnames:\n{names}\n")


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size like 1000x750") from None
    if not (64 <= w <= 8000 and 64 <= h <= 8000):
        raise argparse.ArgumentTypeError(f"{text!r}: width and height must be 64-8000 pixels")
    return w, h


def label_lines(labels, size) -> str:
    w, h = size
    lines = []
    for index, quad in labels:
        pts = (np.asarray(quad, np.float64) / (w, h)).clip(0, 1).ravel()
        lines.append(f"{index} " + " ".join(f"{v:.6f}" for v in pts))
    return "\n".join(lines) + ("\n" if lines else "")


def render_one(job: tuple[str, int, int, tuple[int, int] | None, str | None]) -> int:
    out, seed, i, size, kind, edition = job
    cv2.setNumThreads(1)  # workers run side by side; OpenCV's own threads would only compete
    rng = np.random.default_rng([seed, i])
    if size is None:
        size = SIZES[rng.integers(len(SIZES))]
    drawn = render_drawn(rng, size, kind, edition=edition)
    image, labels = drawn.image, drawn.labels
    name = f"{i:06d}"
    quality = int(rng.integers(55, 96))
    cv2.imwrite(str(Path(out) / "images" / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    (Path(out) / "labels" / f"{name}.txt").write_text(label_lines(labels, (image.shape[1], image.shape[0])))
    (Path(out) / "sets" / f"{name}.txt").write_text("".join(line + "\n" for line in drawn.group_lines()))
    return len(labels)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.render", description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path, help="folder to write (created)")
    parser.add_argument("--count", required=True, type=int, help="number of scenes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=parse_size, default=None,
                        help="WxH of every scene (default: varied, mostly 1000x750 and 750x1000)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--kind", choices=KINDS_CHOICES, default=None,
                        help="one kind of scene only (default: a random kind per scene)")
    parser.add_argument("--start", type=int, default=0, help="index of the first scene (to add to a folder)")
    parser.add_argument("--edition", choices=sorted(EDITIONS), default=None,
                        help=f"every scene in this edition (default: random, never {UNKNOWN_EDITION!r})")
    args = parser.parse_args(argv)
    if args.count < 0:
        parser.error("--count must be 0 or more")
    (args.out / "images").mkdir(parents=True, exist_ok=True)
    (args.out / "labels").mkdir(parents=True, exist_ok=True)
    (args.out / "sets").mkdir(parents=True, exist_ok=True)
    (args.out / "data.yaml").write_text(data_yaml())
    jobs = [(str(args.out), args.seed, i, args.size, args.kind, args.edition)
            for i in range(args.start, args.start + args.count)]
    started, tiles = time.perf_counter(), 0
    cv2.setNumThreads(1)
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            results = pool.map(render_one, jobs, chunksize=8)
            for done, n in enumerate(results, 1):
                tiles += n
                if done % 100 == 0 or done == len(jobs):
                    print(f"rendered {done}/{len(jobs)} scenes", file=sys.stderr, flush=True)
    else:
        for done, job in enumerate(jobs, 1):
            tiles += render_one(job)
            if done % 100 == 0 or done == len(jobs):
                print(f"rendered {done}/{len(jobs)} scenes", file=sys.stderr, flush=True)
    took = time.perf_counter() - started
    print(f"{len(jobs)} scenes, {tiles} labelled tiles in {took:.1f} s -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
