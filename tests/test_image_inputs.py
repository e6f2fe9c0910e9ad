"""Photo files and labelled folders as users bring them: phone formats, EXIF in PNGs, damaged files, bad labels."""

from __future__ import annotations

import json
import struct
import time
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, features

from cli import main
from rules.options import find_variant
from test_images import _png_bomb
from vision import reader as reader_module
from vision.datasets import load_folder
from vision.evaluation import Evaluation, PhotoScore, SetCounts, format_set_table
from vision.images import ImageError, decode_image, load_image, load_image_size
from vision.reader import ReaderOptions, TableReader
from vision.types import TileDetections

ROOT = Path(__file__).resolve().parents[1]
AVIF = pytest.mark.skipif(not features.check("avif"), reason="this Pillow has no AVIF decoder")


def marked(h: int = 60, w: int = 90) -> np.ndarray:
    """A picture whose every turn and flip looks different: a red corner top left, a green bar at the bottom."""
    image = np.full((h, w, 3), 200, np.uint8)
    image[:15, :20] = (0, 0, 255)
    image[-8:, 30:] = (0, 255, 0)
    return image


def pil_of(image_bgr: np.ndarray) -> Image.Image:
    return Image.fromarray(cv2.cvtColor(image_bgr, cv2.COLOR_BGR2RGB))


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


# -- 1. eval: a photo that cannot be decoded is skipped by name, the others scored ---------------

class _Nothing:
    def detect(self, image):
        return TileDetections(np.zeros((0, 4, 2), np.float32), np.zeros(0, np.int64), np.zeros(0))


def yolo_folder(root: Path) -> Path:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "data.yaml").write_text("names: ['red_5', 'black_9']\nnc: 2\n")
    for stem in ("a", "b"):
        cv2.imwrite(str(root / "images" / f"{stem}.png"), np.full((120, 160, 3), 128, np.uint8))
        (root / "labels" / f"{stem}.txt").write_text("0 0.5 0.5 0.1 0.2\n")
    return root


def test_eval_skips_a_photo_cut_short_by_name_and_scores_the_others(tmp_path, monkeypatch, caplog, capsys):
    folder = yolo_folder(tmp_path / "y")
    cut = folder / "images" / "t.jpg"
    cut.write_bytes((ROOT / "sample_images" / "valid_table.jpg").read_bytes()[:58000])  # its header is whole
    (folder / "labels" / "t.txt").write_text("1 0.5 0.5 0.1 0.2\n")
    (folder / "images" / "notes.jpg").write_text("R1 R2 R3\n")  # skipped by load_folder, by name
    reader = TableReader(_Nothing(), ReaderOptions(rules=find_variant("sabra")))
    monkeypatch.setattr(reader_module.TableReader, "from_model_dir", classmethod(lambda cls, *a, **k: reader))
    with caplog.at_level("WARNING"):
        assert main(["eval", "--json", str(folder)]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["photos"] == 2 and d["tiles"] == 2
    assert f"skipped {cut}: the JPEG data is cut short" in caplog.text
    assert f"skipped {folder / 'images' / 'notes.jpg'}: not a readable image" in caplog.text


# -- 2. AVIF read, HEIC named ---------------------------------------------------------------------

@AVIF
def test_an_avif_photo_is_read_upright_and_its_size_checked_before_decoding(tmp_path):
    stored = cv2.rotate(marked(), cv2.ROTATE_90_COUNTERCLOCKWISE)  # kept on its side, EXIF 6 to turn it back
    exif = Image.Exif()
    exif[0x0112] = 6
    path = tmp_path / "table.avif"
    pil_of(stored).save(path, "AVIF", quality=100, exif=exif)
    image = load_image(path)
    assert image.shape == (60, 90, 3) and load_image_size(path) == (90, 60)
    assert np.abs(image[3:12, 3:17].astype(int) - (0, 0, 255)).max() < 40  # the red corner is top left
    with pytest.raises(ImageError, match="too large") as info:
        decode_image(path.read_bytes(), name=str(path), max_pixels=1000)
    assert str(info.value).startswith(str(path))


@AVIF
def test_the_size_of_an_avif_larger_than_a_megabyte_is_read(tmp_path):
    """libavif parses only the whole file: the first megabyte of it is not a picture."""
    noise = np.random.default_rng(0).integers(0, 255, (1200, 1000, 3), dtype=np.uint8)
    path = tmp_path / "big.avif"
    pil_of(noise).save(path, "AVIF", quality=100, speed=10)
    assert path.stat().st_size > 1 << 20
    assert load_image_size(path) == (1000, 1200)


@pytest.mark.parametrize("brand", [b"heic", b"heix", b"mif1"])
def test_a_heic_photo_is_refused_naming_the_format_and_what_to_do(tmp_path, brand):
    ftyp = struct.pack(">I", 24) + b"ftyp" + brand + b"\x00\x00\x00\x00" + b"mif1heic"
    path = tmp_path / "IMG_0001.HEIC"
    path.write_bytes(ftyp + bytes(range(256)) * 40)
    with pytest.raises(ImageError) as info:
        load_image(path)
    message = str(info.value)
    assert message.startswith(f"{path}: a HEIC/HEIF photo") and "export it as JPEG" in message
    with pytest.raises(ImageError, match="HEIC/HEIF"):
        load_image_size(path)


def test_a_heic_photo_in_a_labelled_folder_is_named_not_passed_over(tmp_path, caplog):
    folder = yolo_folder(tmp_path / "y")
    heic = folder / "images" / "c.heic"
    heic.write_bytes(struct.pack(">I", 24) + b"ftypheic" + b"\x00" * 4 + b"mif1heic" + b"\x00" * 64)
    with caplog.at_level("WARNING"):
        assert len(load_folder(folder)) == 2
    assert f"skipped {heic}: a HEIC/HEIF photo" in caplog.text


# -- 3. a PNG's EXIF orientation applied, as browsers do --------------------------------------------

@pytest.mark.parametrize("orientation, stored", [
    (6, lambda im: cv2.rotate(im, cv2.ROTATE_90_COUNTERCLOCKWISE)),
    (8, lambda im: cv2.rotate(im, cv2.ROTATE_90_CLOCKWISE)),
    (3, lambda im: cv2.rotate(im, cv2.ROTATE_180)),
])
def test_a_png_exif_orientation_is_applied(tmp_path, orientation, stored):
    exif = Image.Exif()
    exif[0x0112] = orientation
    path = tmp_path / f"exif{orientation}.png"
    pil_of(stored(marked())).save(path, exif=exif)
    assert np.array_equal(load_image(path), marked())  # PNG is lossless: exactly the upright picture
    assert load_image_size(path) == (90, 60)


def test_a_png_bomb_with_exif_after_its_pixels_is_still_refused_before_decoding(tmp_path):
    """Reading an eXIf chunk after the pixel data would decode them all: it is not read."""
    bomb = _png_bomb(30000, 30000)
    exif = Image.Exif()
    exif[0x0112] = 6
    end = bomb.rindex(b"IEND") - 4
    path = tmp_path / "bomb.png"
    path.write_bytes(bomb[:end] + _chunk(b"eXIf", exif.tobytes()) + bomb[end:])
    start = time.monotonic()
    with pytest.raises(ImageError, match="too large"):
        load_image(path)
    assert time.monotonic() - start < 5


# -- 4. libpng's own message reworded with the file's name ------------------------------------------

def test_a_truncated_png_is_named_and_libpng_is_not_left_unnamed(tmp_path, capfd):
    ok, data = cv2.imencode(".png", np.random.default_rng(1).integers(0, 255, (200, 300, 3), dtype=np.uint8))
    path = tmp_path / "trunc.png"
    path.write_bytes(data.tobytes()[: len(data) // 2])
    with pytest.raises(ImageError) as info:
        load_image(path)
    assert str(info.value).startswith(f"{path}: corrupt or truncated PNG data (PNG input buffer is incomplete")
    assert "libpng" not in capfd.readouterr().err


# -- 5. a malformed label line is an error naming the file and line ----------------------------------

@pytest.mark.parametrize("line, problem", [
    ("1 abc", "not a YOLO label"),
    ("1 0.1 0.2", "2 numbers after the class"),
    ("1 0.1 0.2 0.3 0.4 0.5", "5 numbers after the class"),
    ("1 0.1abc 0.2 0.3 0.4", "not a YOLO label"),
    ("red 0.1 0.2 0.3 0.4", "not a YOLO label"),
    ("7 0.1 0.2 0.3 0.4", "class 7 is not one of data.yaml's 2 names"),
    ("1 nan 0.2 0.3 0.4", "not a number"),
])
def test_a_malformed_label_line_is_an_error_naming_the_file_and_line(tmp_path, capsys, line, problem):
    folder = yolo_folder(tmp_path / "y")
    labels = folder / "labels" / "b.txt"
    labels.write_text(f"0 0.5 0.5 0.1 0.2\n\n{line}\n")
    with pytest.raises(ValueError, match=problem) as info:
        load_folder(folder)
    assert str(info.value).startswith(f"{labels}:3: ")
    assert main(["eval", str(folder)]) == 1  # the command says so, without a traceback
    assert f"rummikub-companion eval: {labels}:3: " in capsys.readouterr().err


def test_blank_lines_and_polygons_are_still_labels(tmp_path):
    folder = yolo_folder(tmp_path / "y")
    (folder / "labels" / "b.txt").write_text("\n0 0.1 0.1 0.2 0.1 0.2 0.3\n1 0.5 0.5 0.1 0.2\n")
    b = next(i for i in load_folder(folder) if i.image_path.stem == "b")
    assert len(b.quads) == 2


# -- 6. no sets, no rate ---------------------------------------------------------------------------

def test_set_rates_are_none_without_sets_to_count():
    plain = PhotoScore("a.jpg", truth=2, found=2, matched=2, read_right=2, ms=1.0)
    d = Evaluation([plain]).to_dict()
    assert d["sets"] == 0 and d["sets_exact_rate"] is None
    assert d["valid_sets"] == 0 and d["false_alarm_rate"] is None
    counted = PhotoScore("b.jpg", truth=3, found=3, matched=3, read_right=3, ms=1.0,
                         groups=SetCounts(sets=2, sets_exact=1, valid_sets=2, false_alarms=1))
    d = Evaluation([plain, counted]).to_dict()
    assert d["sets_exact_rate"] == 0.5 and d["false_alarm_rate"] == 0.5
    racks_only = PhotoScore("c.jpg", truth=3, found=3, matched=3, read_right=3, ms=1.0,
                            groups=SetCounts(rack_rows=1, rack_rows_exact=1))
    table = format_set_table([("f", Evaluation([racks_only]))])
    assert "100.0%" not in table.splitlines()[2]  # 0 sets read exactly is no rate either
