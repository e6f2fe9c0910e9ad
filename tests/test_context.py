"""Tiles read in the context of their set (vision.context) and through the reader."""

import numpy as np
import pytest

from rules.options import RuleOptions
from rules.tiles import Tile
from vision.context import likeliest_valid
from vision.reader import ReaderOptions, TableReader
from vision.types import TILE_CODES, TileDetections

RULES = RuleOptions()


def line(*readings: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
    """(probs, read) for tiles given as {code: probability}; the likeliest code is the reading."""
    probs = np.zeros((len(readings), TILE_CODES), np.float32)
    for k, reading in enumerate(readings):
        for code, p in reading.items():
            probs[k, Tile.parse(code).index] = p
    return probs, probs.argmax(axis=1)


def codes(ids) -> list[str]:
    return [Tile.from_index(int(i)).code for i in ids]


def test_a_runner_up_reading_that_makes_the_set_valid_is_taken():
    probs, read = line({"R5": 0.6, "R3": 0.3}, {"R4": 0.95}, {"R5": 0.97}, {"R6": 0.9})
    assert codes(likeliest_valid(probs, read, RULES)) == ["R3", "R4", "R5", "R6"]


def test_a_doubtful_tile_may_be_any_number_of_its_colour():
    # R3 read as R4 at 0.45, R3 not even among the runners-up: only R3 makes the run valid
    probs, read = line({"R4": 0.45, "R9": 0.2, "R2": 0.08}, {"R4": 0.98}, {"R5": 0.98}, {"R6": 0.93})
    assert codes(likeliest_valid(probs, read, RULES)) == ["R3", "R4", "R5", "R6"]


def test_a_surely_read_invalid_set_stays_as_read():
    # a player's mistake: every tile read surely, the runner-up far behind
    probs, read = line({"K5": 0.97, "K7": 0.02}, {"K6": 0.98}, {"K8": 0.96, "K7": 0.03})
    assert likeliest_valid(probs, read, RULES) is None


def test_a_valid_line_is_left_alone():
    probs, read = line({"O7": 0.5, "O1": 0.4}, {"K7": 0.9}, {"B7": 0.9})
    assert likeliest_valid(probs, read, RULES) is None


def test_two_readings_about_as_likely_change_nothing():
    # K7 O7 and a doubtful third tile that may be B7 or R7: either makes a group, neither stands out
    probs, read = line({"K7": 0.95}, {"O7": 0.95}, {"K1": 0.4, "B7": 0.2, "R7": 0.2})
    assert likeliest_valid(probs, read, RULES) is None
    probs, read = line({"K7": 0.95}, {"O7": 0.95}, {"K1": 0.4, "B7": 0.2, "R7": 0.02})
    assert codes(likeliest_valid(probs, read, RULES)) == ["K7", "O7", "B7"]


def test_the_reader_marks_what_the_context_changed_and_keeps_the_model_reading():
    probs, read = line({"R4": 0.45, "R9": 0.2}, {"R4": 0.98}, {"R5": 0.98}, {"R6": 0.93})
    quads = np.array([[[x, 0], [x + 30, 0], [x + 30, 40], [x, 40]] for x in (0, 32, 64, 96)], np.float32)
    found = TileDetections(quads, read, probs[np.arange(4), read], probs=probs)
    reading = TableReader(None, ReaderOptions(RULES)).read_detections(found)
    assert [s.status for s in reading.sets] == ["valid"]
    assert reading.detections.codes == ["R3", "R4", "R5", "R6"]
    assert reading.detections.inferred.tolist() == [True, False, False, False]
    assert reading.model_detections.codes == ["R4", "R4", "R5", "R6"]
    assert not reading.sets[0].as_read.valid  # the verdict on the model's own reading is kept


def test_detections_without_probabilities_are_sure_of_their_own_code():
    found = TileDetections(np.zeros((2, 4, 2)), [3, 52], [0.9, 0.8])
    assert found.probs.shape == (2, TILE_CODES)
    assert found.probs[0, 3] == 1.0 and found.probs[1, 52] == 1.0 and found.probs.sum() == 2.0
    both = TileDetections.concat([found, found[np.array([1])]])
    assert both.codes == ["K4", "J", "J"] and both.probs.shape == (3, TILE_CODES)
    with pytest.raises(ValueError):
        TileDetections(np.zeros((2, 4, 2)), [3, 52], [0.9, 0.8], probs=np.zeros((3, TILE_CODES)))


def test_tiles_laid_in_sets_counts_the_best_cut_of_a_row():
    from rules.tiles import parse_tiles
    from vision.context import laid_in_sets

    assert laid_in_sets(parse_tiles("K7 B7 O7 R2 R3 R4"), RULES) == 6
    assert laid_in_sets(parse_tiles("R1 R2 R3 K9 O4 B5 B6"), RULES) == 3
    assert laid_in_sets(parse_tiles("R1 K5 B9 J O13 O2"), RULES) == 0
    assert laid_in_sets(parse_tiles("K10 K9 K8"), RULES) == 3  # a run laid descending is laid in order


def test_a_runner_up_at_a_twelfth_of_the_reading_is_still_weighed():
    # a K6 at the end of K7 K8 K9 read as K4 (0.85), K6 at 0.07 of that: the run is the better guess
    probs, read = line({"K4": 0.85, "K6": 0.07}, {"K7": 0.97}, {"K8": 0.96}, {"K9": 0.98})
    assert codes(likeliest_valid(probs, read, RULES)) == ["K6", "K7", "K8", "K9"]
