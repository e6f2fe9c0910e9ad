"""Things on the table that are not tiles: printed digits to ignore, and hands or objects in the way.

Distractors lie under the tiles (paper with numbers, keyboards, dice, cards,
sticky notes, word-game tiles, dominoes); occluders lie over them (hands, cups, pens, phones) and are
also painted into the id map so covered tiles lose their label.
"""

from __future__ import annotations

import cv2
import numpy as np

S = 16  # sub-pixel shift for OpenCV drawing
INKS = ((20, 20, 20), (160, 60, 20), (30, 30, 190), (40, 120, 220), (120, 40, 40))
FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX, cv2.FONT_HERSHEY_PLAIN,
         cv2.FONT_HERSHEY_SCRIPT_SIMPLEX)


def _rot_rect(center, w, h, angle):
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return local @ rot.T + center


def _patch(rng, w, h, color):
    img = np.empty((h, w, 3), np.uint8)  # uint8: OpenCV draws text only on 8-bit images
    img[:] = np.clip(color, 0, 255)
    return img


def _paste(canvas, patch, alpha, center, angle, occ=None):
    """Rotate a patch about its centre and blend it onto the canvas at ``center``."""
    h, w = patch.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -angle, 1.0)
    corners = _rot_rect(np.asarray(center), w, h, angle)
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int)
    m[:, 2] += np.asarray(center) - (w / 2, h / 2) - (x0, y0)
    H, W = canvas.shape[:2]
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if cx1 <= cx0 or cy1 <= cy0:
        return corners
    size = (x1 - x0, y1 - y0)
    p = cv2.warpAffine(patch, m, size, flags=cv2.INTER_LINEAR).astype(np.float32)
    a = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR)
    sl = (slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0))
    roi = canvas[cy0:cy1, cx0:cx1]
    roi += (p[sl] - roi) * a[sl][..., None]
    return corners


def _digits(rng, n):
    return "".join(str(int(d)) for d in rng.integers(0, 10, n))


def paper(rng, canvas, center, scale):
    """A sheet with rows of numbers (a score pad) in pen or print."""
    w, h = int(scale * rng.uniform(2.5, 5)), int(scale * rng.uniform(3, 5))
    img = _patch(rng, w, h, rng.uniform(215, 252) * np.array([1, 1, rng.uniform(0.9, 1.0)]))
    ink = INKS[rng.integers(len(INKS))]
    font = FONTS[rng.integers(len(FONTS))]
    fs = scale * rng.uniform(0.006, 0.02)
    line = max(8, int(fs * 35))
    if rng.random() < 0.5:  # grid of a score sheet
        for y in range(line, h, line):
            cv2.line(img, (0, y), (w, y), (150, 150, 150), 1)
        for x in range(0, w, int(w / rng.integers(2, 5))):
            cv2.line(img, (x, 0), (x, h), (150, 150, 150), 1)
    for y in range(int(line * 0.85), h, line):
        text = " ".join(_digits(rng, int(rng.integers(1, 4))) for _ in range(int(rng.integers(1, 5))))
        cv2.putText(img, text, (int(rng.uniform(2, 10)), y), font, fs, ink, max(1, int(fs * 2)), cv2.LINE_AA)
    _paste(canvas, img, np.ones((h, w), np.float32), center, rng.uniform(0, 360))


def keyboard(rng, canvas, center, scale):
    """A grid of keys with digits and letters printed on them."""
    key = scale * rng.uniform(0.25, 0.6)
    cols, rows = int(rng.integers(6, 14)), int(rng.integers(2, 6))
    w, h = int(cols * key * 1.1), int(rows * key * 1.1)
    dark = rng.random() < 0.6
    body = (30, 30, 30) if dark else (200, 200, 200)
    keyc = (50, 50, 50) if dark else (240, 240, 240)
    inkc = (230, 230, 230) if dark else (20, 20, 20)
    img = _patch(rng, w, h, body)
    chars = "1234567890QWERTYUIOPASDFGHJKLZXCVBNM"
    for r in range(rows):
        for c in range(cols):
            x, y = int(c * key * 1.1 + key * 0.05), int(r * key * 1.1 + key * 0.05)
            cv2.rectangle(img, (x, y), (int(x + key), int(y + key)), keyc, -1)
            ch = chars[(r * 10 + c) % len(chars)] if rng.random() < 0.7 else str(int(rng.integers(10)))
            cv2.putText(img, ch, (x + int(key * 0.2), y + int(key * 0.6)), cv2.FONT_HERSHEY_SIMPLEX,
                        key / 45, inkc, max(1, int(key / 25)), cv2.LINE_AA)
    _paste(canvas, img, np.ones((h, w), np.float32), center, rng.uniform(0, 360))


def dice(rng, canvas, center, scale):
    """A die seen from above (pips), or a number cube with a printed digit."""
    s = int(scale * rng.uniform(0.3, 0.6))
    if s < 6:
        return
    color = (240, 240, 240) if rng.random() < 0.6 else tuple(rng.uniform(30, 220, 3))
    img = _patch(rng, s, s, color)
    ink = (20, 20, 20) if np.mean(color) > 128 else (240, 240, 240)
    if rng.random() < 0.7:
        n = int(rng.integers(1, 7))
        spots = {1: [(0.5, 0.5)], 2: [(0.25, 0.25), (0.75, 0.75)], 3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
                 4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
                 5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
                 6: [(0.25, 0.2), (0.75, 0.2), (0.25, 0.5), (0.75, 0.5), (0.25, 0.8), (0.75, 0.8)]}[n]
        for x, y in spots:
            cv2.circle(img, (int(x * s), int(y * s)), max(1, int(s * 0.09)), ink, -1, cv2.LINE_AA)
    else:
        cv2.putText(img, str(int(rng.integers(1, 13))), (int(s * 0.15), int(s * 0.75)), cv2.FONT_HERSHEY_SIMPLEX,
                    s / 50, ink, max(1, s // 12), cv2.LINE_AA)
    alpha = np.zeros((s, s), np.float32)
    cv2.rectangle(alpha, (0, 0), (s - 1, s - 1), 1.0, -1)
    _paste(canvas, img, alpha, center, rng.uniform(0, 360))


def card(rng, canvas, center, scale):
    """A playing card or sticky note: a coloured digit on a light rectangle (tile-like, but not a tile)."""
    w = int(scale * rng.uniform(0.6, 1.4))
    h = int(w * rng.uniform(1.0, 1.5))
    if w < 6:
        return
    color = (250, 250, 250) if rng.random() < 0.5 else (120, 230, 250)
    img = _patch(rng, w, h, color)
    ink = INKS[rng.integers(len(INKS))]
    text = str(int(rng.integers(1, 14))) if rng.random() < 0.7 else "AKQJ"[rng.integers(4)]
    fs = w / 40 * (0.5 if rng.random() < 0.5 else 1.0)
    cv2.putText(img, text, (int(w * 0.1), int(h * 0.3 + fs * 10)), FONTS[rng.integers(len(FONTS))], fs, ink,
                max(1, int(fs * 2)), cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), (150, 150, 150), 1)
    _paste(canvas, img, np.ones((h, w), np.float32), center, rng.uniform(0, 360))


def letter_tile(rng, canvas, center, scale):
    """A word-game tile: a letter with a small score digit, close to a Rummikub tile but not one."""
    s = int(scale * rng.uniform(0.5, 0.9))
    if s < 8:
        return
    color = (170, 205, 225) if rng.random() < 0.5 else (215, 232, 240)
    img = _patch(rng, s, s, color)
    letter = "ABCDEFGHIKLMNOPRSTUWZ"[rng.integers(21)]
    cv2.putText(img, letter, (int(s * 0.2), int(s * 0.75)), cv2.FONT_HERSHEY_DUPLEX, s / 40, (30, 30, 30),
                max(1, s // 16), cv2.LINE_AA)
    cv2.putText(img, str(int(rng.integers(1, 11))), (int(s * 0.68), int(s * 0.9)), cv2.FONT_HERSHEY_SIMPLEX,
                s / 110, (30, 30, 30), max(1, s // 40), cv2.LINE_AA)
    _paste(canvas, img, np.ones((s, s), np.float32), center, rng.uniform(0, 360))


def domino(rng, canvas, center, scale):
    """A domino: two halves of pips on an ivory bar."""
    w = int(scale * rng.uniform(0.5, 0.8))
    h = 2 * w
    if w < 8:
        return
    img = _patch(rng, w, h, (225, 238, 245))
    cv2.line(img, (2, h // 2), (w - 3, h // 2), (40, 40, 40), max(1, w // 20))
    for half in (0, 1):
        for _ in range(int(rng.integers(0, 7))):
            x, y = rng.uniform(0.2, 0.8) * w, (half + rng.uniform(0.2, 0.8)) * h / 2
            cv2.circle(img, (int(x), int(y)), max(1, w // 12), (30, 30, 30), -1, cv2.LINE_AA)
    _paste(canvas, img, np.ones((h, w), np.float32), center, rng.uniform(0, 360))


DISTRACTORS = (paper, keyboard, dice, card, dice, card, letter_tile, letter_tile, domino)


def add_distractors(rng, canvas, occ, tile_height, count):
    """Lay ``count`` digit-bearing non-tiles on the table and mark them taken."""
    H, W = canvas.shape[:2]
    for _ in range(count):
        maker = DISTRACTORS[rng.integers(len(DISTRACTORS))]
        center = rng.uniform((0, 0), (W, H))
        scale = tile_height * rng.uniform(0.7, 2.0)
        before = canvas[::4, ::4].copy()
        maker(rng, canvas, center, scale)
        changed = np.any(np.abs(canvas[::4, ::4] - before) > 1, axis=2)
        occ.mask[: changed.shape[0], : changed.shape[1]] |= changed[: occ.mask.shape[0], : occ.mask.shape[1]]


# ---------------------------------------------------------------- occluders (over tiles)

SKIN = ((150, 180, 230), (120, 160, 215), (90, 130, 190), (60, 90, 140), (40, 60, 100), (170, 200, 240))


def hand(rng, canvas, idmap, tile_height):
    """A hand reaching in from an edge: palm and fingers as rounded strokes, shaded."""
    H, W = canvas.shape[:2]
    color = np.array(SKIN[rng.integers(len(SKIN))], np.float32) * rng.uniform(0.85, 1.1)
    mask = np.zeros((H, W), np.uint8)
    side = rng.integers(4)
    t = rng.uniform(0.1, 0.9)
    edge = [(t * W, -10), (W + 10, t * H), (t * W, H + 10), (-10, t * H)][side]
    inward = np.array([(0, 1), (-1, 0), (0, -1), (1, 0)][side], np.float64)
    reach = rng.uniform(0.15, 0.45) * min(W, H)
    a = np.arctan2(inward[1], inward[0]) + rng.normal(0, 0.4)
    d = np.array([np.cos(a), np.sin(a)])
    palm = np.asarray(edge) + d * reach
    pw = min(max(tile_height * rng.uniform(1.2, 2.5), 0.08 * min(W, H)), 0.22 * min(W, H))
    cv2.line(mask, tuple(int(v) for v in np.asarray(edge) - d * pw), tuple(int(v) for v in palm), 255,
             int(pw * 1.1), cv2.LINE_AA)
    cv2.ellipse(mask, tuple(int(v) for v in palm), (int(pw * 0.7), int(pw * 0.6)), np.degrees(a), 0, 360, 255, -1,
                cv2.LINE_AA)
    n = int(rng.integers(1, 6))
    for k in range(n):
        fa = a + (k - (n - 1) / 2) * rng.uniform(0.2, 0.4)
        fd = np.array([np.cos(fa), np.sin(fa)])
        base = palm + fd * pw * 0.4
        tip = base + fd * pw * rng.uniform(0.6, 1.3)
        cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in tip), 255, max(2, int(pw * 0.22)),
                 cv2.LINE_AA)
    _fill(rng, canvas, idmap, mask, color, shade=True)


def cup(rng, canvas, idmap, tile_height):
    H, W = canvas.shape[:2]
    r = min(tile_height * rng.uniform(0.8, 2.5), 0.2 * min(W, H))
    c = rng.uniform((0, 0), (W, H))
    mask = np.zeros((H, W), np.uint8)
    cv2.circle(mask, (int(c[0]), int(c[1])), int(r), 255, -1, cv2.LINE_AA)
    color = rng.uniform(20, 250, 3).astype(np.float32)
    _fill(rng, canvas, idmap, mask, color, shade=True)
    cv2.circle(canvas, (int(c[0]), int(c[1])), int(r * 0.8), (color * 0.6).tolist(), -1, cv2.LINE_AA)


def pen(rng, canvas, idmap, tile_height):
    H, W = canvas.shape[:2]
    p0 = rng.uniform((0, 0), (W, H))
    a = rng.uniform(0, 2 * np.pi)
    p1 = p0 + np.array([np.cos(a), np.sin(a)]) * tile_height * rng.uniform(2, 5)
    mask = np.zeros((H, W), np.uint8)
    cv2.line(mask, tuple(int(v) for v in p0), tuple(int(v) for v in p1), 255, max(2, int(tile_height * 0.15)),
             cv2.LINE_AA)
    _fill(rng, canvas, idmap, mask, rng.uniform(10, 240, 3).astype(np.float32), shade=False)


def phone(rng, canvas, idmap, tile_height):
    H, W = canvas.shape[:2]
    c = rng.uniform((0, 0), (W, H))
    quad = _rot_rect(c, tile_height * rng.uniform(1.5, 2.5), tile_height * rng.uniform(3, 4.5), rng.uniform(0, 360))
    mask = np.zeros((H, W), np.uint8)
    cv2.fillConvexPoly(mask, quad.astype(np.int32), 255, cv2.LINE_AA)
    _fill(rng, canvas, idmap, mask, np.full(3, rng.uniform(10, 60), np.float32), shade=True)


def _fill(rng, canvas, idmap, mask, color, shade):
    ys, xs = np.nonzero(mask[::4, ::4])
    if len(xs) == 0:
        return
    pad = 24  # room for the soft shadow around the object
    x0, x1 = max(0, xs.min() * 4 - pad), min(mask.shape[1], xs.max() * 4 + pad)
    y0, y1 = max(0, ys.min() * 4 - pad), min(mask.shape[0], ys.max() * 4 + pad)
    m = mask[y0:y1, x0:x1].astype(np.float32) / 255.0
    roi = canvas[y0:y1, x0:x1]
    # a soft contact shadow first, then the object itself
    shadow = cv2.GaussianBlur(m, (0, 0), 6)
    shadow[4:, 4:] = shadow[:-4, :-4].copy()  # cast a little down and right
    roi *= (1 - 0.35 * shadow)[..., None]
    paint = np.broadcast_to(color, roi.shape).astype(np.float32)
    if shade:  # rounded: darker towards the outline, lit from one side
        depth = cv2.distanceTransform((m > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
        depth = np.minimum(depth / max(4.0, float(depth.max()) * 0.6), 1.0)
        ramp = np.linspace(0.85, 1.08, roi.shape[1], dtype=np.float32)[None, :]
        paint = paint * ((0.72 + 0.3 * depth) * ramp)[..., None]
    roi += (paint - roi) * m[..., None]
    idmap[y0:y1, x0:x1][m > 0.5] = 0


OCCLUDERS = (hand, hand, hand, cup, pen, phone)


def add_occluders(rng, canvas, idmap, tile_height, count):
    for _ in range(count):
        OCCLUDERS[rng.integers(len(OCCLUDERS))](rng, canvas, idmap, tile_height)
