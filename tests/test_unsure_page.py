"""A set the reader doubts reaches the page as unsure, with its doubtful tile named."""

import numpy as np

from rules.options import find_variant
from rules.tiles import Tile
from vision.live import reading_state
from vision.reader import ReaderOptions, TableReader
from vision.types import TileDetections
from webui.views import sets_json

SABRA = find_variant("sabra")


class StandIn:
    """A model that 'finds' the given detections in any image."""

    def __init__(self, detections: TileDetections):
        self.detections = detections

    def detect(self, image):
        return self.detections


def page_sets(codes: str, scores: dict[int, float]) -> list[dict]:
    tiles = codes.split()
    quads = [[[40 + 48 * k, 40], [85 + 48 * k, 40], [85 + 48 * k, 100], [40 + 48 * k, 100]] for k in range(len(tiles))]
    s = np.full(len(tiles), 0.99, np.float32)
    for k, v in scores.items():
        s[k] = v
    det = TileDetections(np.array(quads, float), [Tile.parse(c).index for c in tiles], s)
    reading = TableReader(StandIn(det), ReaderOptions(rules=SABRA)).read(np.zeros((300, 400, 3), np.uint8))
    return sets_json(reading_state(reading, []), SABRA)


def test_a_valid_run_held_together_by_a_joker_read_at_009_is_unsure_on_the_page():
    [s] = page_sets("R3 R4 J R6", {2: 0.09})
    assert (s["status"], s["doubtful"], s["past_edge"]) == ("unsure", ["J"], False)


def test_a_valid_run_read_surely_is_valid_on_the_page():
    [s] = page_sets("R3 R4 J R6", {2: 0.6})
    assert (s["status"], s["doubtful"]) == ("valid", [])
