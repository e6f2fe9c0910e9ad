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
from typing import Callable

import numpy as np

TABLE, RACK = "table", "rack"  # a set laid on the table; a row of tiles standing on a rack


class Components:
    """Union-find over ``n`` items: which are joined, and the groups they form (in first-item order)."""

    def __init__(self, n: int):
        self.parent = list(range(n))

    def root(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def join(self, i: int, j: int) -> None:
        self.parent[self.root(i)] = self.root(j)

    def groups(self) -> list[list[int]]:
        members: dict[int, list[int]] = {}
        for i in range(len(self.parent)):
            members.setdefault(self.root(i), []).append(i)
        return list(members.values())


@dataclass(frozen=True)
class Group:
    """Tiles that belong together, in reading order: a table set or a rack row."""

    kind: str
    tiles: list[int]


SQUARE = 1.12  # a quad wider than this times its height lies a quarter turn from what its corners say


@dataclass(frozen=True)
class GeometryOptions:
    """How loose a line of tiles may be and still be one set (ratios of tile size)."""

    max_gap: float = 0.6  # empty space between neighbours, in tile widths
    max_overlap: float = 0.4  # neighbours' outlines may overlap this much (loose outlines, fanned tiles)
    max_offset: float = 0.5  # sideways misalignment of centres, in tile heights (staggered tiles)
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

    @property
    def extents(self) -> np.ndarray:
        """(N,) each tile's longer side: its size whichever way its outline was read (a face half
        hidden by a rack's ledge keeps its width)."""
        return np.maximum(self.heights, self.widths)

    def distances(self) -> np.ndarray:
        """(N, N) centre-to-centre distances between every two tiles."""
        return np.linalg.norm(self.centers[:, None] - self.centers[None], axis=2)


def tile_frames(quads: np.ndarray, as_read: bool = False) -> TileFrame:
    """Each tile's own axes and size from its quad (TL, TR, BR, BL of the upright face).

    A tile face is taller than wide, so where the quad's shape says so the x
    axis is taken along its short side whatever corner the quad starts at: a
    tile whose orientation was misread by a quarter turn still lines up with
    its set.  The x axis keeps the quad's own sense where the two agree.
    ``as_read``: keep every quad's own top edge (tiles standing on a rack show
    only the top of their faces above its ledge, wider than tall, upright).
    """
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    across = (q[:, 1] - q[:, 0]) + (q[:, 2] - q[:, 3])  # top edge + bottom edge
    up = (q[:, 0] - q[:, 3]) + (q[:, 1] - q[:, 2])  # left edge + right edge, pointing up
    widths = np.linalg.norm(across, axis=1) / 2
    heights = np.linalg.norm(up, axis=1) / 2
    turned = (widths > SQUARE * heights) & (not as_read)  # read a quarter turn off: the "top" edge is a long side
    across, up = np.where(turned[:, None], -up, across), np.where(turned[:, None], across, up)
    widths, heights = np.where(turned, heights, widths), np.where(turned, widths, heights)
    with np.errstate(invalid="ignore", divide="ignore"):
        x_axes = np.nan_to_num(across / (2 * widths[:, None]))
        up_axes = np.nan_to_num(up / (2 * heights[:, None]))
    return TileFrame(q.mean(axis=1), x_axes, up_axes, widths, heights)


FACE_ASPECT = 0.75  # a tile face's width over its height
FORESHORTENED = 1.1  # a photo whose faces need stretching this much one way is flattened first
STEEPEST = 3.0  # ...and no more than this: beyond, the faces' outlines say nothing trustworthy
SQUASHED = 1.3  # faces squashed this much (a camera about 45 degrees above the table) are worth a look from above
NARROWEST, WIDEST = 0.62, 0.85  # face aspects of the editions known: a squash within them may be the box's own shape
SQUASH_TILES = 3  # fewer tiles than this say nothing of how the table is seen


def flattening(quads: np.ndarray, aspect: float = FACE_ASPECT) -> np.ndarray | None:
    """The 2x2 linear map (area kept) that shows the table as seen from straight above, or None.

    A photo taken from a seat at the table foreshortens every face the same
    way: at 40 degrees a face 0.75 as wide as tall comes out wider than tall,
    and a set's tiles no longer lie one face width apart along their x axes.
    Each face is a rectangle ``aspect`` wide for one high, so the one linear
    map that makes the faces' edges square and of that aspect again (fitted
    to all of them, least squares, the worst-fitting outlines left out once)
    is the one that undoes the foreshortening.  None for photos from above
    (less than FORESHORTENED) and those with too few tiles to tell.
    """
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    if len(q) < 2:
        return None
    ex = ((q[:, 1] - q[:, 0]) + (q[:, 2] - q[:, 3])) / 2  # along the top edge
    ey = ((q[:, 0] - q[:, 3]) + (q[:, 1] - q[:, 2])) / 2  # up the side
    size = np.sqrt(np.linalg.norm(ex, axis=1) * np.linalg.norm(ey, axis=1))[:, None]
    if not np.all(size > 0):
        return None
    ex, ey = ex / size, ey / size
    r2 = aspect ** 2
    # with M = T'T for the map T sought: ex'M ey = 0 (square corners), ex'M ex = r2 ey'M ey (the face's shape)
    square = np.stack([ex[:, 0] * ey[:, 0], ex[:, 0] * ey[:, 1] + ex[:, 1] * ey[:, 0], ex[:, 1] * ey[:, 1]], 1)
    shape = np.stack([ex[:, 0] ** 2 - r2 * ey[:, 0] ** 2, 2 * (ex[:, 0] * ex[:, 1] - r2 * ey[:, 0] * ey[:, 1]),
                       ex[:, 1] ** 2 - r2 * ey[:, 1] ** 2], 1)
    keep = np.ones(len(q), bool)
    for _ in range(2):
        m = np.linalg.svd(np.concatenate([square[keep], shape[keep]]))[2][-1]
        misfit = np.abs(square @ m) + np.abs(shape @ m)
        keep = misfit <= 2 * np.median(misfit)
    stretch, axes = np.linalg.eigh(np.array([[m[0], m[1]], [m[1], m[2]]]) * np.sign(m[0] + m[2]))
    if stretch.min() <= 0 or not FORESHORTENED <= np.sqrt(stretch.max() / stretch.min()) <= STEEPEST:
        return None
    return axes @ np.diag(np.sqrt(stretch / np.sqrt(stretch.prod()))) @ axes.T


def squashed_table(quads: np.ndarray) -> np.ndarray | None:
    """The flattening of a photo whose faces are squashed more than any edition's shape explains
    (at least SQUASHED, with a face NARROWEST..WIDEST wide for one high, whichever needs the lesser
    stretch), else None.

    :func:`flattening` assumes FACE_ASPECT; a box of narrower tiles laid all
    one way looks to it like a table seen slanted.  Only a squash no box
    explains is worth looking at the photo again for.
    """
    if len(quads) < SQUASH_TILES:
        return None
    t = _any_box_flattening(quads)
    return t if t is not None and squash(t) >= SQUASHED else None


def _any_box_flattening(quads: np.ndarray) -> np.ndarray | None:
    """The lesser of the flattenings for faces NARROWEST and WIDEST wide for one high (what no
    edition's shape explains), or None when either finds the faces already seen from above."""
    maps = [flattening(quads, aspect) for aspect in (NARROWEST, WIDEST)]
    return None if any(t is None for t in maps) else min(maps, key=squash)


TILTED = 1.15  # the faces lying nearest the camera come out this much larger (in side) than the farthest: a perspective worth undoing
STEEPEST_TILT = 2.5  # the view from above never enlarges one corner of the photo more than this against another
TILT_TILES = 8  # fewer faces than this cannot tell a perspective from the faces' own scatter in size


def tilting(quads: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """The 3x3 projective map ``[[1, 0, 0], [0, 1, 0], [p, q, 1]]`` (in pixels of a photo of
    ``shape``) under which the faces are all one size, or None when their sizes hardly change
    across the photo.

    Under perspective the table's far side comes out smaller than its near side.
    A projective map with bottom row (p, q, 1) scales the area about a point by
    ``1 / w**3``, ``w = 1 + p x + q y``; so the map making every face equally
    large has ``w`` proportional to the cube root of each face's area, a plane
    fitted to the faces by least squares (the worst-fitting left out twice, as
    faces read at a rack or a clutter outline).  The map is weakened where it
    would enlarge one corner of the photo more than STEEPEST_TILT times
    another.  Followed by :func:`flattening`, it shows the table from above.
    """
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    if len(q) < TILT_TILES:
        return None
    h, w = shape[:2]
    centre, half = np.array([w / 2, h / 2]), max(w, h) / 2
    x = (q.mean(axis=1) - centre) / half
    a = 0.5 * np.abs(np.einsum("ij,ij->i", q[:, :, 0], np.roll(q[:, :, 1], -1, axis=1))
                     - np.einsum("ij,ij->i", q[:, :, 1], np.roll(q[:, :, 0], -1, axis=1)))
    size = np.cbrt(a)
    design = np.column_stack([np.ones(len(q)), x])
    keep = size > 0
    for _ in range(3):
        if keep.sum() < TILT_TILES:
            return None
        fit = np.linalg.lstsq(design[keep], size[keep], rcond=None)[0]
        misfit = np.abs(design @ fit - size)
        keep = misfit <= 2.5 * np.median(misfit[keep]) + 1e-9
    if fit[0] <= 0:
        return None
    slope = fit[1:] / fit[0]
    across = x[keep] @ slope
    if 1 + across.min() <= 0 or (1 + across.max()) / (1 + across.min()) < TILTED:
        return None
    rim = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / (2 * half) @ slope
    lo, hi = rim.min(), rim.max()
    if lo <= -1 or (1 + hi) / (1 + lo) > STEEPEST_TILT:  # weaken it until the corners' ratio is STEEPEST_TILT
        slope = slope * (STEEPEST_TILT - 1) / (hi - STEEPEST_TILT * lo)
    to_unit = np.array([[1 / half, 0, -centre[0] / half], [0, 1 / half, -centre[1] / half], [0, 0, 1]])
    tilt = np.eye(3)
    tilt[2, :2] = slope
    return np.linalg.inv(to_unit) @ tilt @ to_unit


def scaled_about_centres(quads: np.ndarray, factor: float) -> np.ndarray:
    """(N, 4, 2) quads scaled by ``factor`` about their own centres (grown above 1, shrunk below)."""
    c = quads.mean(axis=1, keepdims=True)
    return c + (quads - c) * factor


def projected(quads: np.ndarray, view: np.ndarray) -> np.ndarray:
    """The quads' corners under the 3x3 projective map ``view``."""
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 2)
    p = np.column_stack([q, np.ones(len(q))]) @ view.T
    return (p[:, :2] / p[:, 2:]).reshape(np.shape(quads))


def table_view(lying: np.ndarray, shape: tuple[int, ...], stretch: np.ndarray) -> np.ndarray:
    """The 3x3 map that shows a squashed table as seen from straight above, given the faces lying
    on it (not those standing on a rack) and their :func:`squashed_table` ``stretch``.

    One linear stretch undoes a camera's slant only on average: it over-
    stretches the near tiles and under-stretches the far ones.  Where the
    faces' sizes show a perspective (:func:`tilting`), it is undone first and
    the stretch is fitted again to the faces as it leaves them.
    """
    view = np.eye(3)
    tilt = tilting(lying, shape)
    if tilt is None:
        view[:2, :2] = stretch
        return view
    level = _any_box_flattening(projected(lying, tilt))
    if level is not None:  # else the faces come out of the tilt as seen from above
        view[:2, :2] = level
    return view @ tilt


def squash(t: np.ndarray) -> float:
    """How much a flattening stretches one way against the other."""
    s = np.linalg.svd(t, compute_uv=False)
    return float(s.max() / s.min())


def from_above(quads: np.ndarray, lying: np.ndarray | None = None) -> np.ndarray:
    """The quads as the table would show them seen from straight above (up to scale and turn), about
    their centre (:func:`flattening`); photos from above are left as they are.

    ``lying`` (indices; default all) are the faces the map is fitted to: a
    face standing on a rack shows only its top above the ledge, wider than
    tall whatever the camera, and would pass for a table seen slanted.
    """
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    t = flattening(q if lying is None else q[np.asarray(lying, dtype=np.int64)])
    if t is None:
        return q
    centre = q.reshape(-1, 2).mean(axis=0)
    return (q - centre) @ t.T + centre


def frame_offsets(f: TileFrame, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(along, across), each ``[i, j]``: how far ``points[i]`` lies from tile ``j``'s centre along
    that tile's x axis, in its widths, and across it, in its heights (both unsigned)."""
    d = np.asarray(points, np.float64)[:, None, :] - f.centers[None, :, :]
    along = np.abs(np.einsum("ijk,jk->ij", d, f.x_axes)) / f.widths[None]
    across = np.abs(np.einsum("ijk,jk->ij", d, f.up_axes)) / f.heights[None]
    return along, across


PORTRAIT = 1.18  # a quad at least this much taller than wide shows which way its tile lies
PAIR_GAP = 0.3  # tile widths of table between two tiles that lie alone: they are loose tiles, not a pair
SECOND = 20.0  # degrees: how much worse than max_angle an outline square to the photo may agree
CROWDED = 0.75  # centres closer than this share of the outlines' mean extent between them: outlines overlap


def _face_sizes(f: TileFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(size, width, height) of each face from its area (a badly outlined tile still has about the
    right area), split into width and height by the photo's own aspect."""
    aspect = np.clip(np.median(f.widths / np.maximum(f.heights, 1e-9)), 0.55, 0.95)
    size = np.sqrt(np.maximum(f.widths * f.heights, 1e-9))
    return size, size * np.sqrt(aspect), size / np.sqrt(aspect)


def _pair_geometry(q: np.ndarray, f: TileFrame, o: GeometryOptions):
    """(along, across, ok, agree) for every pair i, j: the centre distance along the line in tile
    widths, the sideways offset in tile heights, whether the pair may be neighbours, how well the
    line agrees with the tiles' own x axes (1 = exactly).

    Sizes come from each face's area (a badly outlined tile still has about
    the right area), split into width and height by the photo's own aspect.
    Only a clearly taller-than-wide quad has a say in the direction: a tile
    outlined as a square is neutral, so one poor outline does not break its set.
    Two outlines that overlap deeply along the line between their centres
    cannot both be right (touching tiles whose outlines came out too long):
    their centres are trusted and their outlines have no say.
    """
    size, w, h = _face_sizes(f)
    d = f.centers[None, :, :] - f.centers[:, None, :]
    dist = np.linalg.norm(d, axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        u = np.nan_to_num(d / dist[..., None])
    agree_i = np.abs(np.einsum("ijk,ik->ij", u, f.x_axes))
    agree_j = np.abs(np.einsum("ijk,jk->ij", u, f.x_axes))
    informative = f.heights >= PORTRAIT * f.widths
    inf_i, inf_j = informative[:, None], informative[None, :]
    limit = np.cos(np.deg2rad(o.max_angle))
    # an informative tile must agree; at least one tile must say so unless neither can
    # an outline square to the photo may be off by up to SECOND degrees more when the other tile
    # agrees: small tiles are often outlined square to the photo whatever their turn
    second = np.cos(np.deg2rad(o.max_angle + SECOND))
    snapped = np.abs(f.x_axes).max(axis=1) >= np.cos(np.deg2rad(2.0))
    lax_i, lax_j = np.where(snapped[:, None], second, limit), np.where(snapped[None, :], second, limit)
    agrees = ((~inf_i | (agree_i >= lax_i)) & (~inf_j | (agree_j >= lax_j))
              & ((~inf_i | (agree_i >= limit)) | (~inf_j | (agree_j >= limit)) | ~(inf_i | inf_j)))
    agree = np.where(inf_i & inf_j, np.maximum(agree_i, agree_j),
                     np.where(inf_i, agree_i, np.where(inf_j, agree_j, np.maximum(agree_i, agree_j))))
    proj = np.einsum("ick,ijk->ijc", q, u)  # corners of i on the direction from i to j
    extent = proj.max(axis=2) - proj.min(axis=2)
    parallel = np.abs(f.x_axes @ f.x_axes.T) >= limit  # badly outlined touching tiles come out alike
    # ... along one of their axes: an outline a quarter turn off, not a heap of tiles at odd angles
    along_ok, across_ok = np.cos(np.deg2rad(49)), np.sin(np.deg2rad(20))  # sloppy along; a quarter turn off
    square_on = (((agree_i >= along_ok) | (agree_i <= across_ok))
                 & ((agree_j >= along_ok) | (agree_j <= across_ok)))
    crowded = ((dist < CROWDED * (extent + extent.T) / 2) & parallel & square_on
               & (dist < 1.25 * (size[:, None] + size[None, :]) / 2))
    agree = np.where(crowded & ~agrees, 1.0, agree)
    agrees |= crowded
    mean_w = (w[:, None] + w[None, :]) / 2
    mean_h = (h[:, None] + h[None, :]) / 2
    along = dist * agree / mean_w
    across = dist * np.sqrt(np.clip(1 - agree ** 2, 0, 1)) / mean_h
    ratio = np.maximum(size[:, None], size[None, :]) / np.maximum(np.minimum(size[:, None], size[None, :]), 1e-9)
    ok = agrees & (ratio <= o.max_size_ratio) & (mean_w > 0)
    np.fill_diagonal(ok, False)
    return along, across, ok, agree, u


@dataclass(frozen=True)
class PhotoPairs:
    """Every pair of a photo's tiles measured once (``_pair_geometry``), and the photo's pitch.

    Linking a line looks at each pair many times, and :class:`EndLinks` at
    every join pass: both measure the photo once and look the pairs up here.
    """

    frames: TileFrame
    along: np.ndarray
    across: np.ndarray
    ok: np.ndarray
    agree: np.ndarray
    direction: np.ndarray
    pitch: float


def photo_pairs(quads: np.ndarray, options: GeometryOptions | None = None) -> PhotoPairs:
    """The pair geometry of these quads: every pair's offsets in tile sizes, and the photo's pitch."""
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    o = options or GeometryOptions()
    f = tile_frames(q)
    along, across, ok, agree, u = _pair_geometry(q, f, o)
    return PhotoPairs(f, along, across, ok, agree, u, _photo_pitch(along, across, ok, agree))


def photo_pitch(quads: np.ndarray, options: GeometryOptions | None = None) -> float:
    """The usual centre-to-centre step between tiles of one set in this photo, in tile widths."""
    return photo_pairs(quads, options).pitch


def _photo_pitch(along: np.ndarray, across: np.ndarray, ok: np.ndarray, agree: np.ndarray) -> float:
    """The usual centre-to-centre step between tiles of one set in this photo, in tile widths.

    Taken from each tile's closest well-aligned neighbour; outlines drawn a
    little large or small, or players who leave small gaps, shift it.
    """
    good = ok & (across < 0.2) & (agree > 0.95) & (along > 0.8) & (along < 1.5)
    best = np.where(good, along, np.inf).min(axis=1)
    best = best[np.isfinite(best)]
    return float(np.clip(np.median(best), 0.95, 1.2)) if len(best) >= 3 else 1.05


def link_neighbours(quads: np.ndarray, options: GeometryOptions | None = None) -> list[tuple[int, int]]:
    """Pairs of tiles that lie side by side in a line (each tile has at most two, lines never bend sharply).

    Candidate pairs (about one tile width apart along the tiles' x axis,
    little sideways offset) are taken best first; a link stands when both
    tiles have a free side and it continues the line through each of them
    nearly straight, so rows never branch and a crowded table never merges
    into one blob.
    """
    o = options or GeometryOptions()
    if len(np.asarray(quads).reshape(-1, 4, 2)) < 2:
        return []
    p = photo_pairs(quads, o)
    along, across, agree, u, pitch = p.along, p.across, p.agree, p.direction, p.pitch
    n = len(along)
    ok = p.ok & (along >= 1 - o.max_overlap) & (along <= pitch + o.max_gap) & (across <= o.max_offset)
    cost = np.abs(along - pitch) + across + 2 * (1 - agree)
    ii, jj = np.nonzero(np.triu(ok, 1))
    # a tile lying between two others on their line is their neighbour, not a gap to link across
    # (a set fanned out short of room, each tile half over the last, has its pitch at every other tile)
    clear = [not _tile_between(p, o, int(i), int(j)) for i, j in zip(ii, jj)]
    ii, jj = ii[clear], jj[clear]
    order = np.argsort(cost[ii, jj], kind="stable")
    straight = np.cos(np.deg2rad(60))  # a staggered tile bends the line through its centres a little
    ends: dict[int, list[np.ndarray]] = {}  # tile -> directions of its links, away from it
    lines = Components(n)
    links = []
    for k in order:
        i, j = int(ii[k]), int(jj[k])
        di, dj = u[i, j], -u[i, j]
        if any(len(ends.get(t, [])) >= 2 for t in (i, j)) or lines.root(i) == lines.root(j):
            continue
        if any(float(e @ di) > -straight for e in ends.get(i, [])) or any(float(e @ dj) > -straight for e in ends.get(j, [])):
            continue  # would bend the line at i or j
        ends.setdefault(i, []).append(di)
        ends.setdefault(j, []).append(dj)
        lines.join(i, j)
        links.append((i, j))
    return sorted(links)


def _tile_between(p: PhotoPairs, o: GeometryOptions, i: int, j: int) -> bool:
    """Some third tile lies on the line from tile i to tile j, between them: in line with both
    (within ``max_offset``) and nearer each of them than they are to each other."""
    nearer = (p.along[i] < p.along[i, j]) & (p.along[j] < p.along[i, j])
    return bool(np.any(nearer & (p.across[i] <= o.max_offset) & (p.across[j] <= o.max_offset)
                       & (np.arange(len(nearer)) != i) & (np.arange(len(nearer)) != j)))


class EndLinks:
    """Called with a photo's lines: pairs (end tile of a line of two or more, end tile of another
    line) that carry the first line straight on, best first: candidates for one set laid carelessly.

    The line's own direction decides, not the end tile's: a tile set down
    askew at the end of its set, or one outlined a quarter or an eighth of a
    turn off, still lies where the next tile of the set would.  Gaps may be
    ``extra_gap`` tile widths wider than within a set; another line of two or
    more must run the same way.  Whether the tiles belong together is for the
    rules to say (the reader joins only what is valid together).  The lines
    may change between calls (joined one at a time); the photo's pair geometry
    is worked out once, on the first call that needs it.
    """

    def __init__(self, quads: np.ndarray, options: GeometryOptions | None = None):
        self.options = options or GeometryOptions()
        self.quads = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
        self._geometry = None

    def _measure(self):
        if self._geometry is None:
            p = photo_pairs(self.quads, self.options)
            self._geometry = p.frames, p.pitch, _face_sizes(p.frames)
        return self._geometry

    def __call__(self, lines: list[list[int]], extra_gap: float = 0.0) -> list[tuple[int, int]]:
        o = self.options
        lines = [list(line) for line in lines if line]
        if len(lines) < 2 or not any(len(line) >= 2 for line in lines):
            return []
        f, pitch, (size, w, h) = self._measure()
        limit = np.cos(np.deg2rad(o.max_angle))

        def outward(line: list[int]) -> dict[int, np.ndarray]:
            """Each end of a line of two or more: the unit direction pointing out of the line past it."""
            centres = f.centers[line]
            axis = np.linalg.svd(centres - centres.mean(axis=0), full_matrices=False)[2][0]
            t = centres @ axis
            return {line[int(np.argmin(t))]: -axis, line[int(np.argmax(t))]: axis}

        ends = [outward(line) if len(line) >= 2 else {} for line in lines]
        candidates = []
        for a, line in enumerate(lines):
            for e, out in ends[a].items():
                for b, other in enumerate(lines):
                    if b == a:
                        continue
                    for t in (other if len(other) == 1 else list(ends[b])):
                        if b < a and len(other) >= 2:
                            continue  # two lines of two or more: each pair once, from the first
                        d = f.centers[t] - f.centers[e]
                        mw, mh = (w[e] + w[t]) / 2, (h[e] + h[t]) / 2
                        step, side = float(d @ out) / mw, abs(float(d[0] * out[1] - d[1] * out[0])) / mh
                        if not (1 - o.max_overlap <= step <= pitch + o.max_gap + extra_gap and side <= o.max_offset):
                            continue
                        if max(size[e], size[t]) > o.max_size_ratio * min(size[e], size[t]):
                            continue
                        if len(other) >= 2 and (abs(float(ends[b][t] @ out)) < limit or float(ends[b][t] @ out) > 0):
                            continue  # the other line must run the same way and meet this one end to end
                        candidates.append((abs(step - pitch) + side, e, t))
        candidates.sort()
        return [(e, t) for _, e, t in candidates]


def group_lines(quads: np.ndarray, options: GeometryOptions | None = None) -> list[list[int]]:
    """Tile indices grouped into sets, each in reading order, sets in reading order.

    Within a set, tiles are ordered by their position along the set's own x
    axis (the tiles' left-to-right, taken by majority), so a set lying upside
    down for the camera still reads K5 K6 K7.  Sets are listed top to bottom,
    then left to right, by their first tile; a lone tile is a set of one.
    """
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    lines = Components(len(q))
    for i, j in link_neighbours(q, options):
        lines.join(i, j)

    f = tile_frames(q)
    claimed = (q[:, 1] - q[:, 0]) + (q[:, 2] - q[:, 3])  # each quad's own left-to-right, as the model read it
    sets = []
    for tiles in lines.groups():
        if len(tiles) == 2 and _apart(f, *tiles):
            sets += [[tiles[0]], [tiles[1]]]
            continue
        axis = _line_axis(f.centers[tiles], claimed[tiles])
        tiles.sort(key=lambda t: float(f.centers[t] @ axis))
        sets.append(tiles)
    return _reading_order(sets, f)


def _apart(f: TileFrame, i: int, j: int) -> bool:
    """Two tiles alone, with a clear gap between them: two loose tiles, not a set begun.

    Inside a longer line a gap is bridged by the tiles around it; a lone pair
    with table showing between them is how loose tiles lie on a scattered table.
    """
    size = np.sqrt(f.widths[[i, j]] * f.heights[[i, j]])
    d = float(np.linalg.norm(f.centers[j] - f.centers[i]))
    width = float(size.mean()) * 0.866  # the width of a face of that area (tiles are about 3:4)
    return d - width > PAIR_GAP * width


def order_line(quads: np.ndarray, tiles: list[int]) -> list[int]:
    """``tiles`` (indices into ``quads``) in the reading order of the line they form."""
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)[tiles]
    claimed = (q[:, 1] - q[:, 0]) + (q[:, 2] - q[:, 3])
    centres = q.mean(axis=1)
    axis = _line_axis(centres, claimed)
    return [tiles[k] for k in np.argsort(centres @ axis, kind="stable")]


def _line_axis(centres: np.ndarray, claimed: np.ndarray) -> np.ndarray:
    """The direction a line of tiles reads in: along its centres, the way most tiles' numerals read."""
    if len(centres) < 2:
        return _majority_axis(claimed)
    spread = centres - centres.mean(axis=0)
    axis = np.linalg.svd(spread, full_matrices=False)[2][0]
    return axis if float(_majority_axis(claimed) @ axis) >= 0 else -axis


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


def find_groups(quads: np.ndarray, options: GeometryOptions | None = None,
                image: np.ndarray | None = None,
                in_sets: Callable[[list[int]], int] | None = None) -> tuple[list[Group], np.ndarray]:
    """(Rack rows (left to right), then table sets in reading order; every quad seen from above).

    Racks are told from the table by the photo and, with ``in_sets``, by rows
    of tiles that are in no set (``vision.racks.rack_rows``); without the
    photo every line is a table set.  Table lines are found on the quads seen
    from above (:func:`from_above`, fitted to the faces not on a rack), which
    are returned for what is measured on the table after.
    """
    q = np.asarray(quads, dtype=np.float64).reshape(-1, 4, 2)
    racks: list[list[int]] = []
    if image is not None and len(q):
        from vision.racks import rack_rows  # racks look at pixels; geometry alone does not

        racks = rack_rows(q, image, in_sets)
    on_rack = {t for row in racks for t in row}
    rest = np.array([i for i in range(len(q)) if i not in on_rack], dtype=np.int64)
    flat = from_above(q, rest)
    lines = [[int(rest[k]) for k in line] for line in group_lines(flat[rest], options)] if len(rest) else []
    return [Group(RACK, row) for row in racks] + [Group(TABLE, line) for line in lines], flat


__all__ = ["TABLE", "RACK", "Components", "Group", "find_groups", "flattening", "from_above", "squashed_table", "squash", "tilting", "projected", "scaled_about_centres", "table_view", "GeometryOptions", "TileFrame", "tile_frames", "frame_offsets", "link_neighbours", "EndLinks", "group_lines", "order_line", "photo_pairs", "photo_pitch", "PhotoPairs"]
