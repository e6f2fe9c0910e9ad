"""Sets read right on crowded tables of real tiles: labelled sets cut from real photos and laid on a real table.

    python benchmarks/bench_composites.py DIR [--sets DIR] [--holdout | --train-split] [--scenes 30] [--seed 0]

The real photos show few sets each, laid tidily; a club table holds many
at every angle, some touching.  Each scene here takes a photo of an empty
table from the folder (``--tables``: stems; by default the dataset's
backgrounds, its photo of a bare rack left out) and lays on it up to
``--per-scene`` sets cut from the labelled photos of the split asked for:
each set's tiles only (their outlines, a little grown), scaled so that
tiles stand ``--tile-px`` tall (drawn per scene), turned to any angle and
put down where it covers no tile, from touching the nearest tile to half a
tile away.  The tiles and the tables are real; their arrangement is drawn.
Prints tile F1 and the set figures ``eval`` prints, over all scenes.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.options import find_variant  # noqa: E402
from vision.datasets import GroupLabel, LabelledImage, load_folder  # noqa: E402
from vision.evaluation import evaluate  # noqa: E402
from vision.geometry import scaled_about_centres  # noqa: E402
from vision.reader import ReaderOptions, TableReader  # noqa: E402

from bench_views import labelled_photos, photos_parser  # noqa: E402

GROWN = 1.02  # a cut set's outlines grown this much about each tile's centre: its edges, hardly its table
GAP = (0.0, 0.5)  # table left between a laid set and the nearest tile, in tile heights
TRIES = 60  # places tried for each set before it is left out
TABLES = ("rummyBackground-5", "rummyBackground-6", "rummyBackground-8", "rummyBackground-9", "rummyBackground-10")


def tile_height(quads: np.ndarray) -> float:
    """The median long side of these tile outlines."""
    sides = np.linalg.norm(quads - np.roll(quads, 1, axis=1), axis=2)
    return float(np.median(sides.max(axis=1)))


def _fill(shape: tuple[int, int], quads: np.ndarray) -> np.ndarray:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, list(np.round(quads).astype(np.int32)), 255)
    return mask


def compose(table: np.ndarray, size: float, cuts: list[tuple[LabelledImage, GroupLabel]],
            rng: np.random.Generator, out: Path) -> LabelledImage:
    """The photo of an empty ``table`` with each of ``cuts`` laid on it where it fits, its tiles
    ``size`` px tall (give or take 10%); written to ``out``, with its labels."""
    canvas = table.astype(np.float32)
    h, w = canvas.shape[:2]
    quads, classes, groups = [np.zeros((0, 4, 2), np.float32)], [np.zeros(0, np.int64)], []
    taken = np.zeros((h, w), np.uint8)
    count = 0
    for donor, group in cuts:
        tiles = list(group.tiles)
        q = donor.quads[tiles].astype(np.float32)
        scale = size / tile_height(q) * rng.uniform(0.9, 1.1)
        centre = q.reshape(-1, 2).mean(axis=0)
        gap = rng.uniform(*GAP) * size
        ring = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * int(gap) + 1, 2 * int(gap) + 1))
        near = cv2.dilate(taken, ring) if gap >= 1 else taken
        for _ in range(TRIES):
            m = cv2.getRotationMatrix2D(tuple(float(v) for v in centre), rng.uniform(0, 360), scale)
            m[:, 2] += rng.uniform((0, 0), (w, h)) - centre
            moved = cv2.transform(q.reshape(-1, 1, 2), m).reshape(-1, 4, 2)
            if moved.min() < 2 or (moved[..., 0].max() > w - 3) or (moved[..., 1].max() > h - 3):
                continue
            mask = _fill((h, w), scaled_about_centres(moved, GROWN))
            if (mask & near).any():
                continue
            image = cv2.warpAffine(donor.load(), m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            alpha = cv2.GaussianBlur(mask, (3, 3), 0).astype(np.float32)[..., None] / 255
            canvas = canvas * (1 - alpha) + image.astype(np.float32) * alpha
            taken |= mask
            quads.append(moved.astype(np.float32))
            classes.append(donor.class_ids[tiles])
            groups.append(GroupLabel(group.kind, tuple(range(count, count + len(tiles)))))
            count += len(tiles)
            break
    cv2.imwrite(str(out), np.clip(canvas, 0, 255).astype(np.uint8))
    return LabelledImage(out, np.concatenate(quads), np.concatenate(classes), False, groups)


def main(argv=None) -> int:
    parser = photos_parser(__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=30)
    parser.add_argument("--per-scene", type=int, default=20, help="sets laid on each table (fewer where none fits)")
    parser.add_argument("--tile-px", default="45,90", help="smallest,largest tile height drawn for a scene")
    parser.add_argument("--tables", default=",".join(TABLES), help="stems of photos of empty tables in DIR")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", help="write the scenes into this folder (to look at them)")
    parser.add_argument("--problems", action="store_true", help="print each set read wrong")
    args = parser.parse_args(argv)
    items = labelled_photos(args)
    cuts = [(item, g) for item in items for g in item.groups if g.kind != "rack"]
    stems = args.tables.split(",")
    tables = [item.load() for item in load_folder(args.folder) if any(item.image_path.stem.startswith(stem + "_")
                                                                      or item.image_path.stem == stem for stem in stems)]
    if not tables or not cuts:
        parser.error("no photo of an empty table of those stems, or no labelled set, in that folder and split")
    low, high = (float(v) for v in args.tile_px.split(","))
    rng = np.random.default_rng(args.seed)
    reader = TableReader.from_model_dir(args.model, ReaderOptions(rules=find_variant("sabra")))
    with tempfile.TemporaryDirectory() as tmp:
        if args.keep:
            Path(args.keep).mkdir(parents=True, exist_ok=True)
        scenes = []
        for k in range(args.scenes):
            pick = rng.choice(len(cuts), size=min(args.per_scene, len(cuts)), replace=False)
            scenes.append(compose(tables[k % len(tables)], rng.uniform(low, high), [cuts[i] for i in pick], rng,
                                  Path(args.keep or tmp) / f"scene_{k:03d}.png"))
        result = evaluate(reader, scenes)
    if args.problems:
        for photo in result.photos:
            for problem in photo.groups.problems:
                print(problem)
    d = result.to_dict()
    print(f"{len(scenes)} scenes on {len(tables)} tables, {d['tiles']} tiles, {d['sets']} sets ({d['valid_sets']} valid)")
    print(f"tile F1 {d['f1']:.3f}  sets exact {d['sets_exact']}/{d['sets']}  "
          f"false alarms {d['false_alarms']}/{d['valid_sets']}  invalid shown valid {d['misses']}/{d['invalid_sets']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
