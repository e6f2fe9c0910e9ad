"""Sets read right when the same labelled photos are taken another way: turned, slanted, farther, overexposed, shaken.

    python benchmarks/bench_views.py DIR [--sets DIR] [--holdout | --train-split] [--views a,b,...]

Each labelled photo (YOLO folder with set labels, as ``eval`` takes) is
warped as a camera held differently would show it, its labels warped with
it, and read again:

- ``turned20`` / ``turned-30``: the phone turned in the hand (roll);
- ``seat85`` / ``seat75`` / ``seat60``: foreshortened to that share of the
  table's depth (a camera about 58, 49 and 37 degrees above the table);
- ``slant15`` / ``slant25``: a perspective whose far edge is 30 % / 50 %
  narrower than the near one;
- ``far60`` / ``far45``: the camera farther away, the scene shrunk to 60 % /
  45 % of its size in a frame of the same size (tiles about 20-40 px tall at
  45 %).
- ``bright13`` / ``bright15``: overexposed, every pixel times 1.3 plus 20 /
  times 1.5 plus 30, clipped (a flash or a lamp over white tiles: faces that
  touch merge into one white patch);
- ``shake9``: the phone moved as it took the photo, a 9 px sideways blur;
- ``turned90`` / ``turned-90`` / ``turned180``: the picture left on its side
  either way (a phone that wrote no EXIF turn) or taken from across the table;
- ``warm`` / ``cool``: a lamp's colour the camera did not balance away
  (blue x0.7, green x0.95, red x1.15; blue x1.15, red x0.8);
- ``grain12``: noise of 12 grey levels (a dim room the phone brightened);
- ``jpeg20``: saved as a JPEG of quality 20.

The corners a warp uncovers are filled with the table's own colour (the
photo's median away from any tile), so no edge is mistaken for a rack.
Prints, per view, tile F1 and the set figures ``eval`` prints.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.options import find_variant  # noqa: E402
from vision.datasets import LabelledImage, load_folder, split_holdout  # noqa: E402
from vision.evaluation import evaluate  # noqa: E402
from vision.reader import ReaderOptions, TableReader  # noqa: E402


def _warp(image: np.ndarray, quads: np.ndarray, matrix: np.ndarray, size: tuple[int, int]):
    """The photo and its label quads under a 3x3 ``matrix``; uncovered corners get the table's colour."""
    tiles = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(tiles, list(np.round(quads).astype(np.int32)), 1)
    table = cv2.dilate(tiles, np.ones((41, 41), np.uint8)) == 0
    fill = np.median(image[table] if table.any() else image.reshape(-1, 3), axis=0)
    out = cv2.warpPerspective(image, matrix, size, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=[float(v) for v in fill])
    moved = cv2.perspectiveTransform(quads.reshape(-1, 1, 2).astype(np.float64), matrix).reshape(-1, 4, 2)
    return out, moved.astype(np.float32)


def turned(degrees: float):
    def view(image, quads):
        h, w = image.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
        c, s = abs(m[0, 0]), abs(m[0, 1])
        size = (int(h * s + w * c), int(h * c + w * s))
        m[:, 2] += (size[0] / 2 - w / 2, size[1] / 2 - h / 2)
        return _warp(image, quads, np.vstack([m, [0, 0, 1]]), size)
    return view


def seat(depth: float):
    def view(image, quads):
        h, w = image.shape[:2]
        return _warp(image, quads, np.diag([1.0, depth, 1.0]), (w, max(1, round(h * depth))))
    return view


def slant(share: float):
    def view(image, quads):
        h, w = image.shape[:2]
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = np.float32([[w * share, 0], [w * (1 - share), 0], [w, h], [0, h]])
        return _warp(image, quads, cv2.getPerspectiveTransform(src, dst), (w, h))
    return view


def overexposed(gain: float, lift: float):
    def view(image, quads):
        return np.clip(image.astype(np.float32) * gain + lift, 0, 255).astype(np.uint8), quads
    return view


def shaken(pixels: int):
    def view(image, quads):
        return cv2.filter2D(image, -1, np.full((1, pixels), 1 / pixels, np.float32)), quads
    return view


def tinted(gains: tuple[float, float, float]):
    """Every channel (B, G, R) times its gain: a lamp's colour the camera did not balance away."""
    def view(image, quads):
        return np.clip(image.astype(np.float32) * np.float32(gains), 0, 255).astype(np.uint8), quads
    return view


def noisy(sigma: float, seed: int = 0):
    """Grain of that many grey levels: a dim room the phone brightened."""
    def view(image, quads):
        grain = np.random.default_rng(seed).normal(0.0, sigma, image.shape).astype(np.float32)
        return np.clip(image.astype(np.float32) + grain, 0, 255).astype(np.uint8), quads
    return view


def compressed(quality: int):
    def view(image, quads):
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return cv2.imdecode(data, cv2.IMREAD_COLOR), quads
    return view


def farther(share: float):
    def view(image, quads):
        h, w = image.shape[:2]
        m = np.array([[share, 0, w * (1 - share) / 2], [0, share, h * (1 - share) / 2], [0, 0, 1]])
        return _warp(image, quads, m, (w, h))
    return view


VIEWS = {"as_taken": None, "turned20": turned(20), "turned-30": turned(-30), "seat85": seat(0.85),
         "seat75": seat(0.75), "seat60": seat(0.6), "slant15": slant(0.15), "slant25": slant(0.25),
         "far60": farther(0.6), "far45": farther(0.45), "bright13": overexposed(1.3, 20),
         "bright15": overexposed(1.5, 30), "shake9": shaken(9), "turned90": turned(90), "turned-90": turned(-90),
         "turned180": turned(180), "warm": tinted((0.7, 0.95, 1.15)), "cool": tinted((1.15, 1.0, 0.8)),
         "grain12": noisy(12), "jpeg20": compressed(20)}


def photos_parser(description: str) -> argparse.ArgumentParser:
    """The arguments every bench of labelled photos takes: the folder, its set labels, the split, the model."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("folder")
    parser.add_argument("--sets", help="folder of set labels (default: sets/ beside images/)")
    split = parser.add_mutually_exclusive_group()
    split.add_argument("--holdout", action="store_true")
    split.add_argument("--train-split", action="store_true")
    parser.add_argument("--model", default=None)
    return parser


def labelled_photos(args: argparse.Namespace) -> list[LabelledImage]:
    """The photos of ``args.folder`` (in the split asked for) that have set labels."""
    items = load_folder(args.folder, sets=args.sets)
    if args.holdout or args.train_split:
        items = split_holdout(items)[1 if args.holdout else 0]
    return [item for item in items if item.groups is not None]


def main(argv=None) -> int:
    parser = photos_parser(__doc__.splitlines()[0])
    parser.add_argument("--views", default=",".join(VIEWS), help="comma-separated, of: " + ", ".join(VIEWS))
    args = parser.parse_args(argv)
    unknown = [v for v in args.views.split(",") if v not in VIEWS]
    if unknown:
        parser.error(f"unknown view(s): {', '.join(unknown)}")
    items = labelled_photos(args)
    reader = TableReader.from_model_dir(args.model, ReaderOptions(rules=find_variant("sabra")))
    print(f"{len(items)} photos with set labels")
    print(f"{'view':10s} {'F1':>6s} {'sets exact':>12s} {'false alarms':>13s} {'rack rows':>10s} {'totals':>7s}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.views.split(","):
            view = VIEWS[name]
            seen = []
            for k, item in enumerate(items):
                if view is None:
                    seen.append(item)
                    continue
                image, quads = view(item.load(), item.quads.astype(np.float32))
                path = Path(tmp) / f"{name}_{k}.png"
                cv2.imwrite(str(path), image)
                seen.append(LabelledImage(path, quads, item.class_ids, item.ordered, item.groups))
            d = evaluate(reader, seen).to_dict()
            print(f"{name:10s} {d['f1']:6.3f} {d['sets_exact']:>5d}/{d['sets']:<6d} "
                  f"{d['false_alarms']:>6d}/{d['valid_sets']:<6d} {d['rack_rows_exact']:>4d}/{d['rack_rows']:<5d} "
                  f"{d['rack_totals_right']:>3d}/{d['rack_photos']:<3d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
