"""Photos from files and uploads, loaded safely: the one place pixels enter from disk or network.

Why a module of its own: a picture is untrusted input.  A few-megabyte PNG can
declare 30000x30000 pixels and take gigabytes to decode, a phone photo may be
stored sideways with an EXIF turn, a 12 MP JPEG is far larger than the model
needs, and a corrupt file must be reported by name.  So the size is read from
the header (Pillow, which decodes nothing for this) and checked before any
decoding; JPEGs are decoded reduced by libjpeg when a smaller picture is
asked for; the EXIF orientation is applied; every failure is an
:class:`ImageError` that names the file and says what is wrong (what libjpeg
and libpng print about a damaged file is caught and reworded with its name).
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
from PIL import Image, UnidentifiedImageError, features

log = logging.getLogger(__name__)

MAX_PIXELS = 64_000_000
"""Largest picture accepted (64 MP: every phone camera's full photo; a 30000x30000 bomb is 900 MP)."""

MAX_FILE_BYTES = 80 * 1024 * 1024
"""Largest image file read at all."""

_FORMATS = ("JPEG", "PNG", "BMP", "TIFF", "WEBP", "GIF", "PPM")
"""Picture formats accepted: those OpenCV decodes that a camera or phone writes."""

_PILLOW_FORMATS = ("AVIF", "HEIF")
"""Phone formats OpenCV does not decode: accepted, and decoded by Pillow, where its decoder is installed."""

_HEIF_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"hevm", b"hevs", b"mif1", b"msf1"}

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


def _pillow_decodes(fmt: str) -> bool:
    """Whether this Pillow decodes ``fmt``: AVIF from Pillow 11.2 (with libavif), HEIF once pillow-heif is registered."""
    Image.init()
    if fmt == "AVIF":
        try:
            return features.check_module("avif")
        except ValueError:  # a Pillow older than 11.2: only a plugin (pillow-avif-plugin) registers AVIF
            return "AVIF" in Image.OPEN
    return fmt in Image.OPEN


def _formats() -> tuple[str, ...]:
    return _FORMATS + tuple(f for f in _PILLOW_FORMATS if _pillow_decodes(f))


def _iso_picture(data: bytes) -> str | None:
    """"AVIF" or "HEIC/HEIF" for a picture in an ISO media box ("ftyp" and a brand at bytes 4-12), else None."""
    if data[4:8] != b"ftyp":
        return None
    brands = [data[k:k + 4] for k in range(8, min(int.from_bytes(data[:4], "big"), len(data), 64), 4)]
    if data[8:12] in (b"avif", b"avis") or (data[8:12] in (b"mif1", b"msf1") and b"avif" in brands):
        return "AVIF"
    return "HEIC/HEIF" if data[8:12] in _HEIF_BRANDS else None


def _orientation(img: Image.Image) -> int:
    """The EXIF orientation, read without decoding pixels.

    A PNG's eXIf chunk is read, as browsers and viewers apply it, when it
    comes before the pixel data (where Pillow and most writers put it): for
    one after them Pillow's ``getexif`` would decode the whole picture, before
    its size is checked, so that one is not read.
    """
    if img.format not in ("JPEG", "TIFF", "WEBP", "AVIF", "HEIF") and not (img.format == "PNG" and "exif" in img.info):
        return 1
    return int(img.getexif().get(0x0112, 1) or 1)


def _header(data: bytes, name: str) -> tuple[int, int, str, int]:
    """(width, height, format, EXIF orientation) from the header alone."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=_formats()) as img:
                width, height = img.size
                return width, height, img.format or "", _orientation(img)
    except Image.DecompressionBombError as exc:  # Pillow's own guard trips past ~179 MP, far above ours
        found = re.search(r"\((\d+) pixels\)", str(exc))  # Pillow names the pixel count, not the sides
        size = f"{int(found.group(1)) / 1e6:.0f}" if found else f"over {2 * (Image.MAX_IMAGE_PIXELS or 0) / 1e6:.0f}"
        raise ImageError(f"{name}: the picture is too large ({size} megapixels, at most {MAX_PIXELS / 1e6:.0f}; "
                         "refused before decoding)") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        kind = _iso_picture(data)
        if kind and not _pillow_decodes(kind.split("/")[-1]):  # an iPhone's HEIC, or AVIF on an older Pillow
            raise ImageError(f"{name}: {'an' if kind == 'AVIF' else 'a'} {kind} photo, which this installation "
                             "cannot decode; export it as JPEG") from None
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
_LIBPNG_ERROR, _LIBPNG_WARNING = "libpng error: ", "libpng warning: "


def _harmless(note: str) -> bool:
    """An oddity of some cameras' files (a few stray bytes, an odd header) with the picture itself whole."""
    stray = re.search(r"(\d+) extraneous bytes before marker", note)
    if stray:
        return int(stray.group(1)) <= 16  # hundreds mean the pixels were garbage the decoder stopped short of
    return any(h in note for h in _HARMLESS)

_stderr_lock = threading.Lock()


@contextlib.contextmanager
def _stderr_captured(out: list[str]):
    """Collect what C code writes to file descriptor 2 meanwhile (libjpeg's and libpng's messages go there)."""
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


def _decode_captured(buffer: np.ndarray, flag: int, name: str) -> np.ndarray | None:
    """Decode a JPEG or PNG; what libjpeg or libpng says of damaged data (naming no file) becomes an ImageError that does.

    A corrupt JPEG decodes into grey or smeared stripes: tiles read from it would be wrong, so it is refused.
    """
    captured: list[str] = []
    with _stderr_lock, _stderr_captured(captured):
        image = cv2.imdecode(buffer, flag)
    lines = [line for line in "".join(captured).splitlines() if line.strip()]
    notes = [line.strip() for line in lines
             if line.lstrip().startswith(_LIBJPEG_WARNINGS + (_LIBPNG_ERROR, _LIBPNG_WARNING))]
    others = [line for line in lines if line.strip() not in notes]
    if others:  # another thread's output caught in passing: hand it on
        print("\n".join(others), file=sys.stderr, flush=True)
    png_errors = [n.removeprefix(_LIBPNG_ERROR) for n in notes if n.startswith(_LIBPNG_ERROR)]
    problems = [n for n in notes if n.startswith(_LIBJPEG_WARNINGS) and not _harmless(n)]
    for note in notes:
        if note not in problems and not note.startswith(_LIBPNG_ERROR):  # the pixels are whole: say so, with the name
            log.warning("%s: %s", name, note.removeprefix(_LIBPNG_WARNING))
    if png_errors:
        raise ImageError(f"{name}: corrupt or truncated PNG data ({png_errors[0].rstrip('.')})")
    if problems:
        detail = problems[0].removeprefix("Corrupt JPEG data: ").rstrip(".")
        raise ImageError(f"{name}: corrupt JPEG data ({detail})")
    return image


def _decode_pillow(data: bytes, fmt: str, name: str) -> np.ndarray:
    """Decode a format OpenCV cannot (AVIF, HEIF) with Pillow, stored pixels unturned (the size checked before)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=(fmt,)) as img:
                rgb = np.asarray(img.convert("RGB"))
    except (OSError, SyntaxError, ValueError):
        raise ImageError(f"{name}: not a readable image (corrupt, truncated or not a picture)") from None
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR)


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
    if fmt in _PILLOW_FORMATS:
        image = _decode_pillow(data, fmt, name)
    elif fmt in ("JPEG", "PNG"):
        image = _decode_captured(buffer, flag | cv2.IMREAD_IGNORE_ORIENTATION, name)
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
        if _iso_picture(head):  # but libavif parses an AVIF (and HEIF) only whole
            _check_file_bytes(p.stat().st_size, str(path))
            head += fh.read()
    return image_size(head, name=str(path))


__all__ = ["MAX_PIXELS", "ImageError", "decode_image", "image_size", "load_image", "load_image_size"]
