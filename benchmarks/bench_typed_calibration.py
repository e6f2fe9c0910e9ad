"""Teaching a box from a few typed photos, as a club does it: how many typed tiles land right, and what it buys.

    python benchmarks/bench_typed_calibration.py [--edition NAME ...] [--photos 3] [--scenes 20]
        [--seed 7373] [--work runs/typed_calibration]

For each edition, rendered photos (seed ``seed + 1``; racks, or another kind
with ``--teach-kind``) are "typed" as a player would type them: each rack row and each set on the table in reading
order, rows top to bottom, loose tiles left out. ``calibrate`` places the
typed tiles on what the reader finds (``place_typed``) and fits a profile.
Printed per edition:

- placed: typed tiles placed, of them on the right tile (a placed outline
  whose best-overlapping labelled tile, IoU >= 0.5, is the typed one), on
  another tile or on no labelled tile;
- F1 and sets read exactly on ``scenes`` other rendered scenes of the same
  edition (seed ``seed``, every kind of scene): as shipped, with the profile
  from the typed photos, and with a profile from the same photos' true labels
  (what perfect placing would give), so a loss can be told apart as placing's
  or learning's.

The seed is one no other figure uses. Rendering and reading take about a
minute per edition on two cores.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.options import find_variant  # noqa: E402
from rules.tiles import Tile  # noqa: E402
from vision.calibration import CalibrationError, calibrate, place_labelled, place_typed  # noqa: E402
from vision.datasets import LabelledImage, load_folder  # noqa: E402
from vision.evaluation import evaluate, quad_iou  # noqa: E402
from vision.reader import ReaderOptions, TableReader  # noqa: E402


def render(out: Path, count: int, seed: int, edition: str, kind: str | None = None) -> list[LabelledImage]:
    """The rendered folder (made once; a scene depends only on seed and number)."""
    if not (out / "data.yaml").exists() or len(list((out / "images").glob("*.jpg"))) < count:
        command = [sys.executable, "-m", "models.render", "--out", str(out), "--count", str(count),
                   "--seed", str(seed), "--edition", edition, "--workers", "2"]
        subprocess.run(command + (["--kind", kind] if kind else []), check=True, cwd=ROOT)
    return load_folder(out)[:count]


def typed_text(item: LabelledImage) -> str:
    """What a player types for the photo: each set and rack row in reading order, top to bottom."""
    groups = sorted(item.groups or [], key=lambda g: float(item.quads[list(g.tiles)].mean(axis=(0, 1))[1]))
    return " | ".join(" ".join(Tile.from_index(int(item.class_ids[t])).code for t in g.tiles) for g in groups)


def placing(place, item: LabelledImage) -> tuple[int, int, int]:
    """(placed on the typed tile, placed on another labelled tile, placed on no labelled tile)."""
    right = other = nowhere = 0
    for index, quad in zip(place.indices, place.quads):
        ious = [quad_iou(quad, truth) for truth in item.quads]
        best = int(np.argmax(ious)) if ious else -1
        if best < 0 or ious[best] < 0.5:
            nowhere += 1
        elif int(item.class_ids[best]) == index:
            right += 1
        else:
            other += 1
    return right, other, nowhere


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edition", action="append", default=None,
                        help="edition to teach (repeatable; default: modern, heirloom, wooden)")
    parser.add_argument("--photos", type=int, default=3, help="typed photos to teach from")
    parser.add_argument("--scenes", type=int, default=20, help="other scenes to read before and after")
    parser.add_argument("--seed", type=int, default=7373)
    parser.add_argument("--work", type=Path, default=ROOT / "runs" / "typed_calibration")
    parser.add_argument("--teach-kind", default="rack", choices=["rack", "table", "messy", "rows", "scatter"],
                        help="the kind of rendered photo typed (default: rack)")
    parser.add_argument("--verbose", action="store_true", help="print calibrate's problems per photo")
    args = parser.parse_args(argv)
    reader = TableReader.from_model_dir(None, ReaderOptions(rules=find_variant("sabra")))
    model = reader.model
    print("edition         placed  right other none | F1 shipped typed labels | sets shipped typed labels | s")
    for edition in args.edition or ["modern", "heirloom", "wooden"]:
        teach = render(args.work / edition / f"teach_{args.teach_kind}", args.photos, args.seed + 1, edition,
                       kind=args.teach_kind)
        scenes = render(args.work / edition / "scenes", args.scenes, args.seed, edition)
        model.set_profile(None)
        started = time.perf_counter()
        places, counts = [], np.zeros(3, int)
        for item in teach:
            text = typed_text(item)
            if not text:  # no set and no rack row: nothing a player would type
                continue
            place = place_typed(model, item.load(), [[Tile.parse(c).index for c in g.split()] for g in text.split("|")],
                                item.image_path.name)
            places.append(place)
            counts += placing(place, item)
            if args.verbose:
                print(f"  {item.image_path.name}: {text}")
                for problem in place.problems:
                    print(f"    {problem}")
        try:
            typed, _ = calibrate(model, places)
        except CalibrationError as exc:
            typed = None
            print(f"  {edition}: {exc}")
        seconds = time.perf_counter() - started
        labelled, _ = calibrate(model, place_labelled(teach, "labels"))
        figures = []
        for profile in (None, typed, labelled):
            model.set_profile(profile)
            figures.append(evaluate(reader, scenes))
        model.set_profile(None)
        placed = int(counts.sum())
        f1 = "  ".join(f"{e.f1:.3f}" for e in figures)
        sets = "  ".join(f"{e.groups.sets_exact:>3}/{e.groups.sets}" for e in figures)
        print(f"{edition:<15} {placed:>6} {counts[0]:>6} {counts[1]:>5} {counts[2]:>4} | {f1} | {sets} | {seconds:.0f}")


if __name__ == "__main__":
    main()
