"""Photos from files: sizes checked before decoding, EXIF turns applied, reduced JPEG decoding, errors that name the file."""

from __future__ import annotations

import io
import resource
import time
import zlib
import struct

import cv2
import numpy as np
import pytest
from PIL import Image

from vision.images import ImageError, decode_image, image_size, load_image, load_image_size


def _jpeg(image: np.ndarray, quality: int = 90) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return data.tobytes()


def _with_orientation(image_bgr: np.ndarray, orientation: int) -> bytes:
    """A JPEG of the stored pixels carrying an EXIF orientation tag, as a phone writes it."""
    pil = Image.fromarray(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2RGB))
    exif = Image.Exif()
    exif[0x0112] = orientation
    out = io.BytesIO()
    pil.save(out, "JPEG", quality=95, exif=exif)
    return out.getvalue()


def _png_bomb(width: int, height: int) -> bytes:
    """A tiny PNG file that declares width x height grey pixels (all zero, highly compressible)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    row = b"\x00" * (width + 1)
    compressor = zlib.compressobj(9)
    body = b"".join(compressor.compress(row) for _ in range(64)) + compressor.flush()
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", body) + chunk(b"IEND", b"")


def test_reads_a_photo(tmp_path):
    path = tmp_path / "ok.png"
    cv2.imwrite(str(path), np.full((20, 30, 3), 200, np.uint8))
    assert load_image(path).shape == (20, 30, 3)
    assert load_image_size(path) == (30, 20)


def test_turns_grey_pictures_into_colour(tmp_path):
    path = tmp_path / "grey.png"
    cv2.imwrite(str(path), np.full((20, 30), 90, np.uint8))
    assert load_image(path).shape == (20, 30, 3)


@pytest.mark.parametrize("content, reason", [
    (None, "no such file"),
    (b"", "empty"),
    (b"\xff\xd8\xff\xe0 certainly not a jpeg" * 10, "not a readable image"),
    (b"R1 R2 R3\n", "not a readable image"),
    ("folder", "not a file"),
])
def test_names_the_file_and_says_what_is_wrong(tmp_path, content, reason):
    path = tmp_path / "table.jpg"
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(ImageError, match=reason) as info:
        load_image(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize("keep", [0.5, 0.95])
def test_a_jpeg_cut_short_is_reported_not_read_half_grey(tmp_path, keep):
    data = _jpeg(np.random.default_rng(0).integers(0, 255, (200, 300, 3), dtype=np.uint8))
    whole = tmp_path / "whole.jpg"
    whole.write_bytes(data)
    assert load_image(whole).shape == (200, 300, 3)
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(data[: int(len(data) * keep)])
    with pytest.raises(ImageError, match="truncated") as info:
        load_image(cut)
    assert str(cut) in str(info.value)


def test_corrupt_jpeg_bytes_name_the_file(tmp_path):
    data = bytearray(_jpeg(np.random.default_rng(1).integers(0, 255, (64, 64, 3), dtype=np.uint8)))
    data[2:40] = b"\x00" * 38  # the header segments destroyed, end marker kept
    path = tmp_path / "broken.jpg"
    path.write_bytes(bytes(data))
    with pytest.raises(ImageError) as info:
        load_image(path)
    assert str(path) in str(info.value)


def test_a_picture_bomb_is_refused_from_its_header_quickly_and_cheaply(tmp_path):
    path = tmp_path / "bomb.png"
    path.write_bytes(_png_bomb(30000, 30000))
    assert path.stat().st_size < 100_000
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    with pytest.raises(ImageError, match="too large") as info:
        load_image(path)
    elapsed = time.perf_counter() - start
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert str(path) in str(info.value)
    assert elapsed < 5.0  # generous for a loaded CI machine; decoding it would take seconds and 900 MB
    assert grown_mb < 100


def test_the_size_is_named_when_over_the_limit(tmp_path):
    path = tmp_path / "wide.png"
    path.write_bytes(_png_bomb(9000, 8000))
    with pytest.raises(ImageError, match="9000x8000 pixels is too large"):
        load_image(path)


def test_a_larger_pixel_limit_lets_a_big_picture_through():
    data = _jpeg(np.zeros((100, 200, 3), np.uint8))
    with pytest.raises(ImageError, match="too large"):
        decode_image(data, name="x.jpg", max_pixels=10_000)
    assert decode_image(data, name="x.jpg", max_pixels=20_000).shape == (100, 200, 3)


@pytest.mark.parametrize("orientation, turn", [
    (1, None),
    (3, cv2.ROTATE_180),
    (6, cv2.ROTATE_90_CLOCKWISE),
    (8, cv2.ROTATE_90_COUNTERCLOCKWISE),
])
def test_exif_orientation_is_applied(orientation, turn):
    stored = np.zeros((60, 90, 3), np.uint8)
    stored[:20, :30] = (0, 0, 255)  # a red block in the stored top-left corner
    data = _with_orientation(stored, orientation)
    upright = decode_image(data, name="phone.jpg")
    expected = stored if turn is None else cv2.rotate(stored, turn)
    assert upright.shape == expected.shape
    red = (upright[..., 2] > 150) & (upright[..., 1] < 100)
    want = (expected[..., 2] > 150) & (expected[..., 1] < 100)
    assert (red == want).mean() > 0.97
    h, w = expected.shape[:2]
    assert image_size(data) == (w, h)


def test_large_jpeg_is_decoded_reduced_only_as_far_as_asked():
    rng = np.random.default_rng(2)
    big = cv2.resize(rng.integers(0, 255, (300, 400, 3), dtype=np.uint8), (4000, 3000))
    data = _jpeg(big)
    assert decode_image(data, name="12mp.jpg").shape == (3000, 4000, 3)
    assert decode_image(data, name="12mp.jpg", max_side=1000).shape == (750, 1000, 3)
    assert decode_image(data, name="12mp.jpg", max_side=1200).shape == (1500, 2000, 3)
    assert decode_image(data, name="12mp.jpg", max_side=5000).shape == (3000, 4000, 3)
