"""Files a command writes: checked before the work that fills them, not after it."""

from __future__ import annotations

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


__all__ = ["output_problem"]
