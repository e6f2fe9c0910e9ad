"""Training samples (models/data.py, numpy and OpenCV only): targets stay on the tiles they label."""

from __future__ import annotations

import numpy as np
import pytest

from models import data
from rules.tiles import JOKER_INDEX
from models.data import Photo, detector_sample, jitter_colors

RED = (0, 0, 255)


def _red_tile_photo() -> Photo:
    """A black photo with one pure red tile, labelled corner by corner."""
    image = np.zeros((600, 800, 3), np.uint8)
    quad = np.array([[300, 200], [360, 200], [360, 290], [300, 290]], np.float32)
    image[200:290, 300:360] = RED
    return Photo(image, quad[None], np.array([0]), ordered=True, real=False)


@pytest.mark.parametrize("seed", range(24))
def test_detector_target_covers_the_tile_at_every_turn(monkeypatch, seed):
    # colours untouched, so the tile is exactly where the crop is red
    monkeypatch.setattr(data, "jitter_colors", lambda image, rng, strength=1.0, lighting=None: image)
    crop, target = detector_sample(_red_tile_photo(), np.random.default_rng(seed), 320, 768, 0.5, 4)
    assert crop.shape == (320, 320, 3) and target.shape == (2, 80, 80)
    b, g, r = (crop[..., i].astype(int) for i in range(3))
    red = (r > 160) & (g < 60) & (b < 60)
    # the red pixels seen at the target's 1/4 resolution
    seen = red.reshape(80, 4, 80, 4).mean(axis=(1, 3)) >= 0.5
    face, core = target.astype(bool)
    if not face.any() and not seen.any():
        return  # the crop missed the tile: nothing to compare
    iou = (face & seen).sum() / max(1, (face | seen).sum())
    assert iou > 0.7, f"seed {seed}: target face and tile overlap only {iou:.2f}"
    assert core.sum() < face.sum() and not (core & ~face).any()


def test_colour_jitter_repeats_for_a_seed_and_keeps_tile_colours():
    image = np.zeros((64, 64, 3), np.uint8)
    image[:, :32] = RED
    image[:, 32:] = (200, 120, 30)  # a blue tile face (BGR)
    for seed in range(40):
        a = jitter_colors(image, np.random.default_rng(seed))
        b = jitter_colors(image, np.random.default_rng(seed))
        assert a.dtype == np.uint8 and a.shape == image.shape
        assert np.array_equal(a, b), "a resumed run must cut the same sample"
        red = a[8:56, 4:28].reshape(-1, 3).mean(axis=0)
        blue = a[8:56, 36:60].reshape(-1, 3).mean(axis=0)
        assert red.argmax() == 2 and blue.argmax() == 0, f"seed {seed}: hues swapped"


def test_harsher_lighting_is_off_by_default_and_clips_faces_when_asked():
    """Lighting() is the default; asked for, overexposure clips ivory faces to white and a
    shaken photo is blurred."""
    image = np.full((48, 48, 3), 205, np.uint8)  # an ivory face
    image[20:28, 20:28] = 30  # a dark numeral
    plain = [jitter_colors(image, np.random.default_rng(seed)) for seed in range(30)]
    same = [jitter_colors(image, np.random.default_rng(seed), lighting=data.Lighting()) for seed in range(30)]
    assert all(np.array_equal(a, b) for a, b in zip(plain, same))
    over = [jitter_colors(image, np.random.default_rng(seed), lighting=data.Lighting(overexposed=1.0))
            for seed in range(30)]
    clipped = lambda outs: np.mean([(o[:16, :16] >= 250).all(axis=2).mean() for o in outs])  # noqa: E731
    assert clipped(over) > 0.5 > clipped(plain)
    shaken = [jitter_colors(image, np.random.default_rng(seed), lighting=data.Lighting(shaken=1.0))
              for seed in range(30)]
    # the numeral's hard edge is smeared: fewer pixels as dark as the numeral
    dark = lambda outs: np.mean([(o.max(axis=2) < 90).sum() for o in outs])  # noqa: E731
    assert dark(shaken) < dark(plain)


def test_overexposure_ceiling_spares_pale_crops_and_still_clips_faces_on_a_dark_table():
    """With ``pale_ceiling`` an overexposed crop that is already pale keeps its face below white,
    while ivory faces on a dark table are clipped as without it."""
    pale = np.full((48, 48, 3), 205, np.uint8)  # a face filling the crop: its mean is already high
    pale[20:28, 20:28] = 30
    dark = np.full((48, 48, 3), 40, np.uint8)  # a dark table with one ivory face
    dark[8:40, 12:36] = 205
    held = data.Lighting(overexposed=1.0, pale_ceiling=230)
    free = data.Lighting(overexposed=1.0)
    white = lambda outs, box: np.mean([(o[box] >= 250).all(axis=2).mean() for o in outs])  # noqa: E731
    seeds = range(30)
    pale_box, face_box = np.s_[:16, :16], np.s_[12:36, 16:32]
    assert white([jitter_colors(pale, np.random.default_rng(s), lighting=held) for s in seeds], pale_box) < 0.2
    assert white([jitter_colors(pale, np.random.default_rng(s), lighting=free) for s in seeds], pale_box) > 0.5
    on_dark = [jitter_colors(dark, np.random.default_rng(s), lighting=held) for s in seeds]
    assert white(on_dark, face_box) > 0.5


def _photo_with_a_negative() -> Photo:
    """The red tile, and a green patch the segmenter might take for a tile, mined as a negative."""
    photo = _red_tile_photo()
    photo.image[350:440, 500:560] = (0, 255, 0)
    photo.negatives = np.array([[[500, 350], [560, 350], [560, 440], [500, 440]]], np.float32)
    return photo


def test_mined_negatives_are_cut_as_not_a_tile_and_only_when_asked():
    from models.data import REJECT, classifier_sample

    photo, plain = _photo_with_a_negative(), _photo_with_a_negative()
    plain.negatives = plain.negatives[:0]
    for seed in range(20):
        # not asked for: the same samples as a photo with no negatives (the shipped recipe's)
        a = classifier_sample(photo, np.random.default_rng(seed), (32, 48), 0.08, 0.5)
        b = classifier_sample(plain, np.random.default_rng(seed), (32, 48), 0.08, 0.5)
        assert np.array_equal(a[0], b[0]) and a[1:] == b[1:]
        # asked for: a non-tile crop whose middle is the green patch
        crop, label, _ = classifier_sample(photo, np.random.default_rng(seed), (32, 48), 0.08, 0.0,
                                           negative=True)
        b, g, r = crop[16:32, 10:22].reshape(-1, 3).mean(axis=0)
        assert label == REJECT and g > 120 and g > 2 * max(b, r), f"seed {seed}: crop not at the negative"


def test_mined_negatives_keep_clear_of_every_face_up_tile():
    from models.negatives import no_tile_here

    face = np.array([[[100, 100], [160, 100], [160, 190], [100, 190]]], np.float32)
    outlines = np.array([
        face[0] + 4,                                      # the tile itself, loosely outlined
        face[0] + [40, 0],                                # straddling it and the table beside it
        [[300, 100], [360, 100], [360, 190], [300, 190]],  # clear of it: a negative
        [[0, 300], [50, 300], [50, 390], [0, 390]],       # cut by the photo's edge
    ], np.float32)
    assert no_tile_here(outlines, face, (800, 600)).tolist() == [False, False, True, False]


def _halves(crop: np.ndarray) -> tuple[float, float]:
    """How far apart the red and the blue half's middles lie, down and across the crop (px)."""
    red = np.argwhere((crop[..., 2] > 150) & (crop[..., 0] < 100))
    blue = np.argwhere((crop[..., 0] > 150) & (crop[..., 2] < 100))
    down, across = np.abs(red.mean(axis=0) - blue.mean(axis=0))
    return float(down), float(across)


def test_sideways_crops_show_a_tile_turned_a_quarter_as_no_tile_and_only_when_asked(monkeypatch):
    from models.data import REJECT, classifier_sample

    monkeypatch.setattr(data, "jitter_colors", lambda image, rng, strength=1.0, lighting=None: image)
    photo = _red_tile_photo()
    photo.image[245:290, 300:360] = (255, 0, 0)  # the face's lower half blue: which way it stands shows
    photo.class_ids = np.array([5])
    for seed in range(20):
        # not asked for: the tile as it stands (or half a turn off), read as its face
        crop, label, _ = classifier_sample(photo, np.random.default_rng(seed), (32, 48), 0.08, 0.0)
        down, across = _halves(crop)
        assert label == 5 and down > across + 8, f"seed {seed}: upright halves {down:.0f} down, {across:.0f} across"
        # asked for: the halves lie side by side, and the crop is no tile
        crop, label, _ = classifier_sample(photo, np.random.default_rng(seed), (32, 48), 0.08, 0.0, sideways=True)
        down, across = _halves(crop)
        assert label == REJECT and across > down, f"seed {seed}: sideways halves {down:.0f} down, {across:.0f} across"
    # a joker turned a quarter is still a joker: a photo of jokers alone gives none sideways
    photo.class_ids = np.array([JOKER_INDEX])
    for seed in range(5):
        crop, label, _ = classifier_sample(photo, np.random.default_rng(seed), (32, 48), 0.08, 0.0, sideways=True)
        down, across = _halves(crop)
        assert label == JOKER_INDEX and down > across + 8, f"seed {seed}: a joker cut sideways"
