"""Rendered photos for teaching the reader a box of tiles: the layout photo and typed racks.

The layout is the fixed order the README shows: black 1-13, blue 1-13,
orange 1-13 and red 1-13 in four rows, the two jokers in a fifth. A typed
photo is any tiles in rows, as a player would type them. Both are scenes of
one edition, laid upright and seen from above with a mild camera tilt.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from models.render import camera
from models.render.backgrounds import background
from models.render.layout import Layout, line_of_tiles
from models.render.scene import Drawn, compose
from models.render.styles import random_style
from vision.calibration import LAYOUT


def rows_photo(rng: np.random.Generator, rows: list[list[int]], edition: str | None = None,
               size: tuple[int, int] = (1000, 750), effects: float = 0.4) -> Drawn:
    """Tiles in upright rows (top to bottom, left to right) filling most of the frame."""
    W, H = size
    style = random_style(rng, edition)
    longest = max(len(r) for r in rows)
    gap = 0.06
    height = min(0.88 * W / (longest * style.aspect * (1 + gap)), 0.85 * H / (len(rows) * 1.25))
    pitch = 1.25 * height
    layout = Layout()
    top = H / 2 - (len(rows) - 1) / 2 * pitch
    for r, row in enumerate(rows):
        step = height * style.aspect * (1 + gap)
        start = np.array([W / 2 - (len(row) - 1) / 2 * step, top + r * pitch]) + rng.normal(0, 0.05 * height, 2)
        first = len(layout.spots)
        layout.spots += line_of_tiles(list(row), start, float(rng.normal(0, 1.0)), height, style.aspect, rng,
                                      gap=gap * height * style.aspect, jitter=0.5)
        layout.sets.append(list(range(first, len(layout.spots))))
    canvas = background(rng, W, H)
    homography = camera.random_homography(rng, size, 0.3 * effects)
    return compose(rng, canvas, layout, style, tile_height=height, homography=homography, effects=effects)


def layout_photo(rng: np.random.Generator, edition: str | None = None, size: tuple[int, int] = (1000, 750),
                 effects: float = 0.4) -> Drawn:
    """One of each tile in the calibration order (four colour rows, jokers in a fifth)."""
    return rows_photo(rng, [list(r) for r in LAYOUT], edition, size, effects)


def write_rows_photos(out: Path, count: int, seed: int, edition: str | None = None) -> Path:
    """A YOLO folder of ``count`` photos of random tiles in rows (a typed photo's kind), for testing."""
    from models.render.__main__ import data_yaml, label_lines

    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    (out / "data.yaml").write_text(data_yaml())
    for i in range(count):
        rng = np.random.default_rng([seed, i])
        rows = [[int(t) for t in rng.integers(0, 53, int(rng.integers(3, 14)))] for _ in range(int(rng.integers(1, 5)))]
        size = ((1000, 750), (750, 1000), (1280, 960), (800, 600))[int(rng.integers(4))]
        drawn = rows_photo(rng, rows, edition, size, effects=float(rng.uniform(0.3, 1.0)))
        cv2.imwrite(str(out / "images" / f"{i:06d}.jpg"), drawn.image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        (out / "labels" / f"{i:06d}.txt").write_text(label_lines(drawn.labels, size))
    return out
