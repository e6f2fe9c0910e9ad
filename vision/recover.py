"""Tiles the outline step missed, looked for where the detector itself saw tile face.

Tiles pressed edge to edge inside a set can share one core region that is
too weak to outline, or an outline the classifier turns down; the detector's
*face* output still covers them.  So the face the found outlines leave
uncovered is cut into places the size of this photo's own tiles (taken from
the nearest tile found, laid the way that region lies); where the face is
too faint for that, the place one step (this photo's own spacing) beside a
tile is looked at when some face shows there (the last tile of a set, the
second of a pair).  Outlines about two tiles wide (two tiles at an angle
read as one, or two touching tiles as one) are offered cut in two.  The
classifier reads each place, and only a sure tile reading is kept, so table
showing between tiles is not made a tile.

Everything here is geometry on the maps and quads; the classifier is called
by :class:`vision.model.TileModel`, once, on all the places together.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import frame_offsets, photo_pitch, tile_frames

FACE = 0.5  # face probability that counts as tile face
GROWN = 1.1  # a found outline covers this much of the face map around it (the map is blurred)
MIN_AREA = 0.25  # uncovered face smaller than this share of a tile is a fringe of a found one
MIN_SIDE = 0.3  # ... and so is a strip narrower than this share of the tile's width
APART = 0.6  # a place's centre lies at least this share of a found tile's width (or height) from its middle
MAX_RUN = 6  # at most this many missed tiles side by side in one uncovered region
DETAIL = 12.0  # map pixels across a tile's width that are enough to cut the uncovered face into tiles
BESIDE = 0.3  # mean face probability over a place beside a tile that is worth a look
WIDE = 1.7  # an outline this many tile widths wide (of the usual tile round it) may be two tiles
NEIGHBOURS = 4  # the tiles nearest an outline that say how big a tile is there
HOLE_PITCH = (0.8, 1.6)  # a hole's neighbours stand this many of their own widths from its centre...
HOLE_SPAN = (1.5, 2.6)  # ...and this many apart: room for one tile between them
HOLE_LINE = 25.0  # degrees: a hole's two neighbours lie on one line through it, along their x axes
HOLE_SIZE = 1.3  # a hole's outline is at most this much bigger or smaller than its neighbours


def _frame_near(frames, point: np.ndarray) -> int:
    return int(np.argmin(np.linalg.norm(frames.centers - point, axis=1)))


def quads_along(centre: np.ndarray, axis: np.ndarray, n: int, step: float, width: float,
                height: float) -> list[np.ndarray]:
    """``n`` tiles of ``width`` x ``height`` side by side along ``axis``, ``step`` apart, about ``centre``."""
    axis = axis / max(float(np.linalg.norm(axis)), 1e-9)
    up = np.array([-axis[1], axis[0]])
    hw, hh = width / 2, height / 2
    out = []
    for k in range(n):
        c = centre + axis * (k - (n - 1) / 2) * step
        out.append(np.array([c - axis * hw - up * hh, c + axis * hw - up * hh,
                             c + axis * hw + up * hh, c - axis * hw + up * hh], np.float32))
    return out


def uncovered_places(face: np.ndarray, scale: float, quads: np.ndarray) -> list[np.ndarray]:
    """Tile-sized quads (image pixels) over tile face that no outline in ``quads`` covers.

    ``face``: the detector's face probability at the scale it ran at
    (``scale`` = its pixels per image pixel); ``quads``: the tiles found, in
    image pixels.  A region about one tile big gives one place; a strip of
    several tiles side by side (the way sets lie) is cut into tiles of the
    nearest found tile's width along its long side.
    """
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    if not len(q):
        return []
    # a coarse map (the detector's own grid) is enlarged until a tile is about DETAIL pixels wide
    width = float(np.median(tile_frames(q).widths)) * scale
    up = int(min(8, 2 ** max(0, np.ceil(np.log2(DETAIL / max(width, 1e-6))))))
    if up > 1:
        face = cv2.resize(face, (face.shape[1] * up, face.shape[0] * up), interpolation=cv2.INTER_LINEAR)
        scale *= up
    f = tile_frames(q * scale)
    covered = np.zeros(face.shape, np.uint8)
    grown = f.centers[:, None, :] + (q * scale - f.centers[:, None, :]) * GROWN
    cv2.fillPoly(covered, [np.round(g).astype(np.int32) for g in grown], 1)
    open_face = ((face > FACE) & (covered == 0)).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(open_face, connectivity=4)
    if count <= 1:
        return []
    tile_area = float(np.median(f.widths * f.heights))
    places = []
    for k in range(1, count):
        if stats[k, cv2.CC_STAT_AREA] < MIN_AREA * tile_area:
            continue
        x0, y0, bw, bh = stats[k, :4]
        ys, xs = np.nonzero(labels[y0:y0 + bh, x0:x0 + bw] == k)
        points = np.stack([xs + x0, ys + y0], axis=1).astype(np.float32)
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(points)
        centre = np.array([cx, cy])
        near = _frame_near(f, centre)
        w, h = float(f.widths[near]), float(f.heights[near])
        long_side, short_side = max(rw, rh), min(rw, rh)
        theta = np.deg2rad(angle if rw >= rh else angle + 90)
        long_axis = np.array([np.cos(theta), np.sin(theta)])
        if short_side < MIN_SIDE * w or short_side > 1.6 * h:
            continue  # a fringe of a found tile, or a block of tiles (not a strip): leave it
        if short_side < (w + h) / 2:  # one tile across: its height lies along the region
            if long_side > 1.6 * h:
                continue  # tiles stacked top to bottom are no set; a region this tall is not one tile
            axis = f.x_axes[near] if long_side < 1.15 * short_side else np.array([-long_axis[1], long_axis[0]])
            places += quads_along(centre, axis, 1, w, w, h)
        elif long_side <= MAX_RUN * 1.1 * w:  # tiles side by side along the region
            n = max(1, round(long_side / w))
            places += quads_along(centre, long_axis, n, long_side / n, w, h)
    if not places:
        return []
    clear = _clear_of(np.array([p.mean(axis=0) for p in places]), f)
    return [p / scale for p, ok in zip(places, clear) if ok]


def beside_places(face: np.ndarray, scale: float, quads: np.ndarray, shape: tuple[int, int],
                  taken: list[np.ndarray] = (), least: float = BESIDE) -> list[np.ndarray]:
    """Tile-sized places one step beyond either side of each tile in ``quads``, inside a photo of
    ``shape`` (h, w), where the detector saw at least ``least`` face on average and neither a tile
    nor a place already ``taken`` lies: the last tile of a set, or the second of a pair, too faint
    for :func:`uncovered_places`."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    if not len(q):
        return []
    f = tile_frames(q)
    step = (photo_pitch(q) * f.widths)[:, None] * f.x_axes
    centres = np.concatenate([f.centers + step, f.centers - step])
    x_axes, up_axes = np.concatenate([f.x_axes, f.x_axes]), np.concatenate([f.up_axes, f.up_axes])
    widths, heights = np.concatenate([f.widths, f.widths]), np.concatenate([f.heights, f.heights])
    free = _clear_of(centres, f) & np.all((centres >= 0) & (centres < np.array(shape[::-1])), axis=1)
    # the face seen inside each place: a 3 x 3 grid of samples over its middle
    grid = np.array([(a, b) for a in (-0.3, 0, 0.3) for b in (-0.3, 0, 0.3)])
    points = (centres[:, None, :] + grid[None, :, :1] * (widths[:, None, None] * x_axes[:, None, :])
              + grid[None, :, 1:] * (heights[:, None, None] * up_axes[:, None, :]))
    ij = np.round(points * scale).astype(np.int64)
    inside = (ij[..., 0] >= 0) & (ij[..., 1] >= 0) & (ij[..., 0] < face.shape[1]) & (ij[..., 1] < face.shape[0])
    seen = np.where(inside, face[np.clip(ij[..., 1], 0, face.shape[0] - 1), np.clip(ij[..., 0], 0, face.shape[1] - 1)], 0)
    keep = np.nonzero(free & (seen.mean(axis=1) >= least))[0]
    places, taken = [], [np.asarray(t).mean(axis=0) for t in taken]
    for k in keep:
        if any(np.linalg.norm(centres[k] - c) < APART * widths[k] for c in taken):
            continue  # the same place seen from the tiles on both its sides, or already looked at
        taken.append(centres[k])
        places += quads_along(centres[k], x_axes[k], 1, widths[k], widths[k], heights[k])
    return places


def _clear_of(centres: np.ndarray, f) -> np.ndarray:
    """For each centre: it lies outside every tile found, grown by ``APART`` of its size each way
    from its middle (measured in each tile's own width and height, so along a tile lying on its
    side as well as across it)."""
    along, across = frame_offsets(f, centres)
    return ~np.any((along < APART) & (across < APART), axis=1)


def wide_outlines(quads: np.ndarray) -> tuple[list[int], list[np.ndarray]]:
    """(indices of outlines about two tiles wide, the two tile-sized halves of each, in pairs).

    The usual tile is the median of the ``NEIGHBOURS`` tiles nearest the
    outline (a photo taken at a slant shows far tiles smaller than near ones);
    an outline at least ``WIDE`` usual widths along one side, about one tile
    height the other way and at least half again a tile's area is cut across
    its long side into two tiles.
    """
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    if len(q) < 3:
        return [], []
    f = tile_frames(q)
    near = np.argsort(f.distances(), axis=1)[:, 1:NEIGHBOURS + 1]  # each outline's nearest others (itself first)
    usual_w, usual_h = np.median(f.widths[near], axis=1), np.median(f.heights[near], axis=1)
    wide, halves = [], []
    for i in range(len(q)):
        w, h = float(usual_w[i]), float(usual_h[i])
        rect = cv2.minAreaRect(q[i].astype(np.float32))
        (cx, cy), (rw, rh), angle = rect
        long_side, short_side = max(rw, rh), min(rw, rh)
        if not (WIDE * w <= long_side <= 2.6 * w and 0.8 * h <= short_side <= 1.5 * h
                and rw * rh >= 1.5 * w * h):
            continue  # a tile of its own (its long side is its height), or no pair of tiles
        theta = np.deg2rad(angle if rw >= rh else angle + 90)
        axis = np.array([np.cos(theta), np.sin(theta)])
        wide.append(i)
        halves += quads_along(np.array([cx, cy]), axis, 2, long_side / 2, long_side / 2, max(short_side, 0.9 * h))
    return wide, halves


def in_holes(quads: np.ndarray, found: np.ndarray) -> tuple[list[int], np.ndarray]:
    """(indices of the outlines ``quads`` that stand in a line between two tiles ``found``, side by
    side, one tile's pitch from each, where no tile was found; each one's quad laid as its two
    neighbours lie).

    Such a gap in a set holds a tile, even where the classifier cannot read it (seen small, dim or
    partly covered): players lay tiles there; a coin or a crumb does not land exactly one tile
    from two tiles of one line.  An outline drawn round what shows of it (a finger over its foot)
    may lie askew or off centre, so its quad is its neighbours' size and axes, midway between them.
    """
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    if len(q) == 0 or len(found) < 2:
        return [], np.zeros((0, 4, 2), np.float32)
    f = tile_frames(found)
    own = tile_frames(q)
    line = np.cos(np.deg2rad(HOLE_LINE))
    span = f.distances() / f.widths[:, None]  # [a, b]: centre to centre, in a's widths
    clear = _clear_of(own.centers, f)
    out, laid, filled = [], [], set()
    for k, c in enumerate(own.centers):
        if not clear[k]:  # a tile found there already
            continue
        d = f.centers - c
        dist = np.linalg.norm(d, axis=1)
        u = d / np.maximum(dist, 1e-9)[:, None]
        size = own.extents[k] / np.maximum(f.extents, 1e-9)
        near = np.nonzero((dist >= HOLE_PITCH[0] * f.widths) & (dist <= HOLE_PITCH[1] * f.widths)
                          & (np.abs(np.sum(u * f.x_axes, axis=1)) >= line)
                          & (size <= HOLE_SIZE) & (size >= 1 / HOLE_SIZE))[0]
        pair = next(((a, b) for i, a in enumerate(near) for b in near[i + 1:]
                     if float(u[a] @ u[b]) <= -line and abs(float(f.x_axes[a] @ f.x_axes[b])) >= line
                     and HOLE_SPAN[0] <= span[a, b] <= HOLE_SPAN[1]), None)
        if pair is None or pair in filled:  # one tile a hole, however many outlines show bits of it
            continue
        filled.add(pair)
        a, b = pair
        sign = 1.0 if float(f.x_axes[a] @ f.x_axes[b]) >= 0 else -1.0  # b's axis the way a's points
        out.append(k)
        laid += quads_along((f.centers[a] + f.centers[b]) / 2, f.x_axes[a] + sign * f.x_axes[b], 1, 0.0,
                            (f.widths[a] + f.widths[b]) / 2, (f.heights[a] + f.heights[b]) / 2)
    return out, np.array(laid, np.float32).reshape(-1, 4, 2)


__all__ = ["beside_places", "in_holes", "quads_along", "uncovered_places", "wide_outlines"]
