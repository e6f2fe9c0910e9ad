"""Where tiles go: sets edge to edge, loose tiles, face-down tiles and racks of two or three rows.

Positions are in canvas pixels before the camera's perspective; a tile is a
centre, a height and an angle (degrees, clockwise on screen, 0 = upright).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from rules.tiles import JOKER_INDEX

JOKER = JOKER_INDEX


@dataclass
class Spot:
    """One tile on the table: ``index`` 0-52, or None for a face-down tile."""

    index: int | None
    center: tuple[float, float]
    angle: float
    height: float
    squash: float = 1.0  # vertical foreshortening of the face (racks seen from the front)
    lift: tuple[float, float] | None = None  # thickness direction and length; None: the scene's

    def quad(self, aspect: float) -> np.ndarray:
        """Face corners TL, TR, BR, BL of the upright tile, in canvas pixels."""
        h = self.height * self.squash
        w = self.height * aspect
        local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]], np.float64)
        a = np.radians(self.angle)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        return (local @ rot.T + np.asarray(self.center, np.float64)).astype(np.float32)


@dataclass
class Rack:
    """A two-row rack seen from the front: its body and ledges are drawn around the tiles."""

    body: np.ndarray          # (4, 2) canvas polygon of the stand
    ledges: list[np.ndarray]  # polygons drawn in front of each row's foot
    color: tuple[float, float, float]


@dataclass
class Layout:
    spots: list[Spot] = field(default_factory=list)
    sets: list[list[int]] = field(default_factory=list)  # positions in ``spots`` of each line of tiles
    racks: list[Rack] = field(default_factory=list)
    rack_rows: list[int] = field(default_factory=list)  # positions in ``sets`` that are rows on a rack

    def add(self, other: "Layout") -> None:
        """Take in another layout's tiles, sets and racks (drawn after this one's)."""
        first, sets = len(self.spots), len(self.sets)
        self.spots += other.spots
        self.sets += [[first + k for k in members] for members in other.sets]
        self.racks += other.racks
        self.rack_rows += [sets + k for k in other.rack_rows]

    def groups(self) -> list[tuple[str, list[int]]]:
        """("set" or "rack", spot positions) of each group, as the sets files of ``vision.datasets`` name them."""
        return [("rack" if k in self.rack_rows else "set", members) for k, members in enumerate(self.sets)]


# ------------------------------------------------------------------ tile sequences

def random_set(rng: np.random.Generator) -> list[int]:
    """Tile indices of one line on the table: mostly valid runs and groups, some invalid ones."""
    roll = rng.random()
    if roll < 0.4:  # run
        color = int(rng.integers(4))
        length = int(rng.integers(3, 8))
        start = int(rng.integers(1, 15 - length)) if length < 13 else 1
        tiles = [color * 13 + n - 1 for n in range(start, min(14, start + length))]
    elif roll < 0.7:  # group
        number = int(rng.integers(1, 14))
        colors = rng.permutation(4)[: int(rng.integers(3, 5))]
        tiles = [int(c) * 13 + number - 1 for c in colors]
    elif roll < 0.85:  # broken: a run with a wrong tile or gap, a group with a repeated colour
        tiles = random_set(rng)
        pos = int(rng.integers(len(tiles)))
        tiles[pos] = int(rng.integers(52))
    else:  # any tiles at all (keeps every class frequent)
        tiles = [int(i) for i in rng.integers(0, 52, int(rng.integers(2, 7)))]
    if rng.random() < 0.2:
        tiles[int(rng.integers(len(tiles)))] = JOKER
    return tiles


# ------------------------------------------------------------------ placement

class Occupancy:
    """A coarse mask of the canvas already used, so new sets do not land on old ones."""

    def __init__(self, width: int, height: int, scale: float = 0.25):
        self.scale = scale
        self.mask = np.zeros((max(1, int(height * scale)), max(1, int(width * scale))), np.uint8)

    def _poly(self, corners: np.ndarray, margin: float) -> np.ndarray:
        hull = cv2.convexHull(corners.astype(np.float32).reshape(-1, 2)).reshape(-1, 2)
        c = hull.mean(axis=0)
        d = hull - c
        n = np.linalg.norm(d, axis=1, keepdims=True) + 1e-6
        return ((c + d * (1 + margin / n)) * self.scale).astype(np.int32)

    def free(self, corners: np.ndarray, margin: float = 4.0) -> bool:
        poly = self._poly(corners, margin)
        x0, y0 = poly.min(axis=0)
        x1, y1 = poly.max(axis=0) + 1
        H, W = self.mask.shape
        cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
        if cx1 <= cx0 or cy1 <= cy0:
            return True
        local = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(local, poly - (x0, y0), 1)
        return not np.any(local[cy0 - y0: cy1 - y0, cx0 - x0: cx1 - x0] & self.mask[cy0:cy1, cx0:cx1])

    def take(self, corners: np.ndarray, margin: float = 4.0) -> None:
        cv2.fillConvexPoly(self.mask, self._poly(corners, margin), 1)


def line_of_tiles(indices: list, start: tuple[float, float], angle: float, height: float, aspect: float,
                  rng: np.random.Generator, gap: float | None = None, jitter: float = 1.0) -> list[Spot]:
    """Tiles edge to edge from ``start`` (centre of the first) along the reading direction."""
    def place() -> tuple[float, float, float]:
        g = gap if gap is not None else rng.uniform(0.0, 0.05) * height
        return g, rng.normal(0, 0.012 * height * jitter), rng.normal(0, 0.8 * jitter)

    return _laid(indices, start, angle, height, aspect, place)


def _laid(indices: list, start, angle: float, height: float, aspect: float, place) -> list[Spot]:
    """Tiles along the reading direction from ``start``; ``place()`` gives each tile's
    (gap after it, sideways offset, turn in degrees)."""
    a = np.radians(angle)
    u = np.array([np.cos(a), np.sin(a)])
    v = np.array([-np.sin(a), np.cos(a)])
    spots, pos = [], 0.0
    for index in indices:
        gap, off, turn = place()
        c = np.asarray(start) + u * pos + v * off
        spots.append(Spot(index, (float(c[0]), float(c[1])), float(angle + turn), height))
        pos += height * aspect + gap
    return spots


def _pick_angle(rng: np.random.Generator, base: float | None) -> float:
    """A set's direction: near the table's ``base``, a quarter turn (often exact), or anything."""
    if base is not None:
        return base if rng.random() < 0.3 else base + rng.normal(0, 2.0)
    if rng.random() < 0.5:
        quarter = float(rng.choice([0.0, 90.0, 180.0, 270.0]))
        return quarter if rng.random() < 0.4 else quarter + rng.normal(0, 1.0)
    return float(rng.uniform(0, 360))


def place(rng, occ: Occupancy, make, size, tries: int = 25, margin: float = 4.0) -> list[Spot] | None:
    """Call ``make(center)`` at random centres until its tiles fit on free table."""
    W, H = size
    for _ in range(tries):
        center = rng.uniform((0.05 * W, 0.05 * H), (0.95 * W, 0.95 * H))
        spots = make(center)
        corners = np.concatenate([s[1] for s in spots])
        if occ.free(corners, margin):
            occ.take(corners, margin)
            return [s[0] for s in spots]
    return None


def table_layout(rng: np.random.Generator, size: tuple[int, int], height: float, aspect: float,
                 occ: Occupancy, max_tiles: int = 90) -> Layout:
    """Sets in lines (aligned or every which way), a few loose tiles and face-down ones."""
    layout = Layout()
    aligned = rng.random() < 0.6
    base = (float(rng.choice([0.0, 0.0, 0.0, 90.0, 180.0, 270.0])) if rng.random() < 0.7
            else float(rng.uniform(0, 360))) if aligned else None
    failures = 0
    while len(layout.spots) < max_tiles and failures < 12:
        roll = rng.random()
        if roll < 0.72:
            indices = random_set(rng)
            angle = _pick_angle(rng, base)
        elif roll < 0.86:
            indices = [int(rng.integers(53))]
            angle = _pick_angle(rng, None)
        else:
            indices = [None] * int(rng.integers(1, 4))
            angle = _pick_angle(rng, base if rng.random() < 0.5 else None)
        gap = None if rng.random() < 0.8 else float(rng.uniform(0.05, 0.3) * height)

        jitter = 0.0 if rng.random() < 0.3 else 1.0  # sometimes laid perfectly straight

        def make(center, indices=indices, angle=angle, gap=gap, jitter=jitter):
            n = len(indices)
            a = np.radians(angle)
            u = np.array([np.cos(a), np.sin(a)])
            start = center - u * (n - 1) / 2 * height * aspect
            spots = line_of_tiles(indices, start, angle, height, aspect, rng, gap, jitter)
            return [(s, s.quad(aspect)) for s in spots]

        spots = place(rng, occ, make, size, margin=float(rng.uniform(0.1, 0.8) * height))
        if spots is None:
            failures += 1
            continue
        first = len(layout.spots)
        layout.spots += spots
        if len(spots) > 1 and spots[0].index is not None:
            layout.sets.append(list(range(first, first + len(spots))))
    if rng.random() < 0.3:
        layout.spots += pool(rng, size, height, aspect, occ)
    return layout


def careless_line(indices: list, start: np.ndarray, angle: float, height: float, aspect: float,
                  rng: np.random.Generator, sloppiness: float = 1.0) -> list[Spot]:
    """Tiles laid by hand: gaps up to about half a tile, staggered, each a little turned."""
    def place() -> tuple[float, float, float]:
        off = float(np.clip(rng.normal(0, 0.09 * sloppiness), -0.25, 0.25)) * height
        turn = rng.normal(0, 3.5 * sloppiness)
        return height * aspect * float(rng.uniform(0.0, 0.45 * sloppiness)), off, turn

    return _laid(indices, start, angle, height, aspect, place)


def messy_layout(rng: np.random.Generator, size: tuple[int, int], height: float, aspect: float,
                 occ: Occupancy, max_tiles: int = 120) -> Layout:
    """A table late in a game: dozens of sets at mixed angles, laid carelessly, some touching end to
    end or side by side, loose tiles dropped next to sets."""
    layout = Layout()
    width = height * aspect
    base = float(rng.uniform(0, 360))
    failures = 0
    while len(layout.spots) < max_tiles and failures < 15:
        angle = base + rng.normal(0, 12) if rng.random() < 0.6 else float(rng.uniform(0, 360))
        lines = [random_set(rng)]
        if rng.random() < 0.25:  # a second set pushed against the end of the first
            lines.append(random_set(rng))
        sloppiness = float(rng.uniform(0.3, 1.0))
        loose = rng.random() < 0.3
        side = rng.random() < 0.3  # a second line laid touching alongside

        def make(center, lines=lines, angle=angle, sloppiness=sloppiness, loose=loose, side=side):
            a = np.radians(angle)
            u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
            total = sum(len(t) for t in lines)
            start = np.asarray(center) - u * (total - 1) / 2 * width * 1.2
            groups, pos = [], 0.0
            for tiles in lines:
                spots = careless_line(tiles, start + u * pos, angle, height, aspect, rng, sloppiness)
                groups.append(spots)
                pos += len(tiles) * width * 1.2 + width * float(rng.uniform(0.0, 0.1))
            if side:
                tiles = random_set(rng)
                groups.append(careless_line(tiles, start + v * height * float(rng.uniform(1.02, 1.15))
                                            + u * width * float(rng.uniform(-0.5, 0.5)), angle, height, aspect,
                                            rng, sloppiness))
            if loose:  # dropped beyond the end, clearly apart, or turned against the line
                far = pos + width * float(rng.uniform(0.7, 1.2))
                turn = float(rng.choice([0.0, 45.0, 90.0])) + rng.normal(0, 5)
                spot = Spot(int(rng.integers(53)), tuple(float(x) for x in start + u * far), angle + turn, height)
                groups.append([spot])
            return [((g, k), sp.quad(aspect)) for g, spots in enumerate(groups) for k, sp in enumerate(spots)], groups

        placed = _place_groups(rng, occ, make, size, margin=float(rng.uniform(0.02, 0.5) * height))
        if placed is None:
            failures += 1
            continue
        for spots in placed:
            first = len(layout.spots)
            layout.spots += spots
            if len(spots) > 1:
                layout.sets.append(list(range(first, len(layout.spots))))
    return layout


def _place_groups(rng, occ: Occupancy, make, size, tries: int = 25, margin: float = 4.0):
    """Like :func:`place`, for a maker that returns several groups of tiles at once."""
    W, H = size
    for _ in range(tries):
        center = rng.uniform((0.05 * W, 0.05 * H), (0.95 * W, 0.95 * H))
        quads, groups = make(center)
        corners = np.concatenate([q for _, q in quads])
        if occ.free(corners, margin):
            occ.take(corners, margin)
            return groups
    return None


def pool(rng: np.random.Generator, size: tuple[int, int], height: float, aspect: float,
         occ: Occupancy) -> list[Spot]:
    """The heap of face-down tiles to draw from: overlapping, every angle, never labelled."""
    count = int(rng.integers(5, 30))
    radius = height * np.sqrt(count) * rng.uniform(0.35, 0.6)

    def make(center):
        spots = []
        for _ in range(count):
            r = radius * np.sqrt(rng.random())
            t = rng.uniform(0, 2 * np.pi)
            c = center + r * np.array([np.cos(t), np.sin(t)])
            spots.append(Spot(None, (float(c[0]), float(c[1])), float(rng.uniform(0, 360)), height))
        return [(s, s.quad(aspect)) for s in spots]

    return place(rng, occ, make, size, tries=8, margin=0.3 * height) or []


def rows_layout(rng: np.random.Generator, size: tuple[int, int], height: float, aspect: float,
                occ: Occupancy, max_tiles: int = 90) -> Layout:
    """Sets kept in tidy rows, as most tables look: one reading direction, small gaps between sets."""
    W, H = size
    turn = float(rng.choice([0.0, 0.0, 0.0, 90.0, 180.0, 270.0]))
    wide, high = (H, W) if turn in (90.0, 270.0) else (W, H)
    width = height * aspect
    pitch = height * rng.uniform(1.08, 1.7)
    a = np.radians(turn + rng.normal(0, 1.5))
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    centre = np.array([W / 2, H / 2])
    layout = Layout()
    # the block of rows needed for max_tiles sits anywhere on the table, not always at an edge
    per_row = max(1.0, wide / (width * 1.5))
    block = min(high - 1.5 * height, np.ceil(max_tiles / per_row) * pitch)
    y = -high / 2 + 0.6 * height + rng.uniform(0, max(0.0, high - 1.5 * height - block))
    while y < high / 2 - 0.5 * height and len(layout.spots) < max_tiles:
        x = -wide / 2 + rng.uniform(0.2, 2.0) * width
        first_in_row = True
        while len(layout.spots) < max_tiles:
            indices = random_set(rng) if rng.random() < 0.9 else [None] * int(rng.integers(1, 3))
            room = int((wide / 2 - x) / (width * 1.02))
            if room < len(indices):
                if not first_in_row or room < 1:
                    break
                indices = indices[:room]  # big tiles: what fits of the set
            first_in_row = False
            local = np.array([x + width / 2, y + rng.normal(0, 0.03) * height])
            start = rot @ local + centre
            spots = line_of_tiles(indices, start, float(np.degrees(a)), height, aspect, rng, jitter=0.7)
            corners = np.concatenate([sp.quad(aspect) for sp in spots])
            if occ.free(corners, 1.0):
                occ.take(corners, 1.0)
                first = len(layout.spots)
                layout.spots += spots
                if len(spots) > 1 and indices[0] is not None:
                    layout.sets.append(list(range(first, len(layout.spots))))
            x += len(indices) * width * 1.02 + width * rng.uniform(0.25, 1.6)
        y += pitch
    return layout


def scatter_layout(rng: np.random.Generator, size: tuple[int, int], height: float, aspect: float,
                   occ: Occupancy, count: int) -> Layout:
    """Loose tiles at any angle; some lie partly on top of others."""
    layout = Layout()
    W, H = size
    for _ in range(count):
        index = None if rng.random() < 0.15 else int(rng.integers(53))
        angle = _pick_angle(rng, None)
        if rng.random() < 0.15 and layout.spots:  # on top of an earlier tile
            other = layout.spots[int(rng.integers(len(layout.spots)))]
            c = np.asarray(other.center) + rng.normal(0, 0.5 * height, 2)
            layout.spots.append(Spot(index, (float(c[0]), float(c[1])), angle, height))
            continue

        def make(center, index=index, angle=angle):
            s = Spot(index, (float(center[0]), float(center[1])), angle, height * rng.uniform(0.95, 1.05))
            return [(s, s.quad(aspect))]

        spots = place(rng, occ, make, size, tries=10, margin=2.0)
        if spots:
            layout.spots += spots
    return layout


RACK_COLORS = ((30, 30, 30), (25, 45, 80), (90, 50, 20), (40, 80, 40), (150, 180, 200), (35, 35, 110),
               (60, 60, 60), (20, 20, 20))


def rack_layout(rng: np.random.Generator, size: tuple[int, int], height: float, aspect: float,
                center: tuple[float, float] | None = None, rows: list[list[int]] | None = None,
                angle: float | None = None, room: float | None = None) -> Layout:
    """A two- or three-row rack seen from the front: tiles standing in rows on ledges.

    ``room``: the canvas length the rack may take (default: the frame's side
    along it; longer for a rack that :func:`rack_side_view` will foreshorten).
    """
    if angle is None:
        angle = float(rng.normal(0, 4)) if rng.random() < 0.85 else float(rng.choice([90.0, 180.0, 270.0]))
    W, H = size
    room = room or (H if round(angle / 90) % 2 else W)
    squash = float(rng.uniform(0.75, 1.0)) if rows is None else 0.92
    th = height * squash
    width = height * aspect
    if rows is None:
        length = min(room * 0.85, width * float(rng.uniform(11, 16)))
        per_row = max(2, int(length / (width * 1.04)))
        rows = []
        for _ in range(3 if rng.random() < 0.3 else 2):
            n = int(rng.integers(per_row // 2, per_row + 1))
            rows.append([int(i) for i in rng.integers(0, 53, n)])
        gaps = 0.08
    else:
        length = max(len(r) for r in rows) * width * 1.03 + width
        gaps = 0.0
    step = 0.30 * height  # ledge between the rows
    total_h = len(rows) * th + (len(rows) - 1) * step + 0.35 * height
    if center is None:
        center = (W / 2 + rng.uniform(-0.05, 0.05) * W, H / 2 + rng.uniform(-0.15, 0.15) * H)
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    def to_canvas(pts):
        return (np.asarray(pts, np.float64) @ rot.T + center).astype(np.float32)

    top = -total_h / 2
    layout = Layout()
    color = tuple(float(c) * rng.uniform(0.8, 1.2) for c in RACK_COLORS[rng.integers(len(RACK_COLORS))])
    body = to_canvas([[-length / 2 - 0.2 * width, top - 0.12 * height], [length / 2 + 0.2 * width, top - 0.12 * height],
                      [length / 2 + 0.2 * width, top + total_h], [-length / 2 - 0.2 * width, top + total_h]])
    ledges = []
    lift = tuple(float(x) for x in rot @ np.array([0.0, -0.12 * height]))
    for r, row in enumerate(rows):
        row_top = top + r * (th + step)
        x = -length / 2 + width / 2
        first = len(layout.spots)
        for index in row:
            if rng.random() < gaps:
                x += width * rng.uniform(0.3, 1.0)  # a gap between the player's groups
            if x + width / 2 > length / 2:
                break
            c = to_canvas([[x, row_top + th / 2]])[0]
            layout.spots.append(Spot(index, (float(c[0]), float(c[1])), angle + float(rng.normal(0, 0.5)), height,
                                     squash, lift))
            x += width + rng.uniform(0, 0.02) * height
        if len(layout.spots) > first:
            layout.rack_rows.append(len(layout.sets))
            layout.sets.append(list(range(first, len(layout.spots))))
        foot = row_top + th
        ledges.append(to_canvas([[-length / 2 - 0.2 * width, foot - 0.06 * height],
                                 [length / 2 + 0.2 * width, foot - 0.06 * height],
                                 [length / 2 + 0.2 * width, foot + (0.2 if r < len(rows) - 1 else 0.35) * height],
                                 [-length / 2 - 0.2 * width, foot + (0.2 if r < len(rows) - 1 else 0.35) * height]]))
    layout.racks.append(Rack(body, ledges, color))
    return layout


def rack_side_view(center: tuple[float, float], yaw: float, distance: float) -> np.ndarray:
    """Canvas-to-image matrix of a camera turned ``yaw`` degrees about the vertical through ``center``.

    A rack photographed from the side: its near end is larger than its far
    end and every tile is narrowed by about cos(yaw). ``distance`` is the
    camera's distance in pixels (a few frame widths; nearer is stronger).
    """
    a = np.radians(yaw)
    cx, cy = center
    to_centre = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], np.float64)
    turn = np.array([[distance * np.cos(a), 0, 0], [0, distance, 0], [np.sin(a), 0, distance]], np.float64)
    back = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1]], np.float64)
    return back @ turn @ to_centre
