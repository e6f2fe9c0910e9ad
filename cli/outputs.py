"""Files a command writes: checked before the work that fills them, not after it."""

from __future__ import annotations

import os
from pathlib import Path


def output_problem(path: str, *, make_folder: bool = False) -> str | None:
    """Why no file can be written at ``path``, or None: asked before the work, not after it.

    The file is opened for appending (and removed again if it was not there),
    as only trying says whether a folder takes a new file (/proc, read-only
    disks, another user's folder).
    """
    target = Path(path)
    if not path.strip():
        return "an empty path"
    if target.is_dir():
        return "is a folder, not a file"
    if make_folder:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return f"cannot create the folder {target.parent}: {exc.strerror or exc}"
    elif not target.parent.is_dir():
        return f"no such folder: {target.parent}"
    existed = target.exists()
    try:
        with open(target, "ab"):
            pass
    except OSError as exc:
        return f"cannot write there: {exc.strerror or exc}"
    if not existed:
        target.unlink(missing_ok=True)
    return None


def file_key(path: str | Path) -> tuple[int, int] | None:
    """(device, inode) of an existing file: the same file under any name (./a.jpg, a link to it)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name one file (links and ``..`` included), whether or not it exists yet: an
    output named as one of the command's inputs would replace it."""
    key = file_key(a)
    if key is not None and key == file_key(b):
        return True
    return Path(a).resolve() == Path(b).resolve()


__all__ = ["output_problem", "file_key", "same_file"]
