"""``rummikub-companion read``: read photos of the table, print the tiles and sets, draw them.

The model is loaded once for all the photos.  A photo that cannot be read is
reported on stderr by name and the others are still read; so is a drawing that
cannot be written.  The exit code is 1 when any photo or drawing failed, 0 when
all were read (2 for usage errors, as argparse, and for an --annotate OUT that
cannot take the drawings, asked before any photo is read).
"""

from __future__ import annotations

import argparse
import json
import math
import mimetypes
import shlex
import sys
from pathlib import Path

from cli.drawings import ACCEPTED, IMAGE_SUFFIXES, Drawings, annotate_problem
from cli.rules_args import add_rules_arguments, rules_from



def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "read",
        help="read the tiles and sets in photos of the table",
        description="Find every face-up tile, read it, rebuild the sets and judge them.",
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (JPEG, PNG, ...)")
    p.add_argument("--json", action="store_true", help="one JSON object per photo, in order (JSON Lines)")
    p.add_argument("--annotate", metavar="OUT", type=annotate_target,
                   help=f"draw the reading: for one photo, OUT is the file to write ({ACCEPTED}); for several, "
                        "or when OUT is a folder already, ends in / or has no suffix, a folder (made if needed) "
                        "that gets <photo name>.read.jpg per photo")
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
            f"{text}: cannot draw a {target.suffix} image; use {ACCEPTED} "
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


def read_problem(path: str, exc: ValueError) -> str:
    """Why a photo was not read; a video is said to be one, and where it plays, not called a corrupt picture."""
    from vision.capture import VIDEO_SUFFIXES  # the videos serve --source plays

    if Path(path).suffix.lower() in VIDEO_SUFFIXES and Path(path).is_file():
        return f"{path}: a video, not a photo (rummikub-companion serve --source {shlex.quote(path)} plays videos)"
    return str(exc)


def summary(path: str, reading) -> str:
    """The reading in a few plain lines."""
    d, model = reading.detections, reading.model_detections
    table = [s for s in reading.sets if s.group == "table"]
    racks = [s for s in reading.sets if s.group == "rack"]
    bad = sum(s.status == "invalid" for s in table)
    unsure = sum(s.status == "unsure" for s in table)
    lines = [f"{path}: {len(d)} tile{'s' * (len(d) != 1)}, {len(table)} set{'s' * (len(table) != 1)}"
             f" ({bad} invalid{f', {unsure} unsure' if unsure else ''})"
             # with no rack, rack_total is what the table's tiles would cost: no rack's total to print
             + (f", {len(racks)} rack row{'s' * (len(racks) != 1)}, rack total {reading.rack_total}"
                if racks else "")]
    for w in reading.warnings:
        lines.append(f"  WARNING: {w}")
    for s in reading.sets:
        codes = " ".join(d.codes[i] + ("?" if d.inferred[i] else "") for i in s.indices)
        head = {"valid": f"{s.kind or 'set'} {s.value}", "invalid": "INVALID", "unsure": "UNSURE",
                "rack": f"rack row {s.value}"}[s.status]
        line = f"  {head}: {codes}"
        if s.status == "unsure" and s.past_edge:
            line += f"  -- runs past the photo's edge; as seen: {s.problem}"
        elif s.status == "unsure" and s.colours_doubted:
            line += f"  -- the photo's colours cannot be trusted: check the colours of {' '.join(d.codes[i] for i in s.doubtful)}"
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
    from cli.calibrate import load_reader
    from vision.reader import ReaderOptions

    try:
        rules = rules_from(args)
    except ValueError as exc:
        print(f"rummikub-companion read: {exc}", file=sys.stderr)
        return 2
    options = ReaderOptions(rules=rules)
    if args.infer_below is not None:
        options = ReaderOptions(rules=rules, infer_below=args.infer_below)

    problem = annotate_problem(args.images, args.annotate) if args.annotate else None
    if problem:
        print(f"rummikub-companion read: --annotate {args.annotate}: {problem}", file=sys.stderr)
        return 2
    drawings = Drawings(args.images, args.annotate) if args.annotate else None

    reader = load_reader("rummikub-companion read", args, options)
    if reader is None:
        return 1

    failed = 0
    for k, path in enumerate(args.images):
        try:
            image, reading = reader.read_file(path)
        except ValueError as exc:
            problem = read_problem(path, exc)
            print(f"rummikub-companion read: {problem}", file=sys.stderr)
            if args.json:  # one line per photo, in order, a photo that failed included
                print(json.dumps({"image": path, "error": problem}), flush=True)
            failed += 1
            continue
        if drawings:  # drawn first: a reader of the output that stops early (``| head``) still gets it
            drawings.draw(k, image, reading)
        if args.json:
            print(json.dumps(reading.to_json(image=path)), flush=True)
        else:
            print(summary(path, reading), flush=True)
    if drawings and not drawings.report():
        failed += 1
    return 1 if failed else 0
