"""Any photo: one tile filling the frame, a phone photo stored sideways (EXIF), colours that cannot be trusted.

These run the shipped model; the command-line ones run the installed console
script in a subprocess, as a user would.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from models.render.backgrounds import background
from models.render.layout import Layout, careless_line
from models.render.scene import compose
from models.render.styles import EDITIONS
from models.render.tiles import render_tile
from rules.options import find_variant
from rules.tiles import Tile, parse_tiles
from vision.colours import colour_warnings
from vision.reader import ReaderOptions, TableReader

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_images" / "valid_table.jpg"


def command() -> list[str]:
    script = Path(sys.executable).with_name("rummikub-companion")
    return [str(script)] if script.exists() else [shutil.which("rummikub-companion") or sys.executable, "-m", "cli"]


def read_json(*paths: Path) -> list[dict]:
    done = subprocess.run([*command(), "read", "--json", *map(str, paths)], capture_output=True, text=True,
                          cwd=ROOT, timeout=180)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


@pytest.fixture(scope="module")
def reader():
    return TableReader.from_model_dir(None, ReaderOptions(rules=find_variant("sabra")))


@pytest.mark.parametrize("code, margin", [("R6", 0.0), ("B11", 0.04), ("O2", 0.12), ("K13", 0.25), ("J", 0.06)])
def test_one_tile_filling_the_whole_photo_is_found_and_read(reader, code, margin):
    face = render_tile(EDITIONS["classic"], Tile.parse(code).index, 900)
    h, w = face.shape[:2]
    pad_y, pad_x = int(margin * h), int(margin * w)
    photo = cv2.copyMakeBorder(face, pad_y, pad_y, pad_x, pad_x, cv2.BORDER_CONSTANT, value=(60, 90, 130))
    reading = reader.read(photo)
    assert reading.detections.codes == [code]
    x0, y0, x1, y1 = reading.detections.boxes[0]
    assert (y1 - y0) > 0.6 * photo.shape[0]  # the outline is the whole tile, not a part of it


@pytest.mark.shared
def test_real_close_ups_of_single_tiles_are_read(reader, shared_dir):
    from vision.datasets import load_folder, split_holdout

    held = [i for i in split_holdout(load_folder(shared_dir / "datasets" / "rummikub-photos"))[1] if len(i.quads) == 1]
    assert held
    for item in held:
        image = item.load()
        x0, y0 = item.quads[0].min(axis=0).astype(int)
        x1, y1 = item.quads[0].max(axis=0).astype(int)
        crop = image[max(0, y0):y1, max(0, x0):x1]  # the tile's own box: the tile fills the photo
        assert reader.read(crop).detections.class_ids.tolist() == item.class_ids.tolist(), item.image_path.name


def test_a_photo_stored_sideways_with_an_exif_turn_reads_like_the_upright_one(tmp_path):
    upright = cv2.imread(str(SAMPLE))
    stored = cv2.rotate(upright, cv2.ROTATE_90_COUNTERCLOCKWISE)  # as a phone held sideways stores it
    exif = Image.Exif()
    exif[0x0112] = 6  # "turn 90 degrees clockwise to show"
    path = tmp_path / "sideways.jpg"
    Image.fromarray(cv2.cvtColor(stored, cv2.COLOR_BGR2RGB)).save(path, quality=95, exif=exif)
    plain, turned = read_json(SAMPLE, path)
    assert sorted(t["code"] for t in turned["tiles"]) == sorted(t["code"] for t in plain["tiles"])
    assert [len(s["tiles"]) for s in turned["sets"]] == [len(s["tiles"]) for s in plain["sets"]]
    assert all(s["status"] == "valid" for s in turned["sets"])


def test_a_grey_scale_photo_warns_that_its_colours_cannot_be_trusted(tmp_path):
    grey = cv2.cvtColor(cv2.cvtColor(cv2.imread(str(SAMPLE)), cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    path = tmp_path / "grey.jpg"
    cv2.imwrite(str(path), grey)
    colour, bw = read_json(SAMPLE, path)
    assert colour["warnings"] == []
    assert bw["warnings"] and "colour" in bw["warnings"][0]
    # every set is valid in colour; without colours its groups read K9 K9 K9: unsure, never invalid
    assert all(s["status"] == "valid" for s in colour["sets"])
    assert [s["status"] for s in bw["sets"] if s["status"] != "valid"] == ["unsure", "unsure"]
    assert all(s["colours_doubted"] for s in bw["sets"] if s["status"] == "unsure")
    done = subprocess.run([*command(), "read", str(path)], capture_output=True, text=True, cwd=ROOT, timeout=180)
    assert "WARNING" in done.stdout


@pytest.mark.parametrize("spoil, word", [
    (lambda im: (im * 0.12).astype(np.uint8), "dark"),
    (lambda im: np.clip(im * np.array([0.4, 0.75, 1.15]), 0, 255).astype(np.uint8), "cast"),
])
def test_very_dark_and_heavily_tinted_photos_warn(spoil, word):
    image = cv2.imread(str(SAMPLE))
    quads = np.array(json.loads((ROOT / "sample_images" / "expected.json").read_text())["valid_table.jpg"]["quads"])
    assert colour_warnings(image, quads) == []
    assert any(word in w for w in colour_warnings(spoil(image.astype(np.float32)), quads))


def test_a_12_mp_phone_photo_is_decoded_at_half_size_and_reads_like_the_small_one(reader, tmp_path):
    small = cv2.imread(str(SAMPLE))
    path = tmp_path / "phone.jpg"
    cv2.imwrite(str(path), cv2.resize(small, (4032, 3024), interpolation=cv2.INTER_CUBIC), [cv2.IMWRITE_JPEG_QUALITY, 90])
    image, reading = reader.read_file(path)
    assert image.shape[:2] == (1512, 2016)
    assert sorted(reading.detections.codes) == sorted(reader.read(small).detections.codes)


@pytest.mark.parametrize("codes", [["R5", "R6", "R7"], ["K9", "B9", "O9", "R9"], ["B3", "B4"]])
def test_a_close_up_of_a_few_tiles_filling_the_photo_reads_them_in_order(reader, codes):
    h = 500
    faces = [render_tile(EDITIONS["classic"], Tile.parse(c).index, h) for c in codes]
    gap = np.full((h, 12, 3), 60, np.uint8)
    row = np.hstack([x for f in faces for x in (f, gap)][:-1])
    photo = cv2.copyMakeBorder(row, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(60, 90, 130))
    reading = reader.read(photo)
    assert [" ".join(reading.detections.codes[i] for i in s.indices) for s in reading.sets] == [" ".join(codes)]


@pytest.mark.parametrize("seen", [0.75, 0.6])
def test_a_table_photographed_from_a_seat_reads_like_one_from_above(reader, seen):
    """Foreshortened to ``seen`` of its depth (about 50 and 37 degrees above the table), the faces
    come out about as wide as tall or wider, yet the tiles and the sets are the same."""
    expected = json.loads((ROOT / "sample_images" / "expected.json").read_text())["valid_table.jpg"]
    image = cv2.imread(str(SAMPLE))
    photo = cv2.resize(image, None, fx=1.0, fy=seen, interpolation=cv2.INTER_AREA)
    reading = reader.read(photo)
    assert sorted(reading.detections.codes) == sorted(expected["tiles"])
    assert sorted(" ".join(reading.detections.codes[i] for i in s.indices) for s in reading.sets) == sorted(
        map(" ".join, expected["sets"]))


@pytest.mark.parametrize("edition, codes, seen", [("wooden", "O1 O2 O3 O4 O5", 0.7), ("teal", "O1 O2 O3 O4 O5", 0.7),
                                                  ("classic", "K9 B9 O9 R9", 0.5), ("modern", "B3 B4", 0.5),
                                                  ("xp", "B3 B4", 0.5)])
def test_a_close_up_of_a_set_from_a_low_camera_reads_as_the_set(reader, edition, codes, seen):
    """Faces foreshortened until they are as wide as tall or wider: 1-9 must not read as 10s
    turned sideways, nor a 3 as a 10 between upright neighbours, and the tiles stay one set."""
    h = 150
    faces = [render_tile(EDITIONS[edition], Tile.parse(c).index, h) for c in codes.split()]
    gap = np.full((h, 3, 3), 60, np.uint8)
    row = np.hstack([x for f in faces for x in (f, gap)][:-1])
    photo = cv2.copyMakeBorder(row, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=(60, 90, 130))
    photo = cv2.resize(photo, None, fx=1.0, fy=seen, interpolation=cv2.INTER_AREA)
    reading = reader.read(photo)
    assert [" ".join(reading.detections.codes[i] for i in s.indices) for s in reading.sets] == [codes]


def test_tiles_about_24_px_tall_in_a_1000x750_photo_are_found_and_read(reader):
    expected = json.loads((ROOT / "sample_images" / "expected.json").read_text())["valid_table.jpg"]
    image = cv2.imread(str(SAMPLE))
    quads = np.array(expected["quads"])
    f = 24 / float(np.median(np.linalg.norm(quads[:, 3] - quads[:, 0], axis=1)))
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    photo = np.full((750, 1000, 3), np.median(image.reshape(-1, 3), axis=0), np.uint8)
    photo[200:200 + small.shape[0], 300:300 + small.shape[1]] = small
    reading = reader.read(photo)
    assert sorted(reading.detections.codes) == sorted(expected["tiles"])
    assert sorted(" ".join(reading.detections.codes[i] for i in s.indices) for s in reading.sets) == sorted(
        map(" ".join, expected["sets"]))


TIGHT_SETS = ["R4 R5 R6 R7", "K9 B9 O9", "B10 B11 B12 B13", "O1 O2 O3", "K7 R7 B7 O7", "R10 R11 R12", "K1 K2 K3 K4"]


def tight_sets(seed: int, degrees: float, height: float) -> np.ndarray:
    """A rendered 1000x750 photo of TIGHT_SETS laid edge to edge, the sets a little over half a tile apart."""
    rng = np.random.default_rng(seed)
    style = EDITIONS["classic"]
    a = np.radians(degrees)
    along, across = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    layout = Layout()
    for k, codes in enumerate(TIGHT_SETS):
        start = np.array([500.0, 375.0]) + across * (k - 3) * 1.6 * height - along * 2 * height
        layout.spots += careless_line([t.index for t in parse_tiles(codes)], start, degrees, height, style.aspect,
                                      rng, 0.0)
    drawn = compose(rng, background(rng, 1000, 750, "wood"), layout, style, tile_height=height,
                    homography=np.eye(3), effects=0.2, lift=(0.0, 0.0), extras=False)
    return drawn.image


@pytest.mark.parametrize("seed, degrees, height", [(1, 0, 40), (2, 30, 40), (3, 75, 42), (4, 10, 38), (5, 45, 40)])
def test_small_tiles_laid_edge_to_edge_are_parted_and_every_set_read(reader, seed, degrees, height):
    # about 30 px tall where the detector first looks: touching tiles run together into one outline
    reading = reader.read(tight_sets(seed, degrees, height))
    codes = reading.detections.codes
    assert sorted(" ".join(codes[i] for i in s.indices) for s in reading.sets) == sorted(TIGHT_SETS)
