"""Hostile and damaged pictures through the user's commands: refused by name, fast, never half-read."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from test_images import _jpeg, _png_bomb
from vision.images import ImageError, load_image

ROOT = Path(__file__).resolve().parents[1]


def corrupt_scan(data: bytes) -> bytes:
    """Garbage in the middle of the compressed pixels (headers and end marker intact)."""
    out = bytearray(data)
    middle = len(out) // 2
    out[middle:middle + 64] = b"\xff" * 64  # a run of marker bytes where pixels belong
    return bytes(out)


def noisy_jpeg() -> bytes:
    return _jpeg(np.random.default_rng(3).integers(0, 255, (240, 320, 3), dtype=np.uint8))


def test_corrupt_pixel_data_is_refused_naming_the_file_and_libjpeg_is_not_left_unnamed(tmp_path, capfd):
    path = tmp_path / "table.jpg"
    path.write_bytes(corrupt_scan(noisy_jpeg()))
    with pytest.raises(ImageError) as info:
        load_image(path)
    assert str(info.value).startswith(f"{path}: corrupt JPEG data")
    assert "Corrupt JPEG data" not in capfd.readouterr().err  # libjpeg's own, nameless line is not printed


def test_a_sound_jpeg_with_stray_bytes_before_a_marker_still_loads(tmp_path):
    data = noisy_jpeg()
    end = data.rfind(b"\xff\xd9")
    path = tmp_path / "camera-quirk.jpg"
    path.write_bytes(data[:end] + b"\x00\x00" + data[end:])  # libjpeg: "2 extraneous bytes before marker"
    assert load_image(path).shape == (240, 320, 3)


def test_read_command_refuses_a_bomb_and_a_corrupt_photo_by_name(tmp_path):
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(_png_bomb(30000, 30000))
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(corrupt_scan(noisy_jpeg()))
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "cli", "read", str(bomb), str(broken)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert any(line.startswith(f"rummikub-companion read: {bomb}: ") and "too large" in line for line in lines)
    assert any(line.startswith(f"rummikub-companion read: {broken}: corrupt JPEG data") for line in lines)
    assert not any(line.startswith("Corrupt JPEG") for line in lines), done.stderr
    assert time.monotonic() - start < 60  # (the figures: benchmarks/bench_image_bomb.py)
