"""Sets read right in close-ups: each labelled set cut from its photo and enlarged, as a phone held close to it.

    python benchmarks/bench_closeups.py DIR [--sets DIR] [--holdout | --train-split] [--widths 600,1000,2000]

Each table set of a labelled photo (YOLO folder with set labels, as ``eval``
takes) is cut out with half a tile of table round it and enlarged to each
width (tiles then about 150-600 px tall).  A set whose cut would slice
through another tile is left out (a sliced tile has no label to judge it
by); tiles of other sets lying wholly inside the cut stay and must be read
as their own sets.  Prints, per width, how many sets were read as exactly
one set of exactly their tiles, and how many valid sets were shown invalid.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.options import find_variant  # noqa: E402
from rules.sets import analyse_set  # noqa: E402
from rules.tiles import Tile  # noqa: E402
from vision.datasets import LabelledImage  # noqa: E402
from vision.reader import ReaderOptions, TableReader  # noqa: E402

from bench_views import labelled_photos, photos_parser  # noqa: E402

MARGIN = 0.5  # table round the set, in tile heights


def closeups(item: LabelledImage):
    """(crop, labelled tiles inside it, tiles of the set) per table set whose cut slices no tile."""
    image, quads = item.load(), item.quads
    h, w = image.shape[:2]
    for group in item.groups or []:
        if group.kind == "rack":
            continue
        tiles = list(group.tiles)
        height = float(np.median([np.linalg.norm(quads[t][0] - quads[t][3]) for t in tiles]))
        corners = quads[tiles].reshape(-1, 2)
        x0, y0 = np.maximum(corners.min(axis=0) - MARGIN * height, 0).astype(int)
        x1, y1 = np.minimum(corners.max(axis=0) + MARGIN * height, (w, h)).astype(int)
        lo, hi = quads.min(axis=1), quads.max(axis=1)  # each tile's box
        inside = (lo[:, 0] >= x0) & (lo[:, 1] >= y0) & (hi[:, 0] <= x1) & (hi[:, 1] <= y1)
        overlaps = (hi[:, 0] > x0) & (lo[:, 0] < x1) & (hi[:, 1] > y0) & (lo[:, 1] < y1)
        if (overlaps & ~inside).any():
            continue
        yield image[y0:y1, x0:x1], np.nonzero(inside)[0], tiles


def main(argv=None) -> int:
    parser = photos_parser(__doc__.splitlines()[0])
    parser.add_argument("--widths", default="600,1000,2000", help="comma-separated widths in pixels")
    args = parser.parse_args(argv)
    widths = [int(v) for v in args.widths.split(",")]
    items = labelled_photos(args)
    rules = find_variant("sabra")
    reader = TableReader.from_model_dir(args.model, ReaderOptions(rules=rules))
    cuts = [(item, cut) for item in items for cut in closeups(item)]
    print(f"{len(cuts)} sets cut out whole")
    print(f"{'width':>6s} {'tile px':>8s} {'sets exact':>11s} {'false alarms':>13s}")
    for width in widths:
        exact = alarms = valid_sets = 0
        heights = []
        for item, (crop, inside, tiles) in cuts:
            scale = width / crop.shape[1]
            reading = reader.read(cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC))
            truth = sorted(int(item.class_ids[t]) for t in tiles)
            ids = reading.detections.class_ids
            shown = [s for s in reading.sets if s.group == "table"
                     and sorted(int(ids[i]) for i in s.indices) == truth]
            exact += bool(shown) and len(reading.detections) == len(inside)
            if analyse_set([Tile.from_index(c) for c in truth], rules).valid:
                valid_sets += 1
                alarms += not any(s.valid or s.unsure for s in shown)
            heights.append(scale * float(np.median(np.linalg.norm(item.quads[tiles, 0] - item.quads[tiles, 3], axis=1))))
        print(f"{width:6d} {np.median(heights) if heights else 0:8.0f} {exact:>5d}/{len(cuts):<5d} "
              f"{alarms:>6d}/{valid_sets:<6d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
