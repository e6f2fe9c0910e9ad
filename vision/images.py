"""Photos from files and uploads, loaded safely: the one place pixels enter from disk or network.

Why a module of its own: a picture is untrusted input.  A few-megabyte PNG can
declare 30000x30000 pixels and take gigabytes to decode, a phone photo may be
stored sideways with an EXIF turn, a 12 MP JPEG is far larger than the model
needs, and a corrupt file must be reported by name.  So the size is read from
the header (Pillow, which decodes nothing for this) and checked before any
decoding; JPEGs are decoded reduced by libjpeg when a smaller picture is
asked for; the EXIF orientation is applied; every failure is an
:class:`ImageError` that names the file and says what is wrong.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import sys
import tempfile
import threading
import warnings
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

log = logging.getLogger(__name__)

MAX_PIXELS = 64_000_000
"""Largest picture accepted (64 MP: every phone camera's full photo; a 30000x30000 bomb is 900 MP)."""

MAX_FILE_BYTES = 80 * 1024 * 1024
"""Largest image file read at all."""

_FORMATS = ("JPEG", "PNG", "BMP", "TIFF", "WEBP", "GIF", "PPM")
"""Picture formats accepted: those OpenCV decodes that a camera or phone writes."""

_REDUCED = ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4), (2, cv2.IMREAD_REDUCED_COLOR_2))

# EXIF orientation tag values -> how to turn the stored pixels upright.
_ORIENT = {
    2: lambda im: cv2.flip(im, 1),
    3: lambda im: cv2.rotate(im, cv2.ROTATE_180),
    4: lambda im: cv2.flip(im, 0),
    5: lambda im: cv2.transpose(im),
    6: lambda im: cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE),
    7: lambda im: cv2.rotate(cv2.transpose(im), cv2.ROTATE_180),
    8: lambda im: cv2.rotate(im, cv2.ROTATE_90_COUNTERCLOCKWISE),
}


class ImageError(ValueError):
    """A picture that cannot be used; the message starts with the file's name."""


def _header(data: bytes, name: str) -> tuple[int, int, str, int]:
    """(width, height, format, EXIF orientation) from the header alone."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=_FORMATS) as img:
                width, height = img.size
                orientation = int(img.getexif().get(0x0112, 1) or 1) if img.format in ("JPEG", "TIFF", "WEBP") else 1  # PNG keeps EXIF after the pixels
                return width, height, img.format or "", orientation
    except Image.DecompressionBombError as exc:  # Pillow's own guard trips past ~179 MP, far above ours
        found = re.search(r"\((\d+) pixels\)", str(exc))  # Pillow names the pixel count, not the sides
        size = f"{int(found.group(1)) / 1e6:.0f}" if found else f"over {2 * (Image.MAX_IMAGE_PIXELS or 0) / 1e6:.0f}"
        raise ImageError(f"{name}: the picture is too large ({size} megapixels, at most {MAX_PIXELS / 1e6:.0f}; "
                         "refused before decoding)") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        raise ImageError(f"{name}: not a readable image (corrupt, truncated or not a picture)") from None


def image_size(data: bytes, *, name: str = "image") -> tuple[int, int]:
    """(width, height) read from the header without decoding any pixel."""
    width, height, _, orientation = _header(data, name)
    return (height, width) if orientation in (5, 6, 7, 8) else (width, height)


def _truncated_jpeg(data: bytes) -> bool:
    """A JPEG whose last scan has no end marker: libjpeg would paint the missing part grey."""
    if not data.startswith(b"\xff\xd8"):
        return False
    last_scan = data.rfind(b"\xff\xda")
    return last_scan >= 0 and data.find(b"\xff\xd9", last_scan) < 0


_LIBJPEG_WARNINGS = ("Corrupt JPEG data", "Premature end of JPEG", "Invalid JPEG", "Warning:", "Bogus")
_HARMLESS = ("unknown JFIF revision", "Unknown Adobe color transform", "bad ICC marker")


def _harmless(note: str) -> bool:
    """An oddity of some cameras' files (a few stray bytes, an odd header) with the picture itself whole."""
    stray = re.search(r"(\d+) extraneous bytes before marker", note)
    if stray:
        return int(stray.group(1)) <= 16  # hundreds mean the pixels were garbage the decoder stopped short of
    return any(h in note for h in _HARMLESS)

_stderr_lock = threading.Lock()


@contextlib.contextmanager
def _stderr_captured(out: list[str]):
    """Collect what C code writes to file descriptor 2 meanwhile (libjpeg's warnings go there)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode("utf-8", "replace"))


def _decode_jpeg(buffer: np.ndarray, flag: int, name: str) -> np.ndarray | None:
    """Decode a JPEG; libjpeg's warning about corrupt data (which names no file) becomes an ImageError that does.

    A corrupt JPEG decodes into grey or smeared stripes: tiles read from it would be wrong, so it is refused.
    """
    captured: list[str] = []
    with _stderr_lock, _stderr_captured(captured):
        image = cv2.imdecode(buffer, flag)
    lines = [line for line in "".join(captured).splitlines() if line.strip()]
    notes = [line.strip() for line in lines if line.lstrip().startswith(_LIBJPEG_WARNINGS)]
    others = [line for line in lines if line.strip() not in notes]
    if others:  # another thread's output caught in passing: hand it on
        print("\n".join(others), file=sys.stderr, flush=True)
    problems = [n for n in notes if not _harmless(n)]
    for note in notes:
        if note not in problems:  # the pixels are whole: say so with the file's name, and go on
            log.warning("%s: %s", name, note)
    if problems:
        detail = problems[0].removeprefix("Corrupt JPEG data: ").rstrip(".")
        raise ImageError(f"{name}: corrupt JPEG data ({detail})")
    return image


def _check_file_bytes(size: int, name: str) -> None:
    if size > MAX_FILE_BYTES:
        raise ImageError(f"{name}: {size / 2**20:.0f} MB is too large for a photo "
                         f"(at most {MAX_FILE_BYTES // 2**20} MB)")


def decode_image(data: bytes, *, name: str = "image", max_side: int | None = None,
                 max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """Encoded picture bytes -> upright BGR uint8 array.

    ``max_side``: the longer side wanted at least; a JPEG larger than twice
    that is decoded at 1/2, 1/4 or 1/8 scale (never below ``max_side``), which
    is several times faster and smaller than decoding it whole.
    """
    if not data:
        raise ImageError(f"{name}: the file is empty")
    _check_file_bytes(len(data), name)
    width, height, fmt, orientation = _header(data, name)
    if width * height > max_pixels:
        raise ImageError(f"{name}: {width}x{height} pixels is too large "
                         f"(at most {max_pixels / 1e6:.0f} megapixels; refused before decoding)")
    if fmt == "JPEG" and _truncated_jpeg(data):
        raise ImageError(f"{name}: the JPEG data is cut short (truncated file)")
    flag = cv2.IMREAD_COLOR
    if fmt == "JPEG" and max_side:
        for factor, reduced in _REDUCED:
            if max(width, height) // factor >= max_side:
                flag = reduced
                break
    buffer = np.frombuffer(data, np.uint8)
    if fmt == "JPEG":
        image = _decode_jpeg(buffer, flag | cv2.IMREAD_IGNORE_ORIENTATION, name)
    else:
        image = cv2.imdecode(buffer, flag | cv2.IMREAD_IGNORE_ORIENTATION)
    if image is None or not image.size:
        raise ImageError(f"{name}: not a readable image (corrupt, truncated or not a picture)")
    turn = _ORIENT.get(orientation)
    return np.ascontiguousarray(turn(image)) if turn else image


def load_image(path: str | Path, *, max_side: int | None = None, max_pixels: int = MAX_PIXELS) -> np.ndarray:
    """A photo file -> upright BGR uint8 array; :class:`ImageError` naming the file when it cannot be used."""
    p = Path(path)
    if not p.exists():
        raise ImageError(f"{path}: no such file")
    if not p.is_file():
        raise ImageError(f"{path}: not a file")
    _check_file_bytes(p.stat().st_size, str(path))  # before reading it into memory
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ImageError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return decode_image(data, name=str(path), max_side=max_side, max_pixels=max_pixels)


def load_image_size(path: str | Path) -> tuple[int, int]:
    """(width, height) of a photo file, upright, from its header alone."""
    p = Path(path)
    with p.open("rb") as fh:
        head = fh.read(1 << 20)  # headers (EXIF included) sit in the first megabyte
    return image_size(head, name=str(path))


__all__ = ["MAX_PIXELS", "ImageError", "decode_image", "image_size", "load_image", "load_image_size"]
