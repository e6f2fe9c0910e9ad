"""The scene renderer: output contract, label geometry and tile faces."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.render import EDITIONS, random_style, render_scene, render_tile
from models.render.__main__ import data_yaml, main as render_main
from models.render.layout import Layout, Spot, line_of_tiles, rack_layout
from models.render.scene import compose, render_drawn
from models.render.backgrounds import background
from models.render.samples import render_sample
from rules.tiles import Tile, parse_tiles
from vision.datasets import load_folder


def upright_crop(image: np.ndarray, quad: np.ndarray, size=(60, 80)) -> np.ndarray:
    dst = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]], np.float32)
    m = cv2.getPerspectiveTransform(np.asarray(quad, np.float32), dst)
    return cv2.warpPerspective(image, m, size)


def ink(crop: np.ndarray) -> np.ndarray:
    """Pixels that are numeral ink rather than plastic: dark or strongly coloured."""
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    return (hsv[..., 2] < 110) | (hsv[..., 1] > 110)


def test_data_yaml_lists_the_53_codes_in_index_order():
    text = data_yaml()
    assert "reading-order" in text and "nc: 53" in text
    names = [line.strip()[2:] for line in text.splitlines() if line.startswith("  - ")]
    assert names == [Tile.from_index(i).code for i in range(53)]
    assert names[:2] == ["K1", "K2"] and names[13] == "B1" and names[-1] == "J"


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_six_and_nine_differ_after_a_half_turn(edition):
    style = EDITIONS[edition]
    for color in range(4):
        six = render_tile(style, color * 13 + 5, 96).astype(np.int16)
        nine = render_tile(style, color * 13 + 8, 96).astype(np.int16)
        turned = np.rot90(nine, 2)
        # the mark or underline sits at the bottom of the face, so a turned 9 is not a 6
        assert np.abs(six - turned).mean() > 4, (edition, color)


@pytest.mark.parametrize("height", [20, 64, 300])
def test_render_tile_size_follows_height(height):
    style = EDITIONS["classic"]
    img = render_tile(style, 52, height)
    assert img.shape[0] == height and img.dtype == np.uint8
    assert abs(img.shape[1] - height * style.aspect) <= 1


def test_numeral_sits_in_the_top_half_of_every_edition():
    for style in EDITIONS.values():
        for index in (0, 17, 34, 51):
            crop = render_tile(style, index, 120)
            ys = np.nonzero(ink(crop))[0]
            assert ys.mean() < crop.shape[0] * 0.55, style.name


def test_random_style_rejects_unknown_edition():
    with pytest.raises(ValueError, match="not an edition"):
        random_style(np.random.default_rng(0), "plastic")


def test_labels_are_face_quads_in_reading_order_at_any_rotation():
    """Draw known sets at 0/90/180/270 and free angles; every label's upright crop has its ink on top."""
    rng = np.random.default_rng(7)
    style = EDITIONS["classic"]
    for angle in (0.0, 90.0, 180.0, 270.0, 33.0, 211.0):
        canvas = background(rng, 640, 480, "wood")
        a = np.radians(angle)
        start = np.array([320, 240]) - 1.5 * 80 * style.aspect * np.array([np.cos(a), np.sin(a)])
        spots = line_of_tiles([4, 18, 31, 44], start, angle, 80, style.aspect, rng)
        drawn = compose(rng, canvas, Layout(spots=spots), style, tile_height=80, effects=0.2,
                        homography=np.eye(3))
        assert [i for i, _ in drawn.labels] == [4, 18, 31, 44]
        for _, quad in drawn.labels:
            crop = upright_crop(drawn.image, quad)
            mask = ink(crop)
            ys = np.nonzero(mask)[0]
            assert len(ys) > 50, angle
            assert ys.mean() < 0.5 * crop.shape[0], angle  # numeral near the first edge
            # the face is lighter than the table just outside it
            face = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)[~mask].mean()
            assert face > 150, angle


def test_random_scenes_label_only_tile_faces():
    rng = np.random.default_rng(11)
    good = total = 0
    for _ in range(6):
        image, labels = render_scene(rng, (800, 600))
        assert image.shape == (600, 800, 3)
        for index, quad in labels:
            assert 0 <= index <= 52 and quad.shape == (4, 2)
            assert np.all(quad >= 0) and np.all(quad <= (800, 600))
            crop = upright_crop(image, quad)
            ys = np.nonzero(ink(crop[:66]))[0]  # below row 66: mark, and rack ledges hiding the foot
            total += 1
            good += len(ys) > 0 and ys.mean() < 40  # numeral in the top half: reading order is right
    assert total > 20
    assert good / total > 0.95


def test_hidden_and_face_down_tiles_are_not_labelled():
    rng = np.random.default_rng(5)
    seen_down = False
    for _ in range(12):
        drawn = render_drawn(rng, (640, 480))
        for index, ok in zip(drawn.indices, drawn.labelled):
            if index is None:
                seen_down = True
                assert not ok
    assert seen_down


def test_same_seed_same_scene():
    a_img, a_labels = render_scene(np.random.default_rng(3), (640, 480))
    b_img, b_labels = render_scene(np.random.default_rng(3), (640, 480))
    assert np.array_equal(a_img, b_img)
    assert [i for i, _ in a_labels] == [i for i, _ in b_labels]


def test_cli_writes_a_yolo_folder_the_loader_reads(tmp_path):
    assert render_main(["--out", str(tmp_path), "--count", "3", "--seed", "2", "--size", "640x480"]) == 0
    items = load_folder(tmp_path)
    assert len(items) == 3 and all(item.ordered for item in items)
    for item in items:
        assert item.load().shape == (480, 640, 3)
        for line in (tmp_path / "labels" / f"{item.image_path.stem}.txt").read_text().splitlines():
            parts = line.split()
            assert len(parts) == 9 and 0 <= int(parts[0]) <= 52
            assert all(0.0 <= float(v) <= 1.0 for v in parts[1:])


def test_cli_rejects_a_bad_size(tmp_path):
    with pytest.raises(SystemExit):
        render_main(["--out", str(tmp_path), "--count", "1", "--size", "big"])


# ---------------------------------------------------------------- sample_images/

SAMPLES = Path(__file__).resolve().parents[1] / "sample_images"


def expected_samples() -> dict:
    return json.loads((SAMPLES / "expected.json").read_text())


def test_sample_images_cover_a_valid_table_invalid_sets_a_rack_and_a_joker():
    expected = expected_samples()
    assert {"valid_table.jpg", "invalid_table.jpg", "rack.jpg", "joker.jpg"} <= set(expected)
    assert any("J" in entry["tiles"] for entry in expected.values())
    for name, entry in expected.items():
        path = SAMPLES / name
        assert path.stat().st_size < 300_000, name
        image = cv2.imread(str(path))
        assert image.shape == (750, 1000, 3), name
        # every code is tile notation, and the sets hold exactly the tiles, in order
        assert [t.code for t in parse_tiles(entry["tiles"])] == entry["tiles"]
        assert [c for s in entry["sets"] for c in s] == entry["tiles"]
        assert len(entry["quads"]) == len(entry["tiles"])
        for quad in entry["quads"]:
            crop = upright_crop(image, np.array(quad, np.float32))
            ys = np.nonzero(ink(crop[:66]))[0]
            assert len(ys) > 30 and ys.mean() < 40, name


@pytest.mark.parametrize("name", ["rack.jpg", "joker.jpg"])
def test_sample_images_are_reproduced_by_the_renderer(name):
    image, entry = render_sample(name)
    assert entry == expected_samples()[name]
    if Path(EDITIONS["classic"].font).name == "DejaVuSans-Bold.ttf":  # the font the files were made with
        on_disk = cv2.imread(str(SAMPLES / name)).astype(np.int16)
        assert np.abs(on_disk - image).mean() < 3  # only JPEG loss between them


def test_sample_rack_rows_are_the_two_sets():
    entry = expected_samples()["rack.jpg"]
    assert len(entry["sets"]) == 2
    tops = [np.mean([entry["quads"][k][0][1] for k in range(len(entry["sets"][0]))]),
            np.mean([entry["quads"][k][0][1] for k in range(len(entry["sets"][0]), len(entry["tiles"]))])]
    assert tops[0] < tops[1]  # the back row is the first set


@pytest.mark.parametrize("shift, labelled", [(0.0, False), (0.5, False), (0.85, True)])
def test_a_tile_is_labelled_only_when_most_of_its_face_is_seen(shift, labelled):
    """A face-down tile laid over a face-up one hides all, half or a sliver of it."""
    rng = np.random.default_rng(1)
    style = EDITIONS["classic"]
    width = 100 * style.aspect
    spots = [Spot(20, (320, 240), 0.0, 100), Spot(None, (320 + shift * width, 240), 0.0, 100)]
    drawn = compose(rng, background(rng, 640, 480, "felt"), Layout(spots=spots), style, tile_height=100,
                    effects=0.2, homography=np.eye(3), lift=(0.0, 0.0))
    assert [i for i, _ in drawn.labels] == ([20] if labelled else [])


def test_cli_output_does_not_depend_on_the_worker_count(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    render_main(["--out", str(one), "--count", "2", "--seed", "9", "--size", "640x480"])
    render_main(["--out", str(two), "--count", "2", "--seed", "9", "--size", "640x480", "--workers", "2"])
    for name in ("000000.txt", "000001.txt"):
        assert (one / "labels" / name).read_text() == (two / "labels" / name).read_text()


# ---------------------------------------------------------------- editions and racks

def test_the_unknown_edition_its_font_and_joker_never_reach_training_scenes():
    from models.render.styles import UNKNOWN_EDITION

    held = EDITIONS[UNKNOWN_EDITION]
    rng = np.random.default_rng(0)
    styles = [random_style(rng) for _ in range(400)]
    assert not any(s.name == UNKNOWN_EDITION or s.font == held.font or s.joker == held.joker for s in styles)
    assert sum(s.name == "modern" for s in styles) > 400 / len(EDITIONS)  # today's edition is drawn most
    unknown = random_style(rng, UNKNOWN_EDITION)
    assert unknown.font == held.font and unknown.joker == held.joker


def test_modern_numerals_fill_about_two_thirds_of_the_face_without_a_disc():
    style = EDITIONS["modern"]
    assert not style.recess and style.mark == "edge"
    crop = render_tile(style, 4, 150)  # K5
    ys = np.nonzero(ink(crop))[0]
    assert 0.55 <= (ys.max() - ys.min()) / crop.shape[0] <= 0.75


def test_paired_jokers_are_one_black_and_one_red():
    style = EDITIONS["modern"]
    assert style.joker_pair
    rng = np.random.default_rng(2)
    spots = line_of_tiles([52, 52], (250, 240), 0.0, 120, style.aspect, rng)
    drawn = compose(rng, background(rng, 640, 480, "felt"), Layout(spots=spots), style, tile_height=120,
                    effects=0.0, homography=np.eye(3), lift=(0.0, 0.0))
    reds = []
    for _, quad in drawn.labels:
        hsv = cv2.cvtColor(upright_crop(drawn.image, quad), cv2.COLOR_BGR2HSV)
        inked = ink(upright_crop(drawn.image, quad))
        reds.append(float(np.mean(hsv[..., 1][inked] > 110)))
    assert min(reds) < 0.3 < 0.7 < max(reds)  # one face in black ink, the other in red


def test_racks_come_with_three_rows_and_seen_from_the_side():
    rows, sides = set(), 0
    for seed in range(30):
        drawn = render_drawn(np.random.default_rng([8, seed]), (1000, 750), kind="rack")
        widths = [np.linalg.norm(q[1] - q[0]) for q, ok in zip(drawn.quads, drawn.labelled) if ok]
        if len(widths) > 6:
            sides += max(widths) / min(widths) > 1.5  # the near end of a side view is larger
    for seed in range(40):
        layout = rack_layout(np.random.default_rng(seed), (1000, 750), 60, 0.72)
        rows.add(len(layout.racks[0].ledges))
    assert rows == {2, 3}
    assert sides >= 3


def test_what_the_camera_sees_past_the_table_is_plain_table_not_a_mirror_image():
    from models.render.camera import warp

    canvas = np.full((120, 160, 3), 90.0, np.float32)
    canvas[40:80, 130:158] = (250.0, 250.0, 250.0)  # a tile by the right edge
    # the camera looks 60 px past the right edge of the canvas
    matrix = np.array([[1.0, 0, -60], [0, 1, 0], [0, 0, 1]])
    seen = warp(canvas, matrix)
    assert np.allclose(seen[40:80, 70:98], 250.0)  # the tile, where the camera puts it
    assert np.allclose(seen[:, 101:], 90.0)  # past the edge: the table's colour, no copy of the tile
