"""Synthetic Rummikub table scenes with exact labels, for training the tile model.

``render_scene(rng, size)`` gives an image and the face quad of every readable
tile (corners in reading order); ``python -m models.render`` writes a
YOLO-format folder of them.
"""

from models.render.scene import render_scene
from models.render.styles import EDITIONS, Style, random_style
from models.render.tiles import render_tile

__all__ = ["EDITIONS", "Style", "random_style", "render_scene", "render_tile"]
