"""Sets the photo's edge cuts through: shown unsure, not invalid, when nothing is wrong in sight.

    python benchmarks/bench_edge_cut.py DIR [DIR ...] [--keep 0.7]

Each labelled scene (a YOLO folder with set labels, as ``eval`` takes; the
renderer's scenes have them) is cropped twice, once keeping the left
``keep`` of its width and once the right, so the new edge cuts through
sets, and each crop is read.  Every table set read with at least two tiles
is put beside the labelled set its first matched tile belongs to, judged
whole as it was laid, and counted by what the player sees:

- labelled set valid and cut by the crop: shown valid, unsure past the edge,
  unsure on a doubtful tile, or invalid (a false alarm the crop caused);
- labelled set invalid and cut: shown invalid, unsure past the edge (an
  alarm the edge hid), or valid;
- sets lying wholly inside the crop, for comparison.

Prints one table of counts over all folders.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.options import find_variant  # noqa: E402
from rules.sets import analyse_set  # noqa: E402
from rules.tiles import Tile  # noqa: E402
from vision.datasets import load_folder  # noqa: E402
from vision.evaluation import match_tiles  # noqa: E402
from vision.reader import ReaderOptions, TableReader  # noqa: E402

SHOWN = ("valid", "past edge", "unsure", "invalid")


def shown(s) -> str:
    return "past edge" if s.past_edge else s.status


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", help="YOLO folders with sets/ beside images/")
    ap.add_argument("--keep", type=float, default=0.7, help="share of the width each crop keeps")
    ap.add_argument("--rules", default="sabra", help="rule variant the sets are judged by")
    args = ap.parse_args()
    rules = find_variant(args.rules)
    reader = TableReader.from_model_dir(None, ReaderOptions(rules=rules))
    counts: Counter = Counter()
    scenes = 0
    for folder in args.folders:
        for item in load_folder(folder):
            if not item.groups:
                continue
            image = item.load()
            w = image.shape[1]
            centres = item.quads.mean(axis=1)
            for start, stop in ((0, round(w * args.keep)), (round(w * (1 - args.keep)), w)):
                scenes += 1
                inside = (centres[:, 0] >= start) & (centres[:, 0] < stop)
                reading = reader.read(np.ascontiguousarray(image[:, start:stop]))
                quads = reading.detections.quads + np.array([start, 0], np.float32)
                truth_of = dict(match_tiles(quads, item.quads))
                for s in reading.sets:
                    matched = [truth_of[i] for i in s.indices if i in truth_of]
                    if s.group != "table" or len(s.indices) < 2 or not matched:
                        continue
                    label = next((g for g in item.groups if g.kind == "set" and matched[0] in g.tiles), None)
                    if label is None:
                        continue
                    valid = analyse_set([Tile.from_index(int(item.class_ids[t])) for t in label.tiles], rules).valid
                    cut = not inside[list(label.tiles)].all()
                    counts[("valid" if valid else "invalid", "cut" if cut else "whole", shown(s))] += 1
    print(f"{scenes} crops of {args.keep:.0%} of the width; table sets read (two tiles or more), "
          "by the labelled set they belong to, judged whole as laid")
    print(f"{'labelled set':<28}" + "".join(f"{k:>11}" for k in SHOWN))
    for valid in ("valid", "invalid"):
        for cut in ("cut", "whole"):
            row = f"{valid + ', ' + ('cut by the edge' if cut == 'cut' else 'in sight'):<28}"
            print(row + "".join(f"{counts[(valid, cut, k)]:>11}" for k in SHOWN))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
