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
import os
import shlex
import sys
from pathlib import Path

from cli.rules_args import add_rules_arguments, rules_from

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm"}
ACCEPTED = ", ".join(sorted(IMAGE_SUFFIXES))


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


def is_folder(out: str, photos: int) -> bool:
    """Whether ``--annotate OUT`` names a folder: an existing one, a name ending in '/' or without a
    suffix, or, for several photos (which one file cannot hold), any name but an image file's."""
    target = Path(out)
    if target.is_dir() or out.endswith(("/", os.sep)):
        return True
    suffix = target.suffix.lower()
    return suffix not in IMAGE_SUFFIXES and (photos > 1 or not suffix)


def annotate_problem(images: list[str], out: str) -> str | None:
    """Why ``--annotate OUT`` cannot take these photos' drawings, asked before any photo is read."""
    target = Path(out)
    if is_folder(out, len(images)):
        if target.exists() and not target.is_dir():
            return "is a file, not a folder to draw into" + (
                f" (a drawing's file ends {ACCEPTED})" if len(images) == 1 else "")
    elif len(images) > 1:
        return f"several photos need a folder, not a {target.suffix} file: name one without an image suffix"
    elif target.suffix.lower() not in IMAGE_SUFFIXES:
        return f"cannot draw into a {target.suffix} file: name a file ending {ACCEPTED}, or a folder"
    return overwritten_photo(images, annotation_paths(images, out))


def overwritten_photo(images: list[str], paths: list[Path]) -> str | None:
    """Which photo a drawing would be written over, if any: the user's photo is never replaced by its reading."""
    photos = {key: image for image in images if (key := file_key(image))}
    for image, path in zip(images, paths):
        hit = photos.get(file_key(path))
        if hit is not None:
            return f"the drawing of {image} would be written over the photo {hit}"
    return None


def file_key(path: str | Path) -> tuple[int, int] | None:
    """(device, inode) of an existing file: the same file under any name (./a.jpg, a link to it)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


def annotation_paths(images: list[str], out: str) -> list[Path]:
    """Where each drawn photo goes: OUT itself when it is a file, else OUT/<name>.read.jpg."""
    target = Path(out)
    if not is_folder(out, len(images)):
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


def read_problem(path: str, exc: ValueError) -> str:
    """Why a photo was not read; a video is said to be one, and where it plays, not called a corrupt picture."""
    if Path(path).suffix.lower() in VIDEO_SUFFIXES and Path(path).is_file():
        return f"{path}: a video, not a photo (rummikub-companion serve --source {shlex.quote(path)} plays videos)"
    return str(exc)


class Drawings:
    """The ``--annotate`` drawings: where each goes, and which could not be written and why.

    A folder that cannot be made, or a drawing that cannot be written, costs
    only the drawings: the photos are still read and printed, and what went
    wrong is said once after them (exit 1).
    """

    def __init__(self, images: list[str], out: str):
        self.out = out
        self.paths = annotation_paths(images, out)
        self.folder = is_folder(out, len(images))
        self.blocked = folder_problem(self.paths[0].parent)
        self.failures: list[tuple[Path, str]] = []
        self.written = 0

    def draw(self, k: int, image, reading) -> None:
        from vision.annotate import annotate

        target = self.paths[k]
        reason = self.blocked or write_drawing(target, annotate(image, reading))
        if reason:
            self.failures.append((target, reason))
        else:
            self.written += 1

    def report(self) -> bool:
        """Say where the drawings went and which could not be written; True when none failed."""
        if self.folder and self.written:  # a name taken as a folder: say where the drawings are
            print(f"rummikub-companion read: {self.written} drawing{'s' * (self.written != 1)} written to "
                  f"the folder {self.out}", file=sys.stderr)
        reasons = {reason for _, reason in self.failures}
        if len(self.failures) > 1 and len(reasons) == 1:  # all alike (a folder that cannot be made): one line
            print(f"rummikub-companion read: could not write the drawings to {self.out}: {reasons.pop()}",
                  file=sys.stderr)
        else:
            for target, reason in self.failures:
                print(f"rummikub-companion read: could not write the drawing to {target}: {reason}", file=sys.stderr)
        return not self.failures


def folder_problem(folder: Path) -> str | None:
    """Why the drawings' folder cannot be made, naming a file in its way, or None once it is there."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        in_the_way = next((p for p in (folder, *folder.parents) if p.is_file()), None)
        if in_the_way is not None:
            return f"{in_the_way} is a file, not a folder"
        return f"cannot make the folder {folder} ({exc.strerror or exc})"
    return None


def write_drawing(target: Path, drawing) -> str | None:
    """Why the drawing could not be written to ``target``, or None: the system's reason, not just 'failed'."""
    import cv2

    try:
        encoded, data = cv2.imencode(target.suffix, drawing)
    except cv2.error:
        encoded = False
    if not encoded:
        return f"cannot encode a {target.suffix} picture"
    try:
        target.write_bytes(data.tobytes())
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


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

    problem = annotate_problem(args.images, args.annotate) if args.annotate else None
    if problem:
        print(f"rummikub-companion read: --annotate {args.annotate}: {problem}", file=sys.stderr)
        return 2
    drawings = Drawings(args.images, args.annotate) if args.annotate else None

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
