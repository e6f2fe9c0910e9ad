"""``rummikub-companion calibrate``: teach the reader a box of tiles, write a profile file.

    rummikub-companion calibrate --out PROFILE [--layout PHOTO ...]
        [--photo PHOTO --tiles "R1 R2 R3 | B4 B5 B6" ...] [--labels YOLO_DIR ...]

Prints what could not be placed and, per tile, how sure the reader was of
the right face before and after, on the tiles it was taught from. A photo
that does not show the tiles typed for it (more than a quarter of them not
found, or of those placed showing another colour:
``vision.calibration.mismatch``) is refused and nothing is written.
``read``, ``eval`` and ``serve`` use the result with ``--profile PROFILE``. Exit code 0 when the profile was written,
1 when nothing could be learned (or written), 2 for usage errors (an --out
that cannot be written, names one of the photos or does not end in .npz
included, said before any learning).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

PROG = "rummikub-companion calibrate"


def add_parser(subparsers) -> None:
    from vision.calibration import LAYOUT_TEXT

    p = subparsers.add_parser(
        "calibrate",
        help="teach the reader your box of tiles from a few photos (writes a profile)",
        description="Adapt the tile reader to a box of tiles from photos whose tiles are known. "
                    f"A layout photo shows one of each tile in this order, row by row: {LAYOUT_TEXT}.",
    )
    p.add_argument("--out", required=True, metavar="PROFILE", help="profile file to write (.npz)")
    p.add_argument("--layout", action="append", default=[], metavar="PHOTO",
                   help="a photo of one of each tile in the layout order (may be repeated)")
    p.add_argument("--photo", action="append", default=[], metavar="PHOTO",
                   help="a photo of any tiles; give its tiles with the --tiles that follows it")
    p.add_argument("--tiles", action="append", default=[], metavar="TILES",
                   help='the tiles of the preceding --photo in reading order, "|" between rows or sets')
    p.add_argument("--labels", action="append", default=[], metavar="YOLO_DIR",
                   help="a YOLO-format folder of labelled photos (images/, labels/, data.yaml)")
    p.add_argument("--model", metavar="DIR", help="folder with model.json and the .onnx files (default: models/)")
    p.add_argument("--quiet", action="store_true", help="print only problems and the summary")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from vision.calibration import (LAYOUT, CalibrationError, calibrate, mismatch, parse_typed, place_labelled,
                                    place_typed)
    from vision.datasets import load_folder
    from vision.images import ImageError, load_image
    from vision.model import TileModel

    started = time.perf_counter()
    if len(args.photo) != len(args.tiles):
        print(f"{PROG}: each --photo needs one --tiles (got {len(args.photo)} --photo and "
              f"{len(args.tiles)} --tiles)", file=sys.stderr)
        return 2
    if not (args.layout or args.photo or args.labels):
        print(f"{PROG}: nothing to learn from: give --layout, --photo/--tiles or --labels", file=sys.stderr)
        return 2
    try:
        typed = [parse_typed(t) for t in args.tiles]
    except CalibrationError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    problem = out_problem(args)
    if problem:
        print(f"{PROG}: --out {args.out}: {problem}", file=sys.stderr)
        return 2
    try:
        model = TileModel.load(args.model)
    except (FileNotFoundError, ValueError) as exc:
        print(f"{PROG}: cannot load the tile model: {exc}", file=sys.stderr)
        return 1

    jobs = [(path, [list(r) for r in LAYOUT]) for path in args.layout] + list(zip(args.photo, typed))
    places = []
    for path, groups in jobs:
        try:
            image = load_image(path)
        except (ImageError, OSError, ValueError) as exc:
            print(f"{PROG}: {exc}", file=sys.stderr)
            continue
        places.append(place_typed(model, image, groups, path))
    for folder in args.labels:
        try:
            places += place_labelled(load_folder(folder), folder)
        except (FileNotFoundError, ValueError) as exc:
            print(f"{PROG}: {exc}", file=sys.stderr)
    for place in places:
        for problem in place.problems:
            print(f"warning: {problem}", file=sys.stderr)
        if not args.quiet:
            print(f"{place.source}: {len(place.indices)} tiles placed")
    wrong = [problem for problem in map(mismatch, places) if problem]
    for problem in wrong:
        print(f"{PROG}: {problem}; no profile written", file=sys.stderr)
    if wrong:
        return 1
    try:
        profile, reports = calibrate(model, places)
    except CalibrationError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    try:
        profile.save(args.out)
    except OSError as exc:  # the folder went away or filled up while learning
        print(f"{PROG}: --out {args.out}: cannot write the profile: {exc.strerror or exc}", file=sys.stderr)
        return 1
    if profile.info.get("not_learned"):
        print(f"warning: not learned: {' '.join(profile.info['not_learned'])}: each was placed without as many of "
              "the other of its colour (a 6 and a 9 are one numeral turned: taught unevenly, one is read for the "
              "other), and the reader already reads this box; add photos that show both as often", file=sys.stderr)
    if profile.info.get("learned_alone"):
        print(f"warning: learned without the other of its colour: {' '.join(profile.info['learned_alone'])}: "
              "a 6 and a 9 are one numeral turned, so the other may now be read as it; add a photo that shows both",
              file=sys.stderr)
    kept = profile.info.get("read_already", [])
    learned = [r.code for r in reports if r.code not in kept]
    if kept and learned:  # with nothing learned, the summary says so, once
        print(f"the reader already reads this box: {len(kept)} face{'s' * (len(kept) != 1)} placed "
              f"{'were' if len(kept) != 1 else 'was'} read right before learning and keep the shipped reading, as "
              f"does every face not placed; learned: {' '.join(learned)}")
    if not args.quiet:
        print(f"{'tile':<5} {'crops':>5} {'before':>7} {'after':>7}  read before -> after")
        for r in reports:
            print(f"{r.code:<5} {r.examples:>5} {r.before:>7.2f} {r.after:>7.2f}  {r.read_before} -> {r.read_after}")
    held = profile.info.get("held_back", [])
    if held:  # placed and read right, left out of the table above: say so, or the counts disagree
        print(f"placed and read right, kept as shipped and not counted below: {' '.join(held)} "
              "(a 6 and a 9 are one numeral turned; each was placed without as many of the other of its colour)")
    print(f"{summary(reports, learned, places)}; wrote {args.out} in {time.perf_counter() - started:.0f} s")
    return 0


def summary(reports: list, learned: list[str], places: list) -> str:
    """What was learned, from what, and how well the tiles taught are read before and after.

    The faces a box's reader reads right keep the shipped reading
    (``read_already``): only ``learned`` ones count as taught, and with none
    the profile reads as shipped, so no figures of before and after are shown.
    """
    source = (f"{sum(len(p.indices) for p in places)} placed tiles in {len(places)} "
              f"photo{'s' * (len(places) != 1)}")
    if not learned:
        return (f"nothing learned from {source}: every face placed was read right already and keeps the shipped "
                "reading, as does every face not placed")
    taught = f"{len(learned)} of {len(reports)}" if len(learned) < len(reports) else f"{len(reports)}"
    mean = lambda xs: sum(xs) / max(1, len(xs))  # noqa: E731
    return (f"taught {taught} tile face{'s' * (len(reports) != 1)} from {source}: right face read for "
            f"{sum(r.read_before == r.code for r in reports)} -> {sum(r.read_after == r.code for r in reports)} "
            f"of {len(reports)}, mean confidence {mean([r.before for r in reports]):.2f} -> "
            f"{mean([r.after for r in reports]):.2f}, on the tiles it was taught from")


def out_problem(args: argparse.Namespace) -> str | None:
    """Why no profile may be written at ``--out``, or None: said before any learning.

    A photo's name typed as --out (``--out rack.jpg --photo rack.jpg``) would
    have the photo replaced by the profile, and a name without .npz is most
    likely such a slip, so both are refused before the folder is made or tried.
    """
    from cli.outputs import output_problem, same_file

    for option, paths in (("--layout", args.layout), ("--photo", args.photo), ("--labels", args.labels)):
        if any(same_file(args.out, path) for path in paths):
            return (f"is also given as {option}, which the profile would replace; "
                    "give a new file ending in .npz")
    target = Path(args.out)
    if args.out.strip() and not target.is_dir() and target.suffix.lower() != ".npz":
        return f"the profile file must end in .npz (for example {target.with_suffix('.npz').name})"
    return output_problem(args.out, make_folder=True)  # the profile's save makes missing folders too


def load_reader(prog: str, args: argparse.Namespace, options):
    """The reader ``read`` and ``eval`` use (``--model``, and ``--profile`` when one was given), or None
    once what went wrong is said: a --profile file that is no profile names itself, anything else is
    the model's."""
    from vision.profile import ProfileError
    from vision.reader import TableReader

    try:
        return TableReader.from_model_dir(args.model, options, **({"profile": args.profile} if args.profile else {}))
    except ProfileError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
    except (FileNotFoundError, ValueError) as exc:
        print(f"{prog}: cannot load the tile model: {exc}", file=sys.stderr)
    return None
