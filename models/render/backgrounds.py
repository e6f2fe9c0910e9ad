"""Table surfaces: wood, white and marble tops, cloth, felt, printed tablecloths, dark tables.

Each is drawn at a reduced size where it is smooth and scaled up, with fine
grain added at full size, so a background costs a few milliseconds.
"""

from __future__ import annotations

import cv2
import numpy as np

KINDS = ("wood", "wood", "wood", "white", "marble", "cloth", "felt", "pattern", "gingham", "dark", "blobs")


def _smooth_noise(rng: np.random.Generator, w: int, h: int, cells: int) -> np.ndarray:
    """Value noise in [0, 1] with about ``cells`` blobs across the long side."""
    s = max(w, h) / cells
    small = rng.random((max(2, int(h / s) + 2), max(2, int(w / s) + 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _grain(rng: np.random.Generator, w: int, h: int, sigma: float) -> np.ndarray:
    noise = np.empty((h, w), np.float32)
    cv2.setRNGSeed(int(rng.integers(2**31 - 1)))  # OpenCV's generator is fast; seed it from ours
    cv2.randn(noise, 0.0, sigma)
    return noise


def _wood(rng, w, h):
    """Grain along x (rings bent by noise, fine streaks), plank seams, turned to a random angle."""
    yy = np.arange(h, dtype=np.float32)[:, None]
    warp = _smooth_noise(rng, w, h, 5) * rng.uniform(8, 40)
    period = rng.uniform(12, 60)
    rings = 0.5 + 0.5 * np.sin((yy + warp) * 2 * np.pi / period)
    streaks = cv2.resize(rng.random((h, 6)).astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    t = 0.55 * rings ** rng.uniform(1, 3) + 0.45 * streaks
    plank = rng.uniform(60, 200)
    if rng.random() < 0.6:
        seams = ((yy + rng.uniform(0, plank)) % plank < 1.0).astype(np.float32)
        t = t * (1 - 0.6 * seams)
    light = np.array([rng.uniform(90, 150), rng.uniform(140, 190), rng.uniform(185, 235)], np.float32)
    if rng.random() < 0.35:  # dark walnut or stained tops
        light *= rng.uniform(0.45, 0.7)
    dark = light * rng.uniform(0.5, 0.8) * np.array([0.85, 0.92, 1.0], np.float32)
    img = dark + (light - dark) * t[..., None]
    angle = rng.choice([0.0, 90.0, rng.uniform(0, 180)])
    if angle:
        m = cv2.getRotationMatrix2D((w / 2, h / 2), float(angle), 1.0 + abs(np.sin(np.radians(angle))) * 0.5)
        img = cv2.warpAffine(img, m, (w, h), borderMode=cv2.BORDER_REFLECT)
    return img


def _flat(rng, w, h, base, spread):
    tint = _smooth_noise(rng, w, h, 3)[..., None]
    return np.asarray(base, np.float32) * (1 - spread / 2 + spread * tint)


def _white(rng, w, h):
    v = rng.uniform(200, 250)
    base = (v + rng.uniform(-8, 4), v + rng.uniform(-6, 6), v + rng.uniform(-4, 8))
    return _flat(rng, w, h, base, 0.08)


def _marble(rng, w, h):
    img = _white(rng, w, h)
    veins = np.zeros((h, w), np.float32)
    for _ in range(int(rng.integers(2, 7))):
        pts = [rng.uniform(0, 1, 2) * (w, h)]
        step = rng.uniform(0, 2 * np.pi)
        for _ in range(int(rng.integers(8, 25))):
            step += rng.normal(0, 0.5)
            pts.append(pts[-1] + np.array([np.cos(step), np.sin(step)]) * rng.uniform(20, 70))
        cv2.polylines(veins, [np.array(pts, np.int32)], False, float(rng.uniform(0.3, 0.9)),
                      int(rng.integers(1, 4)), cv2.LINE_AA)
    veins = cv2.GaussianBlur(veins, (0, 0), rng.uniform(0.8, 2.5))
    return img * (1 - 0.55 * veins[..., None])


def _cloth(rng, w, h):
    base = rng.uniform(60, 230, 3)
    img = _flat(rng, w, h, base, 0.2)
    period = rng.uniform(2, 5)
    xx = np.arange(w, dtype=np.float32)[None, :]
    yy = np.arange(h, dtype=np.float32)[:, None]
    weave = (np.sin(xx * 2 * np.pi / period) * np.sin(yy * 2 * np.pi / period))
    img *= (1 + rng.uniform(0.04, 0.15) * weave)[..., None]
    return img


def _felt(rng, w, h):
    colors = ((60, 110, 30), (40, 90, 20), (110, 60, 20), (40, 40, 120), (70, 70, 70), (30, 60, 90))
    base = np.array(colors[rng.integers(len(colors))], np.float32) * rng.uniform(0.7, 1.4)
    return _flat(rng, w, h, base, 0.25)


def _pattern(rng, w, h):
    bg = rng.uniform(120, 250, 3)
    fg = rng.uniform(20, 220, 3)
    img = np.empty((h, w, 3), np.float32)
    img[:] = bg
    size = rng.uniform(8, 40)
    kind = rng.integers(4)
    if kind == 0:  # stripes
        a = rng.uniform(0, np.pi)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        m = (((xx * np.cos(a) + yy * np.sin(a)) / size) % 1 < rng.uniform(0.2, 0.6)).astype(np.float32)
        img += (fg - bg) * m[..., None]
    elif kind == 1:  # polka dots
        for y in np.arange(0, h + size, size * 1.5):
            for x in np.arange((y / size) % 2 * size * 0.75, w + size, size * 1.5):
                cv2.circle(img, (int(x), int(y)), int(size * 0.35), fg.tolist(), -1, cv2.LINE_AA)
    elif kind == 2:  # checker
        yy, xx = np.mgrid[0:h, 0:w]
        m = (((xx // size).astype(int) + (yy // size).astype(int)) % 2).astype(np.float32)
        img += (fg - bg) * m[..., None]
    else:  # flowers: scattered petals in a few colours
        for _ in range(int(w * h / (size * size * 3))):
            c = rng.uniform(0, 1, 2) * (w, h)
            col = rng.uniform(30, 230, 3).tolist()
            for k in range(5):
                a = k * 2 * np.pi / 5
                p = (int(c[0] + np.cos(a) * size * 0.3), int(c[1] + np.sin(a) * size * 0.3))
                cv2.circle(img, p, int(size * 0.2), col, -1, cv2.LINE_AA)
    return img


def _gingham(rng, w, h):
    bg = np.full(3, rng.uniform(220, 250), np.float32)
    fg = rng.uniform(30, 200, 3).astype(np.float32)
    size = rng.uniform(6, 25)
    xx = (np.arange(w) // size % 2).astype(np.float32)[None, :]
    yy = (np.arange(h) // size % 2).astype(np.float32)[:, None]
    m = 0.5 * xx + 0.5 * yy
    return bg + (fg - bg) * m[..., None]


def _dark(rng, w, h):
    v = rng.uniform(20, 80)
    return _flat(rng, w, h, (v * rng.uniform(0.8, 1.2), v, v * rng.uniform(0.8, 1.2)), 0.3)


def _blobs(rng, w, h):
    img = np.empty((h // 2, w // 2, 3), np.float32)
    img[:] = rng.uniform(40, 230, 3)
    for _ in range(int(rng.integers(3, 12))):
        c = (int(rng.uniform(0, w // 2)), int(rng.uniform(0, h // 2)))
        cv2.ellipse(img, c, (int(rng.uniform(3, w // 3)), int(rng.uniform(3, h // 3))), rng.uniform(0, 180), 0,
                    360, rng.uniform(20, 240, 3).tolist(), -1)
    img = cv2.GaussianBlur(img, (0, 0), 3)
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)


def background(rng: np.random.Generator, width: int, height: int, kind: str | None = None) -> np.ndarray:
    """A float32 BGR table surface ``height`` x ``width``."""
    kind = kind or str(rng.choice(KINDS))
    maker = {"wood": _wood, "white": _white, "marble": _marble, "cloth": _cloth, "felt": _felt,
             "pattern": _pattern, "gingham": _gingham, "dark": _dark, "blobs": _blobs}.get(kind)
    if maker is None:
        raise ValueError(f"{kind!r} is not a background (one of {', '.join(sorted(set(KINDS)))})")
    half_w, half_h = max(8, width // 2), max(8, height // 2)
    img = cv2.resize(maker(rng, half_w, half_h), (width, height), interpolation=cv2.INTER_LINEAR)
    img = img + _grain(rng, width, height, float(rng.uniform(1, 6)))[..., None]
    return np.clip(img, 0, 255).astype(np.float32)
