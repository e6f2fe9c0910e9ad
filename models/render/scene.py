"""A whole table scene: background, clutter, tiles drawn at their quads, then the camera.

Every readable tile's label is the quad its face was drawn into, carried
through the same perspective as the pixels; a tile is labelled only when
most of its face is left visible (not covered, not cut by the frame).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from models.render import camera
from models.render.backgrounds import background
from models.render.clutter import add_distractors, add_occluders
from models.render.layout import (
    Layout, Occupancy, messy_layout, rack_layout, rack_side_view, rows_layout, scatter_layout,
    table_layout,
)
from models.render.styles import Style, random_style
from models.render.tiles import tile_back, tile_face
from rules.tiles import JOKER_INDEX

VISIBLE = 0.7  # share of a face that must be seen for the tile to be labelled
MIN_LABEL_HEIGHT = 12.0  # pixels; smaller faces are left unlabelled
SIZES = ((1000, 750), (1000, 750), (1000, 750), (750, 1000), (750, 1000), (640, 480), (800, 600),
         (1280, 960), (960, 1280), (1600, 1200), (1200, 1600))
KINDS = ("table", "table", "rows", "rows", "scatter", "rack", "rack", "rack", "closeup")
# kinds drawn only when asked for (``--kind``): adding them to KINDS would change every scene a seed gives,
# and with it the training data a shipped model was made from
EXTRA_KINDS = ("messy",)


@dataclass
class Drawn:
    """What :func:`compose` made: the image and, per spot, its quad and whether it is labelled."""

    image: np.ndarray          # BGR uint8
    quads: np.ndarray          # (N, 4, 2) face corners in image pixels, reading order
    labelled: np.ndarray       # (N,) bool
    indices: list              # tile index per spot (None: face-down)
    groups: list = field(default_factory=list)  # ("set" | "rack", spot positions) as laid

    @property
    def labels(self) -> list[tuple[int, np.ndarray]]:
        return [(int(i), q) for i, q, ok in zip(self.indices, self.quads, self.labelled) if ok]

    def group_lines(self) -> list[str]:
        """The scene's sets file (``vision.datasets``): each group's labelled tiles as label line numbers.

        A tile left unlabelled (covered, cut by the frame) drops out of its
        group; a group left with fewer than two tiles is loose tiles.
        """
        line_of = {k: n for n, k in enumerate(k for k, ok in enumerate(self.labelled) if ok)}
        out = []
        for kind, members in self.groups:
            seen = [line_of[k] for k in members if k in line_of]
            if len(seen) >= (1 if kind == "rack" else 2):
                out.append(f"{kind} " + " ".join(str(n) for n in seen))
        return out


def _affine_into(face: np.ndarray, quad: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """2x3 matrix taking face pixel centres to canvas pixel centres (ROI at ``origin``)."""
    h, w = face.shape[:2]
    src = np.array([[0, 0], [w, 0], [0, h]], np.float32)
    dst = (quad[[0, 1, 3]] - origin).astype(np.float32)
    a = cv2.getAffineTransform(src, dst).astype(np.float64)
    # edge coordinates -> centre coordinates on both sides
    a[:, 2] += a[:, :2] @ np.array([0.5, 0.5]) - 0.5
    return a


def draw_tile(canvas, idmap, tid, face, alpha, quad, lift, side_color) -> int:
    """Draw one tile (thickness first, then face) and return how many id-map pixels its face took."""
    H, W = canvas.shape[:2]
    hull = np.concatenate([quad, quad + np.asarray(lift, np.float32)])
    x0, y0 = np.floor(hull.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(hull.max(axis=0)).astype(int) + 2
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if cx1 <= cx0 or cy1 <= cy0:
        return 0
    origin = np.array([cx0, cy0], np.float32)
    roi = canvas[cy0:cy1, cx0:cx1]
    ids = idmap[cy0:cy1, cx0:cx1]
    fixed = lambda pts: np.round((pts - origin - 0.5) * 16).astype(np.int32)  # noqa: E731
    side = cv2.convexHull(hull.astype(np.float32))
    cv2.fillConvexPoly(roi, fixed(side.reshape(-1, 2)), side_color, cv2.LINE_AA, shift=4)
    cv2.fillConvexPoly(ids, fixed(side.reshape(-1, 2)), 0, cv2.LINE_8, shift=4)
    cv2.fillConvexPoly(ids, fixed(quad), int(tid), cv2.LINE_8, shift=4)
    m = _affine_into(face, quad, origin)
    size = (cx1 - cx0, cy1 - cy0)
    rgba = np.dstack([face.astype(np.float32), alpha])
    warped = cv2.warpAffine(rgba, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    a = warped[..., 3:4]
    roi += (warped[..., :3] - roi) * a
    return int(np.count_nonzero(ids == tid))


def _shadows(rng, canvas, quads, lifts, strength):
    """Soft contact shadows of all tiles, cast away from the light."""
    H, W = canvas.shape[:2]
    scale = 0.25
    mask = np.zeros((max(1, int(H * scale)), max(1, int(W * scale))), np.float32)
    offset = rng.normal(0, 1, 2)
    for quad, lift in zip(quads, lifts):
        size = np.linalg.norm(quad[0] - quad[3])
        shift = offset * size * 0.06 + np.asarray(lift) * 1.3
        pts = np.concatenate([quad, quad + shift]) * scale
        cv2.fillConvexPoly(mask, cv2.convexHull(pts.astype(np.float32)).astype(np.int32), 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.5)
    mask = cv2.resize(mask, (W, H), interpolation=cv2.INTER_LINEAR)
    canvas *= (1 - strength * mask)[..., None]


def compose(rng: np.random.Generator, canvas: np.ndarray, layout: Layout, style: Style, *,
            tile_height: float, homography: np.ndarray | None = None, effects: float = 1.0,
            occluders: int = 0, lift: tuple[float, float] | None = None, extras: bool = True) -> Drawn:
    """Draw ``layout`` onto ``canvas`` (float32 BGR, modified), then apply the camera.

    ``extras=False`` leaves out glare, big shadows, blur and noise (clean demo scenes).
    """
    H, W = canvas.shape[:2]
    aspect = style.aspect
    if lift is None:
        a = rng.uniform(0, 2 * np.pi) if rng.random() < 0.3 else np.pi / 2 + rng.normal(0, 0.3)
        length = rng.uniform(0.0, 0.16) * tile_height
        lift = (float(np.cos(a) * length), float(np.sin(a) * length))
    spots = layout.spots
    quads = [s.quad(aspect) for s in spots]
    lifts = [s.lift if s.lift is not None else lift for s in spots]
    for rack in layout.racks:
        cv2.fillConvexPoly(canvas, np.round(rack.body * 16).astype(np.int32), rack.color, cv2.LINE_AA, shift=4)
    _shadows(rng, canvas, quads, lifts, float(rng.uniform(0.15, 0.45)) * min(1.0, effects + 0.3))
    idmap = np.zeros((H, W), np.int32)
    full = np.zeros(len(spots) + 1, np.int64)
    side_color = tuple(float(c) * rng.uniform(0.6, 0.85) for c in style.face)
    gloss = rng.uniform(-0.25, 0.25, 2) if rng.random() < 0.3 * effects else None
    jokers = 0
    for k, (spot, quad, tl) in enumerate(zip(spots, quads, lifts), start=1):
        h = max(8, int(round(spot.height)))
        if spot.index is None:
            face, alpha = tile_back(style, h)
        else:  # a box's two jokers take turns, so both faces of a red-and-black pair appear
            face, alpha = tile_face(style, spot.index, h, second_joker=spot.index == JOKER_INDEX and jokers % 2 == 1)
            jokers += spot.index == JOKER_INDEX
        if gloss is not None:  # glossy plastic: brighter towards the lamp
            fh, fw = face.shape[:2]
            ramp = (np.linspace(-0.5, 0.5, fw, dtype=np.float32)[None, :] * gloss[0]
                    + np.linspace(-0.5, 0.5, fh, dtype=np.float32)[:, None] * gloss[1])
            face = face.astype(np.float32) * (1 + ramp)[..., None]
        if rng.random() < 0.5:  # each tile catches the light a little differently
            face = face.astype(np.float32) * rng.uniform(0.92, 1.05)
        face = np.clip(face, 0, 255)
        full[k] = draw_tile(canvas, idmap, k, face, alpha, quad, tl, side_color)
    for rack in layout.racks:
        for ledge in rack.ledges:
            lip = tuple(float(c) * 1.15 for c in rack.color)
            cv2.fillConvexPoly(canvas, np.round(ledge * 16).astype(np.int32), lip, cv2.LINE_AA, shift=4)
            cv2.fillConvexPoly(idmap, np.round(ledge * 16).astype(np.int32), 0, cv2.LINE_8, shift=4)
    if occluders:
        add_occluders(rng, canvas, idmap, tile_height, occluders)
    seen = np.bincount(idmap.ravel(), minlength=len(spots) + 1)
    visible = seen[1:] / np.maximum(full[1:], 1)

    if homography is None:
        homography = camera.random_homography(rng, (W, H), effects)
    img = camera.warp(canvas, homography)
    out_quads = np.array([camera.apply_homography(q, homography) for q in quads], np.float32).reshape(-1, 4, 2)
    img = camera.lighting(rng, img, effects)
    if extras and rng.random() < 0.25 * effects:
        img = camera.soft_shadow(rng, img, effects)
    if extras and rng.random() < 0.25 * effects:
        img = camera.glare(rng, img, effects)
    if extras and rng.random() < 0.5 * effects:
        img = camera.blur(rng, img, tile_height)
    elif extras and rng.random() < 0.3 * effects:
        img = camera.depth_of_field(rng, img, tile_height)
    if extras and tile_height > 40 and rng.random() < 0.15 * effects:
        img = camera.resample(rng, img)
    if extras and rng.random() < 0.6 * effects:
        img = camera.noise(rng, img)
    image = np.clip(img, 0, 255).astype(np.uint8)

    labelled = np.zeros(len(spots), bool)
    for k, (spot, q) in enumerate(zip(spots, out_quads)):
        if spot.index is None or visible[k] < VISIBLE:
            continue
        inside = np.all((q >= -1.0) & (q <= (W + 1.0, H + 1.0)))
        tall = min(np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[2] - q[1]))
        labelled[k] = inside and tall >= MIN_LABEL_HEIGHT
    out_quads = np.clip(out_quads, 0, (W, H)).astype(np.float32)
    return Drawn(image, out_quads, labelled, [s.index for s in spots], layout.groups())


def _log_uniform(rng, lo, hi):
    lo, hi = min(lo, hi), max(lo, hi)
    return float(np.exp(rng.uniform(np.log(lo), np.log(hi))))


def render_scene(rng: np.random.Generator, size: tuple[int, int] = (1000, 750), edition: str | None = None):
    """A random table scene: (BGR uint8 image, [(tile_index, quad (4, 2) float32 pixels), ...]).

    Quads are the tile faces' corners TL, TR, BR, BL of the upright tile.
    ``edition`` names the tiles' edition (default: a random training edition).
    """
    drawn = render_drawn(rng, size, edition=edition)
    return drawn.image, drawn.labels


def render_drawn(rng: np.random.Generator, size: tuple[int, int] = (1000, 750), kind: str | None = None,
                 edition: str | None = None) -> Drawn:
    """Like :func:`render_scene`, keeping face-down and hidden tiles in the result too."""
    W, H = size
    short = min(W, H)
    kind = kind or str(rng.choice(KINDS))
    style = random_style(rng, edition)
    effects = float(rng.uniform(0.3, 1.0))
    canvas = background(rng, W, H)
    homography = camera.random_homography(rng, (W, H), effects)
    occ = Occupancy(W, H)
    # keep tiles (mostly) inside what the camera sees
    seen = camera.apply_homography(np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32), np.linalg.inv(homography))
    inside = np.zeros_like(occ.mask)
    cv2.fillConvexPoly(inside, np.round(seen * occ.scale).astype(np.int32), 1)
    occ.mask |= 1 - inside
    if kind == "closeup":
        height = rng.uniform(140, min(300, 0.55 * short))
    elif kind == "rack":
        height = _log_uniform(rng, 30, min(130, 0.9 * W / (style.aspect * 11)))
    elif kind == "scatter":
        height = _log_uniform(rng, 28, 0.3 * short)
    elif kind == "messy":  # late in a game: dozens of sets, so smaller tiles
        height = _log_uniform(rng, 24, max(30.0, 0.09 * short))
    elif rng.random() < 0.2:  # small and far away
        height = _log_uniform(rng, 20, 50)
    else:
        height = _log_uniform(rng, 50, min(220, 0.3 * short))
    if rng.random() < 0.5 and kind != "closeup":
        add_distractors(rng, canvas, occ, height, int(rng.integers(1, 4)))
    if kind == "rack":
        side_view = rng.random() < 0.4  # seen from the side, 20-60 degrees off the front
        if side_view:
            yaw = float(rng.uniform(20, 60) * rng.choice([-1, 1]))
            center = (W / 2 + rng.uniform(-0.05, 0.05) * W, H / 2 + rng.uniform(-0.15, 0.15) * H)
            side = rack_side_view(center, yaw, float(rng.uniform(1.5, 3.0) * max(W, H)))
            homography = camera.random_homography(rng, (W, H), 0.5 * effects) @ side
            layout = rack_layout(rng, (W, H), height, style.aspect, center=center, angle=float(rng.normal(0, 3)),
                                 room=W / np.cos(np.radians(yaw)))
        else:
            layout = rack_layout(rng, (W, H), height, style.aspect)
        for spot in layout.spots:
            occ.take(spot.quad(style.aspect)[None].reshape(-1, 2), 0.3 * height)
        occ.take(layout.racks[0].body, 4)
        if not side_view and rng.random() < 0.6:
            layout.add(table_layout(rng, (W, H), height * rng.uniform(0.8, 1.1), style.aspect, occ, max_tiles=30))
    elif kind == "scatter":
        layout = scatter_layout(rng, (W, H), height, style.aspect, occ, int(rng.integers(3, 30)))
    elif kind == "messy":
        layout = messy_layout(rng, (W, H), height, style.aspect, occ, max_tiles=int(rng.integers(30, 120)))
    elif kind == "closeup":
        layout = table_layout(rng, (W, H), height, style.aspect, occ, max_tiles=int(rng.integers(1, 7)))
    elif kind == "rows" and height < 0.15 * short:  # big tiles leave no room for rows
        layout = rows_layout(rng, (W, H), height, style.aspect, occ, max_tiles=int(rng.integers(10, 60)))
    else:
        layout = table_layout(rng, (W, H), height, style.aspect, occ, max_tiles=int(rng.integers(6, 50)))
    occluders = int(rng.integers(1, 3)) if rng.random() < 0.35 else 0
    return compose(rng, canvas, layout, style, tile_height=height, homography=homography, effects=effects,
                   occluders=occluders)
