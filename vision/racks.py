"""Tiles standing on a rack, told from sets on the table by what lies beside them.

A rack holds its tiles in one or two rows in front of a board: beside each row
(in its gaps and past its ends) is the board, and farther above or below the
row is the table.  A set on the table has the table all round it.  So a row
is a rack row when the colour beside it (tiles left out: in its gaps or past
either end) is even, unlike the tile faces, clearly darker than the open table
well above or well below it.  Racks lighter than the table are found by their
tiles alone (below; the classic racks are black, brown or navy).
Rows on a rack may have wide gaps (players group their tiles), so a row
here is every tile on one line at any spacing, not only tiles edge to edge.
"""

from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

from vision.geometry import Components, frame_offsets, scaled_about_centres, tile_frames

ROW_ANGLE = 12.0  # degrees between the x axes of two tiles in one rack row
ROW_OFFSET = 0.35  # sideways misalignment of centres within a row, in tile heights
ROW_REACH = 8.0  # farthest apart two neighbouring tiles of one row may stand, in tile widths
CONTRAST = 55.0  # colour difference (Lab) between the board beside a row and the table beyond it
EVEN = 0.6  # at least this share of what is seen beside a row is within NEAR of its median colour
NEAR = 30.0  # Lab distance of "the same colour" for EVEN
DARKER = 25.0  # racks are darker than the table (Lab L): light shading across a table is not a rack
NOT_FACE = 40.0  # the board differs at least this much from the tile faces (not a tile's own side)
UPRIGHT = 15.0  # degrees: a rack stands level in a photo of it, seen from its owner's side or the other
ROLL = 40.0  # degrees: a photo whose level lies further than this off its own x axis is on its side
ROLLED = 0.7  # share of a photo's tiles lying along one line for that line to count as its level
STRAY = 0.5  # a tile askew on a rack row's line is in the row with up to this many widths of board between it and the row
STRAY_OFFSET = 0.5  # ... this many tile heights off its centre line
STRAY_SIZE = 1.3  # ... and at most this much bigger or smaller than its tiles
DIAMOND = 20.0  # degrees: an outline this close to 45 degrees off a row was read inside an upright face ...
INSCRIBED = 0.5  # ... and may be as small as this share of the row's tiles (a square turned inside a face)
FACING = 2.0  # tiles farther apart than this many widths are in one rack row only when they face the same way
ROW_HEIGHTS = 4 / 3  # the taller row of a rack's two is at most this much taller (a ledge hides some of one)
LONGEST = 20  # tiles: a line longer than this stands on no rack (sets laid end to end on the table)
SIDEWAYS = 10  # tiles at least on the rack rows of a photo on its side (a rack's worth, not a set or two)
SHUFFLED = 5  # a row told as a rack's by its tiles (mostly in no set) has at least this many
THUMB = 10.0  # tile height in the thumbnail the colours are measured on (pixels)


def rack_rows(quads: np.ndarray, image: np.ndarray,
              in_sets: Callable[[list[int]], int] | None = None) -> list[list[int]]:
    """Tile indices of each rack row found, top row first, each row in left-to-right order.

    ``in_sets(row)`` (tiles left to right) says how many of a row's tiles can
    be in valid sets as they lie.  Two or more rows of at least SHUFFLED
    tiles (askew ones on a row's line counted), each mostly in no set,
    stacked as a rack's rows are, are a rack even where its board is not
    told from the table (a black rack on a dark cloth, a light rack on a
    light table) and at any angle (a rack at the side of a photo of the
    whole table): sets on a table are laid valid, not in drawn order.  A
    row whose tiles all lie in valid sets is sets on the table, whatever the
    colours round it say, unless a rack row beside it is not: rows that
    could all be laid down as they stand would be a winning hand.
    """
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    if len(q) == 0:
        return []
    f = tile_frames(q, as_read=True)
    level, upright = _level(f), np.cos(np.deg2rad(UPRIGHT))
    rows = _rows(f)
    candidates = [row for row in rows if abs(_reading_axis(q[row]) @ level) >= upright]  # racks stand level
    found = _boards(candidates, q, f, image) if candidates else []
    # the other row of a rack found: level, parallel, one row's pitch above or below, side by side with it
    found += [row for row in candidates if row not in found and any(_same_rack(row, other, f) for other in found)]
    found = [row for row in found if len(row) <= LONGEST]
    if abs(float(level[0])) < np.cos(np.deg2rad(ROLL)) and sum(map(len, found)) < SIDEWAYS:
        found = []  # sets on a table of two colours, or beside a dark object, seen sideways look like a short rack
    if in_sets is not None:
        def laid(row: list[int]) -> int:
            return in_sets(_in_order(row, f, q))

        # a rack whose every row could be laid down as the valid sets it shows is sets on the table,
        # a row taken with its askew tiles or without (a set missing its tile outlined as a diamond is
        # no set; a loose tile askew beside a set is no part of it)
        mixed = [laid(row) < len(row) and (len(whole) == len(row) or laid(whole) < len(whole))
                 for row, whole in zip(found, _with_strays(found, f))]
        found = [row for row, own in zip(found, mixed) if own or any(
            other_mixed and other is not row and _same_rack(row, other, f) for other, other_mixed in zip(found, mixed))]
        # at any angle: the photo may show a rack at the table's side; a row's askew tiles count
        # towards its length (an outline read as a diamond would otherwise cut the row short)
        lines = [row for row in rows if row not in found and len(row) > 1]
        grown = _with_strays(found + lines, f)[len(found):]
        shuffled = [row for row, whole in zip(lines, grown) if len(whole) >= SHUFFLED and 2 * laid(whole) < len(whole)]
        found += [row for row in shuffled
                  if any(_same_rack(row, other, f) for other in shuffled + found if other is not row)]
    rows = [_in_order(row, f, q) for row in _with_strays(found, f)]
    down = np.array([-level[1], level[0]])  # across the racks, towards the image's bottom (level points right)
    return sorted(rows, key=lambda row: float(f.centers[row].mean(axis=0) @ down))  # top row first, as typed


def _with_strays(rows: list[list[int]], f) -> list[list[int]]:
    """Each rack row with the tiles on its line that stand askew or turned (a tile set down crooked,
    an outline read a quarter off or as a diamond inside its face): near the line through the row's
    centres, at most STRAY widths of board from its ends, about as big; a stray taken moves the row's
    end, so the next one beside it is looked for from there."""
    taken = {t for row in rows for t in row}
    extent = f.extents
    out = []
    for row in rows:
        row = list(row)
        x, up = _line(row, f)
        w, h, size = (float(np.median(v[row])) for v in (f.widths, f.heights, extent))
        mid = float(np.median(f.centers[row] @ up))
        half = 0.5 * (f.widths * np.abs(f.x_axes @ x) + f.heights * np.abs(f.up_axes @ x))  # along the row
        reach = w / 2 + half + STRAY * w  # centre to centre: a tile turned askew reaches farther
        turned = np.abs(np.abs(f.x_axes @ x) - np.cos(np.pi / 4)) <= np.sin(np.deg2rad(DIAMOND))
        while True:
            t = f.centers[row] @ x
            strays = [k for k in range(len(f.centers)) if k not in taken
                      and abs(float(f.centers[k] @ up) - mid) <= STRAY_OFFSET * h
                      and t.min() - reach[k] <= float(f.centers[k] @ x) <= t.max() + reach[k]
                      and (max(extent[k], size) <= STRAY_SIZE * min(extent[k], size)
                           or turned[k] and size * INSCRIBED <= extent[k] <= size)]
            if not strays:
                break
            taken.update(strays)
            row += strays
        out.append(row)
    return out


def _in_order(row: list[int], f, q: np.ndarray) -> list[int]:
    """A row's tiles left to right as their owner reads them."""
    return sorted(row, key=lambda t: float(f.centers[t] @ _reading_axis(q[row])))


def _boards(candidates: list[list[int]], q: np.ndarray, f, image: np.ndarray) -> list[list[int]]:
    """The rows with a rack's board beside them (``_on_rack``), measured on a thumbnail of the photo."""
    step = max(1, int(float(np.median(f.heights)) / THUMB))
    small = image[::step, ::step]  # every k-th pixel: medians need no smoothing
    scale = 1.0 / step
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
    tiles_mask = np.zeros(small.shape[:2], np.uint8)
    cv2.fillPoly(tiles_mask, list(np.round(scaled_about_centres(q * scale, 1.3)).astype(np.int32)), 1)
    faces = np.zeros(small.shape[:2], np.uint8)
    cv2.fillPoly(faces, list(np.round(scaled_about_centres(q * scale, 0.7)).astype(np.int32)), 1)
    face = np.median(lab[faces > 0], axis=0) if faces.any() else np.full(3, 255.0)
    return [row for row in candidates if _on_rack(row, f, scale, lab, tiles_mask, face)]


def _level(f) -> np.ndarray:
    """Which way is level in this photo, pointing the way its tiles read: the line most tiles lie
    along when nearly every tile agrees on it (a photo held at a slant, or one left on its side or
    upside down: a rack still stands level with the rest of its tiles), else the image's x axis.

    Tiles strewn over a table at every angle agree on no line, so a slanted row among them is no rack.
    """
    mean = _axis_angle(f.x_axes)
    off = np.abs((np.rad2deg(np.arctan2(f.x_axes[:, 1], f.x_axes[:, 0]) - mean) + 90) % 180 - 90)
    if np.mean(off <= ROW_ANGLE) >= ROLLED:
        level = np.array([np.cos(mean), np.sin(mean)])
        reads = f.x_axes.sum(axis=0)  # the tiles' reading sense (rack tiles stand upright for their owner)
        return -level if float(reads @ level) < 0 else level
    return np.array([1.0, 0.0])


def _axis_angle(vectors: np.ndarray) -> float:
    """The mean direction (radians) of vectors taken without their sign (a tile's axis, the way to
    a neighbour on either side): their angles doubled, averaged on the circle, halved."""
    doubled = 2 * np.arctan2(vectors[:, 1], vectors[:, 0])
    return 0.5 * float(np.arctan2(np.sin(doubled).sum(), np.cos(doubled).sum()))


def _line(row: list[int], f) -> tuple[np.ndarray, np.ndarray]:
    """(along, across) unit axes of a row: the line through its centres where three or more tiles
    show it (a rack seen at a slant runs askew to its upright tiles), else its tiles' own x axis."""
    x = f.x_axes[row].mean(axis=0)
    if len(row) >= 3:
        c = f.centers[row]
        line = np.linalg.svd(c - c.mean(axis=0), full_matrices=False)[2][0]
        x = line if float(line @ x) >= 0 else -line
    x = x / max(np.linalg.norm(x), 1e-9)
    return x, np.array([x[1], -x[0]])


def _same_rack(row: list[int], other: list[int], f) -> bool:
    """``row`` is the second row of the rack that holds ``other``."""
    x = f.x_axes[other].mean(axis=0)
    x /= max(np.linalg.norm(x), 1e-9)
    own = f.x_axes[row].mean(axis=0)
    if abs(float(own @ x)) < np.cos(np.deg2rad(ROW_ANGLE)) * np.linalg.norm(own):
        return False  # a rack's rows are parallel
    x, up = _line(other, f)
    heights = sorted(float(np.median(f.heights[r])) for r in (row, other))  # the same either way round
    h, w = heights[0], float(np.median(f.widths[other]))
    step = abs(float(np.median(f.centers[row] @ up) - np.median(f.centers[other] @ up))) / h
    a, b = f.centers[row] @ x, f.centers[other] @ x
    overlap = min(a.max(), b.max()) - max(a.min(), b.min()) > -2 * w
    return bool(0.9 <= step <= 1.8 and overlap and heights[1] < ROW_HEIGHTS * heights[0])


def _reading_axis(q: np.ndarray) -> np.ndarray:
    """Left to right for the tiles' numerals (by majority: rack tiles stand upright for their owner)."""
    claimed = ((q[:, 1] - q[:, 0]) + (q[:, 2] - q[:, 3])).sum(axis=0)
    n = np.linalg.norm(claimed)
    return claimed / n if n > 0 else np.array([1.0, 0.0])


def _rows(f) -> list[list[int]]:
    """Tiles on one straight line, parallel, at any spacing up to ROW_REACH widths (union of close pairs)."""
    along, across = (a.T for a in frame_offsets(f, f.centers))  # [i, j]: tile j seen from tile i
    parallel = np.abs(f.x_axes @ f.x_axes.T) >= np.cos(np.deg2rad(ROW_ANGLE))
    extent = f.extents
    size = np.maximum(extent[:, None], extent[None, :]) / np.maximum(np.minimum(extent[:, None], extent[None, :]), 1e-9)
    facing = (f.up_axes @ f.up_axes.T > 0) | (along <= FACING)  # a set beyond a rack's end may face anyone
    ok = parallel & facing & (across <= ROW_OFFSET) & (along <= ROW_REACH) & (size <= 1.3)
    ok &= ok.T  # each on the line of the other
    rows = Components(len(f.centers))
    for i, j in zip(*np.nonzero(np.triu(ok, 1))):
        rows.join(int(i), int(j))
    return [part for row in rows.groups() for part in _straight(row, f)]


def _straight(row: list[int], f) -> list[list[int]]:
    """A row as one or more straight lines: two rows of a slanted rack, each tile level, may chain
    into one (the end of the lower row level with the start of the upper); the centres then lie
    on two lines, told apart by the widest gap across the way each tile's nearest neighbour lies
    (the rows' own slant; a line fitted through both rows may run level when they overlap little)."""
    if len(row) < 4:
        return [row]
    c = f.centers[row]
    d = np.linalg.norm(c[:, None] - c[None], axis=2) + np.diag(np.full(len(row), np.inf))
    step = c[np.argmin(d, axis=1)] - c
    slant = _axis_angle(step)  # a neighbour on either side is the same line
    off = (c - c.mean(axis=0)) @ np.array([-np.sin(slant), np.cos(slant)])
    h = float(np.median(f.heights[row]))
    order = np.argsort(off)
    gaps = np.diff(off[order])
    k = int(np.argmax(gaps))
    if off.max() - off.min() <= 2 * ROW_OFFSET * h or gaps[k] < ROW_OFFSET * h:
        return [row]
    return _straight([row[i] for i in order[:k + 1]], f) + _straight([row[i] for i in order[k + 1:]], f)


def _on_rack(row: list[int], f, scale: float, lab: np.ndarray, tiles_mask: np.ndarray, face: np.ndarray) -> bool:
    """The board beside the row is even, unlike the tile faces, and unlike the table above or below it."""
    x = f.x_axes[row].mean(axis=0)
    x /= max(np.linalg.norm(x), 1e-9)
    up = np.array([x[1], -x[0]])
    if float(up @ f.up_axes[row].mean(axis=0)) < 0:
        up = -up
    c = f.centers[row]
    w, h = float(np.median(f.widths[row])), float(np.median(f.heights[row]))
    t = c @ x
    mid = float(np.median(c @ up))

    def patch(a: float, b: float, lo: float, hi: float, free: float = 0.0) -> np.ndarray:
        """Lab pixels between a and b tile heights above the row's centre line and lo..hi along it,
        tiles left out; none when less than ``free`` of the patch is clear of tiles."""
        corners = np.array([x * lo + up * (mid + a * h), x * hi + up * (mid + a * h),
                            x * hi + up * (mid + b * h), x * lo + up * (mid + b * h)])
        pts = np.round(corners * scale).astype(np.int32)
        H, W = tiles_mask.shape
        x0, y0 = np.clip(pts.min(axis=0), 0, (W, H))
        x1, y1 = np.clip(pts.max(axis=0) + 1, 0, (W, H))
        if x1 <= x0 or y1 <= y0:
            return lab[:0, 0]
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)  # only the patch's own box of the thumbnail
        cv2.fillPoly(mask, [pts - (x0, y0)], 1)
        inside = mask > 0
        clear = inside & (tiles_mask[y0:y1, x0:x1] == 0)
        return lab[y0:y1, x0:x1][clear] if clear.sum() >= free * max(inside.sum(), 1) else lab[:0, 0]

    first, last = float(t.min()), float(t.max())
    # the board shows in the row's gaps and past its ends (a full row may hide it all but one end)
    boards = (patch(-0.3, 0.3, lo, hi) for lo, hi in  # each looked at only when the one before says no
              ((first - 1.2 * w, last + 1.2 * w), (last + 0.6 * w, last + 1.6 * w), (first - 1.6 * w, first - 0.6 * w)))
    tables = None  # looked at only once a board is seen
    for beside in boards:
        if len(beside) < 12:
            continue
        board = np.median(beside, axis=0)
        if not _even(beside, board) or float(np.linalg.norm(board - face)) < NOT_FACE:
            continue
        if tables is None:
            tables = [patch(a, b, first - 1.2 * w, last + 1.2 * w, free=0.6) for a, b in ((1.3, 2.2), (-2.2, -1.3))]
            tables = [(p, np.median(p, axis=0)) for p in tables if len(p) >= 12]
            tables = [m for p, m in tables if _even(p, m)]  # the table beyond a rack is open and even, not more tiles
        if any(float(np.linalg.norm(table - board)) > CONTRAST and table[0] - board[0] > DARKER for table in tables):
            return True
    return False


def _even(pixels: np.ndarray, colour: np.ndarray) -> bool:
    """Most of these Lab pixels are near ``colour`` (a board or a table, not a jumble)."""
    return float(np.mean(np.linalg.norm(pixels - colour, axis=1) < NEAR)) >= EVEN


__all__ = ["rack_rows"]
