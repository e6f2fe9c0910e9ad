"""Straightened tile crops and quad orientation: shared by training and inference.

The classifier sees every tile the same way: the face warped to a fixed
upright rectangle with a small margin, so crops made while training and
while reading a photo are pixel-for-pixel the same recipe.
"""

from __future__ import annotations

import cv2
import numpy as np


def order_upright(quad: np.ndarray) -> np.ndarray:
    """Corners TL, TR, BR, BL with the long side vertical and the top edge facing image-up.

    A tile face is taller than wide, so the long axis fixes the rotation up to
    180 degrees; the classifier's orientation output settles the rest.
    """
    quad = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    nxt = quad[[1, 2, 3, 0]]
    # make the order clockwise on screen (y down)
    if float(np.sum(quad[:, 0] * nxt[:, 1] - nxt[:, 0] * quad[:, 1])) < 0:
        quad = quad[::-1]
        nxt = quad[[1, 2, 3, 0]]
    edges = np.hypot(*(nxt - quad).T).tolist()  # edge i runs from corner i to corner i+1
    ys = quad[:, 1].tolist()
    # choose the start so that edge 0->1 is a short edge whose midpoint is highest
    best, best_key = 0, None
    for start in range(4):
        top = edges[start] + edges[(start + 2) % 4]
        side = edges[(start + 1) % 4] + edges[(start + 3) % 4]
        key = (top > side * 1.02, (ys[start] + ys[(start + 1) % 4]) / 2)  # short top edge first, then highest
        if best_key is None or key < best_key:
            best, best_key = start, key
    return np.roll(quad, -best, axis=0)


def rotate_half_turn(quad: np.ndarray) -> np.ndarray:
    """The same face read upside down: TL<->BR, TR<->BL."""
    return np.roll(np.asarray(quad).reshape(4, 2), 2, axis=0)


def turn_upright(quads: np.ndarray, upside_down: np.ndarray) -> np.ndarray:
    """(N, 4, 2) quads with those the classifier reads upside down (probability above 0.5) turned a
    half turn, so each starts at the face's top-left corner."""
    return np.array([rotate_half_turn(q) if f > 0.5 else q for q, f in zip(quads, upside_down)],
                    dtype=np.float32).reshape(-1, 4, 2)


def warp_crop(image: np.ndarray, quad: np.ndarray, size: tuple[int, int], margin: float) -> np.ndarray:
    """Warp the face ``quad`` (TL, TR, BR, BL) to ``size`` = (width, height), keeping ``margin``
    of the face size around it so a slightly loose outline still holds the whole numeral."""
    w, h = size
    mx, my = w * margin / (1 + 2 * margin), h * margin / (1 + 2 * margin)
    dst = np.array([[mx, my], [w - mx, my], [w - mx, h - my], [mx, h - my]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(np.asarray(quad, dtype=np.float32), dst)
    return cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def shrink_quad(quad: np.ndarray, ratio: float) -> np.ndarray:
    """The quad scaled by ``ratio`` about its centre (the detector's 'core' target)."""
    quad = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    c = quad.mean(axis=0)
    return c + (quad - c) * ratio


def context_crop(image: np.ndarray, quad: np.ndarray, size: int, context: float) -> np.ndarray:
    """A ``size`` x ``size`` crop centred on the tile ``quad``, ``context`` times its long side
    across and turned with it: the tile and what lies around it (a set's neighbours, a rack's
    ledge, the grid lines running on past a score pad's cell)."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    centre = quad.mean(axis=0)
    across = (quad[1] - quad[0] + quad[2] - quad[3]) / 2
    down = (quad[3] - quad[0] + quad[2] - quad[1]) / 2
    wide, tall = float(np.linalg.norm(across)), float(np.linalg.norm(down))
    half = max(wide, tall, 1.0) * context / 2
    x = across / max(wide, 1e-6) * half
    y = down / max(tall, 1e-6) * half
    src = np.float32([centre - x - y, centre + x - y, centre - x + y])
    dst = np.float32([[0, 0], [size, 0], [0, size]])
    flags = cv2.INTER_AREA if 2 * half > size else cv2.INTER_LINEAR
    return cv2.warpAffine(image, cv2.getAffineTransform(src, dst), (size, size), flags=flags,
                          borderMode=cv2.BORDER_REPLICATE)
