"""``read --annotate OUT``: where each photo's drawing goes, and writing it without harm.

A drawing is never written over a photo being read, a folder that cannot be
made or a drawing that cannot be written costs only the drawings (the photos
are still read and printed), and OUT is taken for a file or a folder by rules
said in ``read --help``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cli.outputs import file_key

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}
ACCEPTED = ", ".join(sorted(IMAGE_SUFFIXES))


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
