"""One tile face (or back) as an image, drawn from a :class:`Style`.

Faces are drawn straight at the size they will appear, from numeral masks
rendered once per font, so a scene of fifty tiles costs a few milliseconds.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from models.render.styles import JOKER_RED_TWIN, Style
from rules.tiles import JOKER_INDEX, Tile

GLYPH_SIZE = 160  # font size the numeral masks are rendered at


@lru_cache(maxsize=512)
def glyph_mask(font: str, text: str) -> np.ndarray:
    """A tight uint8 coverage mask of ``text`` in ``font`` (TTF path or ``hershey:NAME``)."""
    if not font.startswith("hershey:"):
        try:
            from PIL import Image, ImageDraw, ImageFont

            pil_font = ImageFont.truetype(font, GLYPH_SIZE)
            x0, y0, x1, y1 = pil_font.getbbox(text)
            canvas = Image.new("L", (x1 - x0 + 4, y1 - y0 + 4), 0)
            ImageDraw.Draw(canvas).text((2 - x0, 2 - y0), text, font=pil_font, fill=255)
            return _tight(np.asarray(canvas))
        except (ImportError, OSError):
            font = "hershey:duplex"
    face = {"simplex": cv2.FONT_HERSHEY_SIMPLEX, "duplex": cv2.FONT_HERSHEY_DUPLEX,
            "triplex": cv2.FONT_HERSHEY_TRIPLEX, "complex": cv2.FONT_HERSHEY_COMPLEX}[font.split(":")[1]]
    scale, thick = 4.0, 12
    (w, h), base = cv2.getTextSize(text, face, scale, thick)
    canvas = np.zeros((h + base + 2 * thick, w + 2 * thick), np.uint8)
    cv2.putText(canvas, text, (thick, h + thick), face, scale, 255, thick, cv2.LINE_AA)
    return _tight(canvas)


def _tight(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask > 8)
    if len(xs) == 0:
        return mask
    return np.ascontiguousarray(mask[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1])


def face_size(style: Style, height: int) -> tuple[int, int]:
    """(width, height) in pixels of a face ``height`` pixels tall."""
    height = max(8, int(round(height)))
    return max(6, int(round(height * style.aspect))), height


@lru_cache(maxsize=256)
def _blank(style: Style, width: int, height: int, back: bool) -> tuple[np.ndarray, np.ndarray]:
    """Plastic with a bevelled rim and rounded corners: (float32 BGR, float32 alpha)."""
    color = np.array(style.back if back else style.face, np.float32)
    radius = max(1, int(round(style.corner * height)))
    alpha = _rounded_rect(width, height, radius, 0)
    rim = max(1, int(round(style.rim * height)))
    inner = _rounded_rect(width, height, max(1, radius - rim // 2), rim)
    inner = cv2.GaussianBlur(inner, (0, 0), max(0.6, rim / 2.5))
    yy = np.linspace(1.04, 0.96, height, dtype=np.float32)[:, None]
    shade = (0.84 + 0.16 * inner) * yy
    img = color[None, None, :] * shade[..., None]
    if style.recess and not back:  # the moulded disc behind the numeral: lighter, with a shaded rim
        cx, cy = width / 2, style.numeral_y * height
        r = 0.42 * width
        disc = np.zeros((height, width), np.float32)
        cv2.circle(disc, (int(cx * 16), int(cy * 16)), int(r * 16), 1.0, -1, cv2.LINE_AA, shift=4)
        edge = np.zeros((height, width), np.float32)
        cv2.circle(edge, (int(cx * 16), int((cy + 0.01 * height) * 16)), int(r * 16), 1.0,
                   max(1, int(0.012 * height)), cv2.LINE_AA, shift=4)
        soft = max(0.5, height / 120)
        disc = cv2.GaussianBlur(disc, (0, 0), soft)
        edge = cv2.GaussianBlur(edge, (0, 0), soft)
        img = img * (1 + 0.04 * disc[..., None] - 0.07 * edge[..., None])
    return np.clip(img, 0, 255), alpha


def _rounded_rect(width: int, height: int, radius: int, inset: int) -> np.ndarray:
    mask = np.zeros((height, width), np.float32)
    x0, y0, x1, y1 = inset, inset, width - 1 - inset, height - 1 - inset
    radius = max(0, min(radius, (x1 - x0) // 2, (y1 - y0) // 2))
    if x1 <= x0 or y1 <= y0:
        return mask
    cv2.rectangle(mask, (x0 + radius, y0), (x1 - radius, y1), 1.0, -1)
    cv2.rectangle(mask, (x0, y0 + radius), (x1, y1 - radius), 1.0, -1)
    for cx, cy in ((x0 + radius, y0 + radius), (x1 - radius, y0 + radius),
                   (x0 + radius, y1 - radius), (x1 - radius, y1 - radius)):
        cv2.circle(mask, (cx, cy), radius, 1.0, -1, cv2.LINE_AA)
    return mask


def _paint(img: np.ndarray, mask: np.ndarray, x: int, y: int, color) -> None:
    """Blend ``color`` into ``img`` through coverage ``mask`` (uint8 or float 0-1) at (x, y)."""
    h, w = mask.shape
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    m = mask[y0 - y: y1 - y, x0 - x: x1 - x]
    m = (m.astype(np.float32) / 255.0) if m.dtype == np.uint8 else m
    roi = img[y0:y1, x0:x1]
    roi += (np.asarray(color, np.float32)[None, None, :] - roi) * m[..., None]


def _text(img: np.ndarray, font: str, text: str, cx: float, cy: float, height: float, max_width: float,
          stretch: float, color, weight: float = 0.0, rounded: float = 0.0) -> tuple[int, int, int, int]:
    """Draw ``text`` centred at (cx, cy), ``height`` tall; returns its box (x0, y0, x1, y1).

    ``rounded`` (a share of the height) blurs the strokes and cuts them again
    at half coverage, which rounds their corners like moulded modern numerals.
    """
    mask = glyph_mask(font, text)
    gh, gw = mask.shape
    h = max(3, int(round(height)))
    w = max(2, int(round(gw * h / gh * stretch)))
    if w > max_width:
        w = max(2, int(max_width))
    small = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA)
    k = int(round(abs(weight) * h))
    if k >= 1:  # heavier or lighter strokes than the font's own
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1))
        small = cv2.dilate(small, kernel) if weight > 0 else cv2.erode(small, kernel)
    if rounded * h >= 1.0:
        pad = int(np.ceil(2 * rounded * h))
        small = cv2.GaussianBlur(cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0),
                                 (0, 0), rounded * h)
        small = np.clip((small.astype(np.float32) - 128.0) * 4.0 + 128.0, 0, 255).astype(np.uint8)
        x, y = int(round(cx - w / 2)) - pad, int(round(cy - h / 2)) - pad
        _paint(img, small, x, y, color)
        return x + pad, y + pad, x + pad + w, y + pad + h
    x, y = int(round(cx - w / 2)), int(round(cy - h / 2))
    _paint(img, small, x, y, color)
    return x, y, x + w, y + h


def _draw_joker(img: np.ndarray, style: Style, width: int, height: int, design: str) -> None:
    """A joker face in the numeral's place; designs differ by edition."""
    black, blue, orange, red = (tuple(float(c) for c in ink) for ink in style.inks)
    cx, cy = width / 2, style.numeral_y * height + 0.03 * height
    r = 0.33 * width
    S = 16  # sub-pixel shift for smooth small drawings
    c = (int(cx * S), int(cy * S))
    t = max(1, int(round(r * 0.13)))

    def circle(center, radius, color, thickness):
        cv2.circle(img, (int(center[0] * S), int(center[1] * S)), int(radius * S), color, thickness,
                   cv2.LINE_AA, shift=4)

    def smile(color, thickness, span=(20, 160)):
        cv2.ellipse(img, c, (int(r * 0.6 * S), int(r * 0.55 * S)), 0, span[0], span[1], color, thickness,
                    cv2.LINE_AA, shift=4)

    def eyes(color):
        for dx in (-0.35, 0.35):
            cv2.ellipse(img, (int((cx + dx * r) * S), int((cy - 0.25 * r) * S)),
                        (max(S, int(r * 0.12 * S)), max(S, int(r * 0.18 * S))), 0, 0, 360, color, -1,
                        cv2.LINE_AA, shift=4)

    if design == "letter":
        _text(img, style.font, "J", cx, cy - 0.05 * height, style.numeral_height * height, 0.8 * width, 1.0, red)
        circle((cx, cy + 0.22 * height), 0.07 * width, black, -1)
        return
    if design == "filled":
        circle((cx, cy), r, orange, -1)
        circle((cx, cy), r, red, max(1, t // 2))
        eyes(black)
        smile(black, t)
        return
    if design.startswith("grin"):  # today's jokers: a big bold face filling most of the tile
        ink = red if design == "grin_red" else black
        big = 0.42 * width
        circle((cx, cy), big, ink, max(1, int(round(big * 0.16))))
        for dx in (-0.35, 0.35):
            circle((cx + dx * big, cy - 0.25 * big), 0.13 * big, ink, -1)
        cv2.ellipse(img, c, (int(big * 0.55 * S), int(big * 0.5 * S)), 0, 10, 170, ink, -1, cv2.LINE_AA, shift=4)
        return
    if design.startswith("star"):
        ink = red if design == "star_red" else black
        angles = np.pi / 2 + np.arange(10) * np.pi / 5
        radii = np.where(np.arange(10) % 2 == 0, 1.25 * r, 0.55 * r)
        pts = np.stack([cx - radii * np.cos(angles), cy - radii * np.sin(angles)], 1)
        cv2.fillPoly(img, [np.round(pts * S).astype(np.int32)], ink, cv2.LINE_AA, shift=4)
        return
    if design == "mask":  # a domino mask over a smiling face
        circle((cx, cy), r, orange, t)
        mask = np.array([[cx - 0.9 * r, cy - 0.45 * r], [cx + 0.9 * r, cy - 0.45 * r],
                         [cx + 0.7 * r, cy - 0.05 * r], [cx - 0.7 * r, cy - 0.05 * r]])
        cv2.fillConvexPoly(img, np.round(mask * S).astype(np.int32), black, cv2.LINE_AA, shift=4)
        smile(red, t)
        return
    if design == "crown":  # a crown over a small face
        crown = np.array([[cx - 0.8 * r, cy - 0.5 * r], [cx - 0.8 * r, cy - 1.3 * r], [cx - 0.4 * r, cy - 0.8 * r],
                          [cx, cy - 1.4 * r], [cx + 0.4 * r, cy - 0.8 * r], [cx + 0.8 * r, cy - 1.3 * r],
                          [cx + 0.8 * r, cy - 0.5 * r]])
        cv2.fillPoly(img, [np.round(crown * S).astype(np.int32)], orange, cv2.LINE_AA, shift=4)
        circle((cx, cy + 0.2 * r), 0.75 * r, red, t)
        smile(blue, t)
        return
    ring, eye_c, mouth = {
        "smiley": (black, black, black),
        "smiley_red": (red, red, red),
        "smiley_colour": (red, blue, orange),
        "jester": (black, blue, red),
        "sun": (black, black, red),
        "sun_red": (red, red, red),
    }.get(design, (black, black, black))
    if design.startswith("sun"):
        for k in range(12):
            a = k * np.pi / 6
            p0 = (cx + 1.05 * r * np.cos(a), cy + 1.05 * r * np.sin(a))
            p1 = (cx + 1.3 * r * np.cos(a), cy + 1.3 * r * np.sin(a))
            cv2.line(img, (int(p0[0] * S), int(p0[1] * S)), (int(p1[0] * S), int(p1[1] * S)), orange,
                     max(1, t // 2 + 1), cv2.LINE_AA, shift=4)
    circle((cx, cy), r, ring, t)
    eyes(eye_c)
    smile(mouth, t)
    if design == "jester":
        hat = np.array([[cx - 0.7 * r, cy - 0.8 * r], [cx + 0.7 * r, cy - 0.8 * r], [cx, cy - 1.5 * r]])
        cv2.fillConvexPoly(img, (hat * S).astype(np.int32), red, cv2.LINE_AA, shift=4)
        circle((cx, cy - 1.5 * r), 0.15 * r, blue, -1)


def _draw_mark(img: np.ndarray, style: Style, width: int, height: int) -> None:
    """The small mark below the numeral (where the bottom of the tile is)."""
    y = 0.80 * height
    faint = tuple(float(c) * 0.78 for c in style.face)
    if style.mark in ("logo", "frame"):  # embossed: a dark word with a light edge below it
        light = tuple(min(255.0, float(c) * 1.08) for c in style.face)
        lift = max(1.0, 0.008 * height)
        _text(img, style.font, "Rummikub", width / 2, y + lift, 0.09 * height, 0.74 * width, 1.0, light)
        _text(img, style.font, "Rummikub", width / 2, y, 0.09 * height, 0.74 * width, 1.0, faint)
    if style.mark == "frame":  # the embossed outline around the maker's word
        x0, x1 = 0.14 * width, 0.86 * width
        y0, y1 = y - 0.1 * height, y + 0.1 * height
        cv2.rectangle(img, (int(x0 * 16), int(y0 * 16)), (int(x1 * 16), int(y1 * 16)), faint,
                      max(1, int(0.012 * height)), cv2.LINE_AA, shift=4)
    elif style.mark == "ring":
        cv2.circle(img, (int(width / 2 * 16), int(y * 16)), int(0.09 * width * 16), style.inks[3],
                   max(1, int(0.025 * height)), cv2.LINE_AA, shift=4)
    elif style.mark == "dot":
        cv2.circle(img, (int(width / 2 * 16), int(y * 16)), int(0.06 * width * 16), faint, -1, cv2.LINE_AA,
                   shift=4)
    elif style.mark == "edge":  # a small printed logo right on the bottom edge
        _text(img, style.font, "Rummikub", width / 2, 0.915 * height, 0.055 * height, 0.5 * width, 1.0,
              tuple(float(c) * 0.7 for c in style.face))
    elif style.mark == "xp":
        _text(img, style.font, "XP", width / 2, y, 0.08 * height, 0.4 * width, 1.0, style.inks[3])
    elif style.mark == "bar":
        h = max(1.0, 0.03 * height)
        cv2.rectangle(img, (int(0.3 * width * 16), int((y - h / 2) * 16)), (int(0.7 * width * 16),
                      int((y + h / 2) * 16)), faint, -1, cv2.LINE_AA, shift=4)


def joker_design(style: Style, second: bool) -> str:
    """The face of a box's first or second joker: in a pair, the second is the red twin."""
    if second and style.joker_pair:
        return JOKER_RED_TWIN.get(style.joker, style.joker)
    return style.joker


def tile_face(style: Style, tile_index: int, height: int, second_joker: bool = False
              ) -> tuple[np.ndarray, np.ndarray]:
    """(BGR uint8, alpha float32 0-1) of the upright face of tile ``tile_index`` (0-52)."""
    tile = Tile.from_index(tile_index)
    width, height = face_size(style, height)
    base, alpha = _blank(style, width, height, False)
    img = base.copy()
    if tile_index == JOKER_INDEX:
        _draw_joker(img, style, width, height, joker_design(style, second_joker))
    else:
        ink = style.inks[int(tile.color)]
        box = _text(img, style.font, str(tile.number), width / 2, style.numeral_y * height,
                    style.numeral_height * height, 0.86 * width, style.numeral_width, ink, style.weight,
                    style.rounded)
        if tile.number in (6, 9) and (style.underline_69 or style.mark == "none"):
            bar = max(1, int(round(0.035 * height)))
            y = box[3] + max(1, int(0.03 * height))
            cv2.rectangle(img, (box[0] + (box[2] - box[0]) // 8, y), (box[2] - (box[2] - box[0]) // 8, y + bar),
                          ink, -1)
    _draw_mark(img, style, width, height)
    return np.clip(img, 0, 255).astype(np.uint8), alpha


def tile_back(style: Style, height: int) -> tuple[np.ndarray, np.ndarray]:
    """(BGR uint8, alpha) of a face-down tile: plain plastic, nothing to read."""
    width, height = face_size(style, height)
    base, alpha = _blank(style, width, height, True)
    return np.clip(base, 0, 255).astype(np.uint8), alpha


def render_tile(style: Style, tile_index: int, height: int) -> np.ndarray:
    """The upright face of one tile as a BGR image ``height`` pixels tall (corners on plastic)."""
    img, _alpha = tile_face(style, tile_index, height)
    return img
