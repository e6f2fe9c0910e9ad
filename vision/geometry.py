"""Sets from where the tiles lie: tiles edge to edge in a line form one set.

Each tile carries its own frame: its quad (TL, TR, BR, BL of the upright face)
gives an x axis along the numeral's baseline and an up axis.  A set runs along
the tiles' x axis, so two tiles are neighbours when one lies beside the other
along that axis, about one tile width away, with little sideways offset.  This
works the same at 0, 90, 180 degrees or any angle, under perspective (every
test uses the pair's own sizes), and for rack rows, which are just long lines.

Linking is mutual-best: each tile keeps only its nearest neighbour on its left
and on its right, and a link stands when both tiles choose each other, so
rows never branch and a crowded table never merges into one blob.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GeometryOptions:
    """How loose a line of tiles may be and still be one set (ratios of tile size)."""

    max_gap: float = 0.5  # empty space between neighbours, in tile widths
    max_overlap: float = 0.35  # neighbours' outlines may overlap this much (loose outlines)
    max_offset: float = 0.4  # sideways misalignment of centres, in tile heights
    max_angle: float = 25.0  # degrees between the two tiles' x axes
    max_size_ratio: float = 1.6  # tiles of very different sizes are not in one line


@dataclass(frozen=True)
class TileFrame:
    """Centres, unit x axes, unit up axes, widths and heights of N tiles."""

    centers: np.ndarray  # (N, 2)
    x_axes: np.ndarray  # (N, 2) along the top edge, TL -> TR
    up_axes: np.ndarray  # (N, 2) from the bottom edge to the top edge
    widths: np.ndarray  # (N,)
    heights: np.ndarray  # (N,)


def tile_frames(quads: np.ndarray) -> TileFrame:
    """Each tile's own axes and size from its quad (TL, TR, BR, BL of the upright face)."""
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    across = (q[:, 1] - q[:, 0]) + (q[:, 2] - q[:, 3])  # top edge + bottom edge
    up = (q[:, 0] - q[:, 3]) + (q[:, 1] - q[:, 2])  # left edge + right edge, pointing up
    widths = np.linalg.norm(across, axis=1) / 2
    heights = np.linalg.norm(up, axis=1) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        x_axes = np.nan_to_num(across / (2 * widths[:, None]))
        up_axes = np.nan_to_num(up / (2 * heights[:, None]))
    return TileFrame(q.mean(axis=1), x_axes, up_axes, widths, heights)


def _link_costs(f: TileFrame, o: GeometryOptions) -> tuple[np.ndarray, np.ndarray]:
    """Cost of j being i's right neighbour (rows i, cols j); inf where j is not one.

    Returns (cost, side) where side[i, j] is +1 when j lies on i's right, -1 on its left.
    """
    n = len(f.centers)
    d = f.centers[None, :, :] - f.centers[:, None, :]  # d[i, j] = c_j - c_i
    along = np.einsum("ijk,ik->ij", d, f.x_axes)  # in i's frame
    across = np.einsum("ijk,ik->ij", d, f.up_axes)
    mean_w = (f.widths[:, None] + f.widths[None, :]) / 2
    mean_h = (f.heights[:, None] + f.heights[None, :]) / 2
    gap = np.abs(along) - mean_w
    parallel = np.abs(f.x_axes @ f.x_axes.T)  # either way round: one tile may be read upside down
    size = np.maximum(f.heights[:, None], f.heights[None, :]) / np.maximum(
        np.minimum(f.heights[:, None], f.heights[None, :]), 1e-9)
    ok = (
        (gap <= o.max_gap * mean_w)
        & (gap >= -o.max_overlap * mean_w)
        & (np.abs(across) <= o.max_offset * mean_h)
        & (parallel >= np.cos(np.deg2rad(o.max_angle)))
        & (size <= o.max_size_ratio)
        & (mean_w > 0)
    )
    np.fill_diagonal(ok, False)
    with np.errstate(invalid="ignore", divide="ignore"):
        cost = np.abs(gap) / mean_w + np.abs(across) / mean_h
    cost = np.where(ok, cost, np.inf)
    side = np.where(along >= 0, 1, -1)
    return cost, side


def link_neighbours(quads: np.ndarray, options: GeometryOptions | None = None) -> list[tuple[int, int]]:
    """Pairs of tiles that lie edge to edge in a line (each tile has at most two)."""
    o = options or GeometryOptions()
    f = tile_frames(quads)
    n = len(f.centers)
    if n < 2:
        return []
    cost, side = _link_costs(f, o)
    best: dict[tuple[int, int], int] = {}  # (tile, side) -> its chosen neighbour
    for i in range(n):
        for s in (1, -1):
            c = np.where(side[i] == s, cost[i], np.inf)
            j = int(np.argmin(c))
            if np.isfinite(c[j]):
                best[(i, s)] = j
    links = set()
    for (i, s), j in best.items():
        # mutual: j, seen from its own frame, chose i on one of its sides
        if best.get((j, 1)) == i or best.get((j, -1)) == i:
            links.add((min(i, j), max(i, j)))
    return sorted(links)


def group_lines(quads: np.ndarray, options: GeometryOptions | None = None) -> list[list[int]]:
    """Tile indices grouped into sets, each in reading order, sets in reading order.

    Within a set, tiles are ordered by their position along the set's own x
    axis (the tiles' left-to-right, taken by majority), so a set lying upside
    down for the camera still reads K5 K6 K7.  Sets are listed top to bottom,
    then left to right, by their first tile; a lone tile is a set of one.
    """
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    n = len(q)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in link_neighbours(q, options):
        parent[root(i)] = root(j)
    members: dict[int, list[int]] = {}
    for i in range(n):
        members.setdefault(root(i), []).append(i)

    f = tile_frames(q)
    sets = []
    for tiles in members.values():
        axis = _majority_axis(f.x_axes[tiles])
        tiles.sort(key=lambda t: float(f.centers[t] @ axis))
        sets.append(tiles)
    return _reading_order(sets, f)


def _majority_axis(axes: np.ndarray) -> np.ndarray:
    """The x axis most tiles of a line agree on (one flipped tile does not turn the line)."""
    ref = axes[0]
    signs = np.where(axes @ ref >= 0, 1.0, -1.0)
    if signs.sum() < 0:
        signs = -signs
    total = (axes * signs[:, None]).sum(axis=0)
    norm = np.linalg.norm(total)
    return total / norm if norm > 0 else np.array([1.0, 0.0])


def _reading_order(sets: list[list[int]], f: TileFrame) -> list[list[int]]:
    """Sets in rows top to bottom (a row: centres within half a tile height), each row left to right."""
    if not sets:
        return sets
    centres = np.array([f.centers[s].mean(axis=0) for s in sets])
    half = max(float(np.median(f.heights)), 1.0) / 2
    rows: list[list[int]] = []
    for k in np.argsort(centres[:, 1], kind="stable"):
        if rows and centres[k, 1] - centres[rows[-1][0], 1] <= half:
            rows[-1].append(int(k))
        else:
            rows.append([int(k)])
    return [sets[k] for row in rows for k in sorted(row, key=lambda k: centres[k, 0])]


__all__ = ["GeometryOptions", "TileFrame", "tile_frames", "link_neighbours", "group_lines"]
