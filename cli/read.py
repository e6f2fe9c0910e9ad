"""``rummikub-companion read``: read photos of the table, print the tiles and sets, draw them.

The model is loaded once for all the photos.  A photo that cannot be read is
reported on stderr by name and the others are still read; the exit code is 1
when any photo failed, 0 when all were read (2 for usage errors, as argparse).
"""

from __future__ import annotations

import argparse
import json
import math
import mimetypes
import sys
from pathlib import Path

from cli.rules_args import add_rules_arguments, rules_from

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "read",
        help="read the tiles and sets in photos of the table",
        description="Find every face-up tile, read it, rebuild the sets and judge them.",
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (JPEG, PNG, ...)")
    p.add_argument("--json", action="store_true", help="one JSON object per photo, in order (JSON Lines)")
    p.add_argument("--annotate", metavar="OUT", type=annotate_target,
                   help="draw the reading: a file for one photo "
                        f"({', '.join(sorted(IMAGE_SUFFIXES))}), a folder for several")
    add_rules_arguments(p)  # the rules the sets are judged by, as check and turn take them
    p.add_argument("--model", metavar="DIR", help="folder with model.json and the .onnx files (default: models/)")
    p.add_argument("--profile", metavar="PROFILE",
                   help="read with a box's own tile profile (made by 'rummikub-companion calibrate')")
    p.add_argument("--infer-below", type=score_value, default=None, metavar="SCORE",
                   help="a tile read with a lower score may be inferred from its set (default 0.4)")
    p.set_defaults(func=run)


def annotate_target(text: str) -> str:
    """``--annotate OUT``: refused when empty, or named as an image the drawing cannot be written as (.gif),
    rather than ignored or made a folder of that name."""
    if not text.strip():
        raise argparse.ArgumentTypeError("needs a file or folder to draw into, not an empty path")
    target = Path(text)
    kind = mimetypes.guess_type(target.name)[0] or ""
    if kind.startswith("image/") and target.suffix.lower() not in IMAGE_SUFFIXES and not target.is_dir():
        raise argparse.ArgumentTypeError(
            f"{text}: cannot draw a {target.suffix} image; use {', '.join(sorted(IMAGE_SUFFIXES))} "
            "(or a folder for several photos)")
    return text


def score_value(text: str) -> float:
    """``--infer-below SCORE``: a reading score, 0 to 1 (nan and inf refused)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:  # false for nan too
        raise argparse.ArgumentTypeError(f"{text!r} is not a score from 0 to 1")
    return value


def annotation_paths(images: list[str], out: str) -> list[Path]:
    """Where each drawn photo goes: OUT itself for one photo (unless it is a folder), else OUT/<name>."""
    target = Path(out)
    if len(images) == 1 and not target.is_dir() and target.suffix.lower() in IMAGE_SUFFIXES:
        return [target]
    paths, seen = [], set()
    for image in images:
        stem = Path(image).stem
        name, n = f"{stem}.read.jpg", 1
        while name in seen:
            n += 1
            name = f"{stem}-{n}.read.jpg"
        seen.add(name)
        paths.append(target / name)
    return paths


def summary(path: str, reading) -> str:
    """The reading in a few plain lines."""
    d, model = reading.detections, reading.model_detections
    table = [s for s in reading.sets if s.group == "table"]
    racks = [s for s in reading.sets if s.group == "rack"]
    bad = sum(s.status == "invalid" for s in table)
    unsure = sum(s.status == "unsure" for s in table)
    lines = [f"{path}: {len(d)} tile{'s' * (len(d) != 1)}, {len(table)} set{'s' * (len(table) != 1)}"
             f" ({bad} invalid{f', {unsure} unsure' if unsure else ''})"
             + (f", {len(racks)} rack row{'s' * (len(racks) != 1)}" if racks else "")
             + f", rack total {reading.rack_total}"]
    for w in reading.warnings:
        lines.append(f"  WARNING: {w}")
    for s in reading.sets:
        codes = " ".join(d.codes[i] + ("?" if d.inferred[i] else "") for i in s.indices)
        head = {"valid": f"{s.kind or 'set'} {s.value}", "invalid": "INVALID", "unsure": "UNSURE",
                "rack": f"rack row {s.value}"}[s.status]
        line = f"  {head}: {codes}"
        if s.status == "unsure" and s.past_edge:
            line += f"  -- runs past the photo's edge; as seen: {s.problem}"
        elif s.status == "unsure":
            line += "  -- doubtful: " + ", ".join(f"{d.codes[i]} (score {float(d.scores[i]):.2f})" for i in s.doubtful)
            line += f"; as read: {s.problem}"
        elif s.problem:
            line += f"  -- {s.problem}"
        if s.as_read is not None and not s.as_read.valid:
            line += f"  (only with the inferred tile; as read: {s.as_read.problem})"
        for m in s.jokers:
            line += f"  (J = {' or '.join(m)})"
        lines.append(line)
    for i in range(len(d)):
        if d.inferred[i]:
            lines.append(f"  {d.codes[i]}? inferred from its set; the model read {model.codes[i]} "
                         f"(score {float(model.scores[i]):.2f})")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    import cv2

    from vision.annotate import annotate
    from cli.calibrate import profile_option
    from vision.profile import ProfileError
    from vision.reader import ReaderOptions, TableReader

    try:
        rules = rules_from(args)
    except ValueError as exc:
        print(f"rummikub-companion read: {exc}", file=sys.stderr)
        return 2
    options = ReaderOptions(rules=rules)
    if args.infer_below is not None:
        options = ReaderOptions(rules=rules, infer_below=args.infer_below)

    out_paths = annotation_paths(args.images, args.annotate) if args.annotate else None
    if out_paths and len(args.images) > 1:
        if Path(args.annotate).exists() and not Path(args.annotate).is_dir():
            print(f"rummikub-companion read: --annotate {args.annotate}: several photos need a folder, "
                  "and this is a file", file=sys.stderr)
            return 2
        Path(args.annotate).mkdir(parents=True, exist_ok=True)

    try:
        reader = TableReader.from_model_dir(args.model, options, **profile_option(args))
    except ProfileError as exc:  # the --profile file, not the model: its message names it
        print(f"rummikub-companion read: {exc}", file=sys.stderr)
        return 1
    except (FileNotFoundError, ValueError) as exc:
        print(f"rummikub-companion read: cannot load the tile model: {exc}", file=sys.stderr)
        return 1

    failed = 0
    for k, path in enumerate(args.images):
        try:
            image, reading = reader.read_file(path)
        except ValueError as exc:
            print(f"rummikub-companion read: {exc}", file=sys.stderr)
            if args.json:  # one line per photo, in order, a photo that failed included
                print(json.dumps({"image": path, "error": str(exc)}), flush=True)
            failed += 1
            continue
        if out_paths:  # drawn first: a reader of the output that stops early (``| head``) still gets it
            target = out_paths[k]
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                written = cv2.imwrite(str(target), annotate(image, reading))
            except cv2.error:
                written = False
            if not written:
                print(f"rummikub-companion read: {target}: could not write the drawing", file=sys.stderr)
                failed += 1
        if args.json:
            print(json.dumps(reading.to_json(image=path)), flush=True)
        else:
            print(summary(path, reading), flush=True)
    return 1 if failed else 0
