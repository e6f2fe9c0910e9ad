"""``rummikub-companion eval``: score the tile model on YOLO-format folders of labelled photos.

Prints detection precision and recall (IoU 0.5), reading accuracy on the
tiles found, end-to-end tile F1, photos read exactly and ms per photo; with
``--holdout`` only the fixed held-out part of each folder is scored (the
photos training never sees), with ``--train-split`` only the rest.

Photos with set labels (a ``sets/`` folder beside ``images/``, or ``--sets
DIR``) are also scored as players see them: sets read exactly, false alarms
(valid sets shown split or invalid), misses (invalid sets shown valid), rack
rows and rack totals, loose tiles.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from cli.rules_args import add_rules_arguments, rules_from


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "eval",
        help="score the tile model on labelled YOLO-format folders",
        description="Score the reader on YOLO-format folders (images/ + labels/ + data.yaml).",
    )
    p.add_argument("folders", nargs="+", metavar="DIR", help="YOLO-format folders")
    p.add_argument("--json", action="store_true", help="one JSON object per folder, then the total")
    split = p.add_mutually_exclusive_group()
    split.add_argument("--holdout", action="store_true", help="score only the held-out photos of each folder")
    split.add_argument("--train-split", action="store_true",
                       help="score only the photos outside the held-out part (to tune on)")
    p.add_argument("--sets", metavar="DIR",
                   help="folder of set labels (<image stem>.txt) for the photos (default: sets/ beside images/)")
    p.add_argument("--only-sets", action="store_true", help="score only photos that have set labels")
    p.add_argument("--problems", action="store_true", help="list every set read wrongly")
    p.add_argument("--model", metavar="DIR", help="folder with model.json and the .onnx files (default: models/)")
    p.add_argument("--profile", metavar="PROFILE",
                   help="read with a box's own tile profile (made by 'rummikub-companion calibrate')")
    p.add_argument("--iou", type=overlap_value, default=0.5, metavar="IOU",
                   help="overlap for a found tile to match a label, above 0 and at most 1 (default 0.5)")
    p.add_argument("--mistakes", type=count_value, default=5, metavar="N",
                   help="list the N most frequent misreadings (default 5; 0 lists none)")
    p.add_argument("--confusion", metavar="CSV", help="write the confusion matrix of all folders together")
    add_rules_arguments(p)  # labelled sets and rack totals are judged under these rules, as read judges
    p.set_defaults(func=run)


def overlap_value(text: str) -> float:
    """``--iou``: above 0 (0 would match a tile to a label it does not touch) and at most 1 (the most two shapes share)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value <= 1.0:  # false for nan too
        raise argparse.ArgumentTypeError(f"{text!r} is not an overlap above 0 and at most 1")
    return value


def count_value(text: str) -> int:
    """``--mistakes N``: how many to list, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count (0 or more)")
    return value


def write_confusion(path: str, result) -> None:
    """Rows: true tile, columns: tile read; '-' is no tile (extra found / label missed)."""
    from rules.tiles import ALL_FACES

    names = [t.code for t in ALL_FACES] + ["-"]
    m = result.confusion()
    lines = ["true\\read," + ",".join(names)]
    lines += [names[i] + "," + ",".join(str(int(v)) for v in row) for i, row in enumerate(m)]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def chosen_photos(folder: str, items: list, args: argparse.Namespace) -> list:
    """The photos of one folder to score: the held-out part or the rest, only those with set labels if asked.

    ValueError when --only-sets leaves none: a score of nothing out of nothing looks perfect.
    """
    from vision.datasets import split_holdout

    chosen, part = items, "photo"
    if args.holdout:
        chosen, part = split_holdout(items)[1], "held-out photo"
    elif args.train_split:
        chosen, part = split_holdout(items)[0], "photo outside the held-out part"
    if not args.only_sets:
        return chosen
    with_sets = [item for item in chosen if item.groups is not None]
    if not with_sets:
        raise ValueError(f"{folder}: no {part} has set labels (looked in {sets_folders(folder, items, args.sets)})")
    return with_sets


def sets_folders(folder: str, items: list, sets: str | None) -> str:
    """Where set labels were looked for: --sets DIR, else the sets/ beside each images/ folder."""
    if sets is not None:
        return sets
    found = sorted({str(item.image_path.parent.parent / "sets") for item in items})
    return ", ".join(found) or f"sets/ beside images/ in {folder}"


def run(args: argparse.Namespace) -> int:
    from vision.datasets import load_folder
    from vision.evaluation import Evaluation, evaluate, format_set_table, format_table
    from cli.calibrate import load_reader
    from cli.outputs import output_problem
    from vision.reader import ReaderOptions

    try:
        rules = rules_from(args)
    except ValueError as exc:
        print(f"rummikub-companion eval: {exc}", file=sys.stderr)
        return 2
    problem = output_problem(args.confusion) if args.confusion is not None else None
    if problem:  # said now, not after the whole evaluation
        print(f"rummikub-companion eval: --confusion {args.confusion}: {problem}", file=sys.stderr)
        return 2
    folders, labelled = [], False
    for folder in args.folders:
        try:
            items = load_folder(folder, sets=args.sets)
            labelled = labelled or any(item.groups is not None for item in items)
            folders.append((folder, chosen_photos(folder, items, args)))
        except (FileNotFoundError, ValueError) as exc:
            print(f"rummikub-companion eval: {exc}", file=sys.stderr)
            return 1
    if args.sets is not None and not labelled:  # else the sets table just goes missing
        print(f"rummikub-companion eval: warning: no set label in {args.sets} is named after a photo "
              "(<image stem>.txt); sets are not scored", file=sys.stderr)
    # the labelled photos are tables of the standard box, judged as Sabra sets unless --rules says otherwise
    reader = load_reader("rummikub-companion eval", args, ReaderOptions(rules=rules))
    if reader is None:
        return 1

    rows = []
    counting = not args.json and sys.stderr.isatty()  # a counter drawn with \r is noise in a log file
    for folder, items in folders:
        def progress(done, total, folder=folder):
            print(f"\r{folder}: {done}/{total}", end="", file=sys.stderr, flush=True)

        result = evaluate(reader, items, iou=args.iou, progress=progress if counting else None)
        if counting:
            print(file=sys.stderr)
        rows.append((folder, result))
        if args.json:
            print(json.dumps({"folder": folder, "holdout": args.holdout, **result.to_dict()}), flush=True)
    total = Evaluation([p for _, e in rows for p in e.photos], args.iou)
    if args.confusion:
        try:
            write_confusion(args.confusion, total)
        except OSError as exc:  # the folder went away or filled up meanwhile
            print(f"rummikub-companion eval: --confusion {args.confusion}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    if args.json:
        if len(rows) > 1:
            print(json.dumps({"folder": None, "holdout": args.holdout, **total.to_dict()}))
        return 0
    if len(rows) > 1:
        rows.append(("all", total))
    print(format_table(rows))
    set_table = format_set_table(rows)
    if set_table:
        print()
        print(set_table)
    if args.problems:
        for problem in total.groups.problems:
            print("  " + problem)
    worst = total.mistakes(args.mistakes)
    if worst:
        print("most frequent misreadings (true -> read, '-' = no tile): "
              + ", ".join(f"{t} -> {r} x{n}" for t, r, n in worst))
    return 0
