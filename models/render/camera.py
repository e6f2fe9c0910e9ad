"""What the camera does to the whole table: perspective, uneven light, glare, blur, noise.

``perspective`` returns the matrix too, so the labels follow the pixels.
"""

from __future__ import annotations

import cv2
import numpy as np


def random_homography(rng: np.random.Generator, size: tuple[int, int], strength: float) -> np.ndarray:
    """Canvas-to-image matrix of a camera tilted towards the table (far side smaller).

    The frame's corners are taken from inside the canvas (the region of the
    canvas the camera sees), so no empty border appears.
    """
    W, H = size
    far = rng.uniform(0, 0.25 if rng.random() < 0.8 else 0.4) * strength
    src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float64)
    side = int(rng.choice([0, 0, 0, 0, 1, 2, 3]))  # which edge is far from the camera
    if side == 0:    # far at the top: the bottom of the canvas is seen narrower, so it is enlarged
        src[2, 0] -= far * W
        src[3, 0] += far * W
    elif side == 1:  # far at the bottom
        src[0, 0] += far * W
        src[1, 0] -= far * W
    elif side == 2:  # far on the left
        src[1, 1] += far * H
        src[2, 1] -= far * H
    else:            # far on the right
        src[0, 1] += far * H
        src[3, 1] -= far * H
    src += rng.uniform(0, 0.05 * strength, (4, 2)) * (W, H) * np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]])
    # a small turn of the camera about its axis, shrunk to stay inside the canvas
    a = np.radians(rng.normal(0, 4) * strength)
    c = np.array([W / 2, H / 2])
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    turned = (src - c) @ rot.T
    half = np.abs(turned).max(axis=0)
    scale = min(1.0, W / 2 / half[0], H / 2 / half[1])
    src = turned * scale + c
    dst = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    return cv2.getPerspectiveTransform(src.astype(np.float32), dst).astype(np.float64)


def apply_homography(points: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    out = cv2.perspectiveTransform(pts[None], matrix)[0]
    return out.astype(np.float32).reshape(np.shape(points))


def warp(canvas: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """The canvas as the camera sees it.

    Where the camera sees past the canvas (a rack seen from the side), the
    table goes on in its edge's median colour: a mirror image there would
    show copies of tiles near the edge that no label names.
    """
    H, W = canvas.shape[:2]
    # pixel centres sit at +0.5 in label coordinates
    shift = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    m = np.linalg.inv(shift) @ matrix @ shift
    edge = np.concatenate([canvas[0], canvas[-1], canvas[:, 0], canvas[:, -1]])
    fill = tuple(float(v) for v in np.median(edge, axis=0))
    return cv2.warpPerspective(canvas, m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=fill)


def lighting(rng: np.random.Generator, img: np.ndarray, strength: float) -> np.ndarray:
    """A smooth multiplicative light field: a gradient, a warm/cool cast, sometimes a vignette."""
    H, W = img.shape[:2]
    h, w = 24, 32
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    g = rng.uniform(-0.35, 0.35, 2) * strength
    field = 1 + g[0] * (xx / w - 0.5) + g[1] * (yy / h - 0.5)
    if rng.random() < 0.4:
        c = rng.uniform(0, 1, 2) * (w, h)
        r2 = ((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (w * w)
        field *= 1 - rng.uniform(0.1, 0.4) * strength * np.clip(r2, 0, 1)
    field *= rng.uniform(0.7, 1.2) ** strength
    cast = 1 + rng.uniform(-0.08, 0.08, 3) * strength
    if rng.random() < 0.2 * strength:  # warm lamp or cool daylight
        cast *= (0.82, 0.95, 1.08) if rng.random() < 0.7 else (1.08, 1.0, 0.92)
    cast = cast.astype(np.float32)
    field = cv2.resize(field[..., None] * cast, (W, H), interpolation=cv2.INTER_LINEAR)
    return np.multiply(img, field, out=img)


def soft_shadow(rng: np.random.Generator, img: np.ndarray, strength: float) -> np.ndarray:
    """A large blurred shadow (a person or a lamp arm) across part of the table."""
    H, W = img.shape[:2]
    small = np.zeros((H // 8, W // 8), np.float32)
    pts = (rng.uniform(-0.2, 1.2, (int(rng.integers(3, 6)), 2)) * (W // 8, H // 8)).astype(np.int32)
    cv2.fillConvexPoly(small, cv2.convexHull(pts), 1.0)
    small = cv2.GaussianBlur(small, (0, 0), rng.uniform(2, 8))
    mask = cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)
    img *= (1 - rng.uniform(0.2, 0.5) * strength * mask)[..., None]
    return img


def glare(rng: np.random.Generator, img: np.ndarray, strength: float) -> np.ndarray:
    """Bright reflections of a lamp or window; numerals under them stay faintly readable."""
    H, W = img.shape[:2]
    small = np.zeros((H // 8, W // 8), np.float32)
    for _ in range(int(rng.integers(1, 3))):
        c = (int(rng.uniform(0, W // 8)), int(rng.uniform(0, H // 8)))
        axes = (int(rng.uniform(2, W // 20)), int(rng.uniform(2, H // 20)))
        cv2.ellipse(small, c, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
    small = cv2.GaussianBlur(small, (0, 0), rng.uniform(1, 4))
    mask = cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)[..., None]
    return img + (255 - img) * np.clip(mask * rng.uniform(0.3, 0.8) * strength, 0, 0.45)


def blur(rng: np.random.Generator, img: np.ndarray, tile_height: float) -> np.ndarray:
    """Out of focus or shaken; never so much that a small tile's numeral is lost."""
    limit = max(0.5, tile_height / 40)
    if rng.random() < 0.7:
        return cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.4, min(2.0, limit))))
    k = int(rng.uniform(3, max(3.5, min(9, limit * 4))))
    kernel = np.zeros((k, k), np.float32)
    a = rng.uniform(0, np.pi)
    c = (k - 1) / 2
    cv2.line(kernel, (int(c - np.cos(a) * c), int(c - np.sin(a) * c)), (int(c + np.cos(a) * c),
             int(c + np.sin(a) * c)), 1.0, 1)
    return cv2.filter2D(img, -1, kernel / max(kernel.sum(), 1e-6))


def noise(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    sigma = float(rng.uniform(1, 7))
    n = np.empty(img.shape[:2], np.float32)
    cv2.setRNGSeed(int(rng.integers(2**31 - 1)))  # OpenCV's generator is fast; seed it from ours
    cv2.randn(n, 0.0, sigma)
    img += n[..., None]
    return img


def resample(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """A low-resolution camera or digital zoom: down and back up."""
    H, W = img.shape[:2]
    f = rng.uniform(0.4, 0.8)
    small = cv2.resize(img, (max(8, int(W * f)), max(8, int(H * f))), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (W, H), interpolation=cv2.INTER_LINEAR)


def depth_of_field(rng: np.random.Generator, img: np.ndarray, tile_height: float) -> np.ndarray:
    """A phone held close: sharp where it focused, softer towards the far edge."""
    H, W = img.shape[:2]
    soft = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(1.0, max(1.2, min(3.0, tile_height / 30)))))
    ramp = np.clip((np.linspace(1, 0, H, dtype=np.float32) - rng.uniform(0.2, 0.6)) * 2.5, 0, 1)
    mask = ramp[:, None, None]
    return img + (soft - img) * mask
