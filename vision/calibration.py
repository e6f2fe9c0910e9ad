"""Teaching the reader a box of tiles: find known tiles in photos, then fit a tile profile.

Three ways to say which tiles a photo shows:

- the layout photo: one of each tile in the fixed order :data:`LAYOUT`
  (black, blue, orange and red 1-13 in four rows, the two jokers in a fifth);
- a typed photo: any tiles, typed in reading order (rows top to bottom, left
  to right, ``|`` between rows or sets);
- a YOLO-format folder of labelled photos.

Found tiles are matched to the typed ones in reading order (a sequence
alignment, so a missed or extra tile costs one tile, not the whole row).
Rows or sets typed in another order than they lie (a rack's bottom row
first, a table's sets as the player sees them) are matched one to one to the
photo's rows, the reader's own sets and rack rows among them, by what the
classifier reads there, and a photo whose placed tiles mostly show other
colours than typed teaches nothing: a profile learned from a wrong list would
misread the whole box.  A photo with more than a quarter (:data:`MISMATCH`) of
its typed tiles not found, or of its placed ones showing another colour than
typed, is taken for another photo than the one typed (:func:`mismatch`):
``calibrate`` and the page then write nothing.  Then crops of every placed
tile, jittered and turned, and crops of what is *not* a tile (between two
tiles, beside them) train the profile's face layer
(:func:`vision.profile.fit_face_layer`).  A box the shipped layer already
reads learns only the faces it misreads: the rest keep the shipped reading,
so teaching cannot make such a box read worse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

import cv2
import numpy as np

from rules.highs import assignment
from rules.tiles import JOKER_INDEX, Color, NotationError, Tile, parse_table
from vision.crops import order_upright, rotate_half_turn, turn_upright, warp_crop
from vision.geometry import from_above, group_lines
from vision.profile import TileProfile, balanced_weights, fit_face_layer, softmax

LAYOUT: tuple[tuple[int, ...], ...] = tuple(tuple(range(c * 13, c * 13 + 13)) for c in range(4)) + (
    (JOKER_INDEX, JOKER_INDEX),)
LAYOUT_TEXT = " | ".join(" ".join(Tile.from_index(i).code for i in row) for row in LAYOUT)

AUGMENT = 16       # jittered copies of each placed tile (each also read turned half a turn)
NEW_SHARE = 0.5    # share of a face's weight its crops from the new box take (the rest: the classifier's own)
SKIP = -4.0        # alignment score of leaving a tile unplaced (a typed one not found, or a found one not typed)
MOST_RUN_ON = 4    # tiles typed in one run are matched to the photo's rows in any order up to this many rows
KNOWN_BOX = 0.8    # a box whose placed faces the shipped layer reads this share of right is one it knows
ASKEW = 20.0       # degrees: an outline turned more than this from the rest of its row is not learned from
OFF_COLOUR = 0.2   # a placed tile whose typed colour the classifier gives less than this shows another colour
MISMATCH = 0.25    # more than this share of typed tiles not found, or of placed ones in another colour: wrong photo


class CalibrationError(ValueError):
    """Input that cannot teach anything: unreadable tile text, no tiles found at all."""


@dataclass
class Placement:
    """The tiles of one photo whose faces are known, and what could not be placed."""

    source: str
    image: np.ndarray
    indices: list[int] = field(default_factory=list)       # tile index per placed tile
    quads: list[np.ndarray] = field(default_factory=list)  # (4, 2) face corners, reading order
    problems: list[str] = field(default_factory=list)
    others: list[np.ndarray] = field(default_factory=list)  # found tiles not typed: never learned as rejects
    typed: int = 0        # tiles typed for the photo (0: labelled, nothing typed)
    missing: int = 0      # typed tiles no found tile was matched to
    compared: int = 0     # placed tiles whose colour was compared with the typed one
    off_colour: int = 0   # of those, the ones showing another colour than typed


def mismatch(place: Placement) -> str | None:
    """Why ``place``'s photo does not show the tiles typed for it, or None.

    More than :data:`MISMATCH` of the typed tiles not found, or of the placed
    ones showing another colour, is another photo than the one typed (a
    table photo given as the layout): the tiles that happen to fit would teach
    a profile that reads the box worse.  Colours, not faces, are compared: the
    reader tells colours even on a box whose numerals it misreads, the very
    box calibration is for.
    """
    if place.missing <= MISMATCH * place.typed and place.off_colour <= MISMATCH * place.compared:
        return None
    return (f"{place.source}: {place.missing} of the {place.typed} tiles expected were not found and "
            f"{place.off_colour} of the {place.compared} placed show another colour than expected; more than a "
            "quarter either way means the photo does not show those tiles: check the photo and the tiles typed "
            "for it (a layout photo shows one of each tile in the layout order)")


def parse_typed(text: str) -> list[list[int]]:
    """Tile indices per row or set from ``"R1 R2 R3 | B4 B5 B6"``; a clear error for a bad code."""
    try:
        groups = [[t.index for t in group] for group in parse_table(text)]
    except NotationError as exc:
        raise CalibrationError(f"--tiles {text!r}: {exc}") from None
    if not any(groups):
        raise CalibrationError(f"--tiles {text!r}: no tiles")
    return groups


# ---------------------------------------------------------------- placing typed tiles

def _up(quad: np.ndarray) -> np.ndarray:
    """Unit vector from the bottom edge's middle to the top edge's middle."""
    v = (quad[0] + quad[1]) / 2 - (quad[3] + quad[2]) / 2
    return v / max(1e-6, float(np.linalg.norm(v)))


def reading_rows(quads: np.ndarray, upside_down: np.ndarray, rows_wanted: int | None = None
                 ) -> tuple[list[list[int]], np.ndarray]:
    """Rows of found tiles in reading order, and the quads turned the way most tiles face.

    Tiles of one photo face one way; the direction most of them vote for
    (the classifier's orientation output) decides each tile's top, and rows
    are cut where the centres' heights along that direction jump by more
    than half a tile. A rack seen from the side slants its rows against the
    tiles' up direction; with ``rows_wanted`` (the rows typed), directions
    up to 20 degrees off are tried, nearest first, for one that cuts that
    many rows.
    """
    quads = turn_upright(quads, upside_down)
    ups = np.array([_up(q) for q in quads])
    main = ups.sum(axis=0)
    main = main / max(1e-6, float(np.linalg.norm(main)))
    quads = np.array([q if float(u @ main) >= 0 else rotate_half_turn(q) for q, u in zip(quads, ups)], np.float32)
    height = float(np.median(np.linalg.norm(quads[:, 0] - quads[:, 3], axis=1)))
    centres = quads.mean(axis=1)
    first = None
    for degrees in (0, 2, -2, 4, -4, 6, -6, 8, -8, 10, -10, 12, -12, 15, -15, 20, -20):
        a = np.deg2rad(degrees)
        down = -np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) @ main
        rows = _cut_rows(centres @ np.array([down[1], -down[0]]), centres @ down, height)
        first = first or rows
        if rows_wanted is None or len(rows) == rows_wanted:
            return rows, quads
    return first, quads


def _cut_rows(x: np.ndarray, y: np.ndarray, height: float) -> list[list[int]]:
    """Tiles cut into rows where heights ``y`` jump by more than half a tile, each row by ``x``."""
    order = np.argsort(y)
    rows, current = [], [int(order[0])]
    for a, b in zip(order, order[1:]):
        if y[b] - y[a] > 0.5 * height:
            rows.append(current)
            current = []
        current.append(int(b))
    rows.append(current)
    return [sorted(r, key=lambda i: x[i]) for r in rows]


def align(scores: np.ndarray) -> list[tuple[int, int]]:
    """Best order-keeping matching of found tiles (rows of ``scores``) to typed ones (columns).

    Needleman-Wunsch: each pair scores ``scores[i, j]``, each tile left out
    on either side :data:`SKIP`. Returns the matched (found, typed) pairs.
    """
    return _alignment(scores)[0]


def _alignment(scores: np.ndarray) -> tuple[list[tuple[int, int]], float]:
    """:func:`align`'s pairs and the matching's total score."""
    n, m = scores.shape
    best = np.full((n + 1, m + 1), -np.inf)
    best[0, :] = SKIP * np.arange(m + 1)
    best[:, 0] = SKIP * np.arange(n + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            best[i, j] = max(best[i - 1, j - 1] + scores[i - 1, j - 1], best[i - 1, j] + SKIP, best[i, j - 1] + SKIP)
    pairs, i, j = [], n, m
    while i > 0 and j > 0:
        if np.isclose(best[i, j], best[i - 1, j - 1] + scores[i - 1, j - 1]):
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif np.isclose(best[i, j], best[i - 1, j] + SKIP):
            i -= 1
        else:
            j -= 1
    return pairs[::-1], float(best[n, m])


def colour_odds(probs: np.ndarray) -> np.ndarray:
    """(N, 5): how likely each found tile is black, blue, orange, red or a joker, as a tile.

    The classifier's "not a tile" share is left out: a typed tile is a tile, and a face
    it has never seen (another box's joker) may take most of its reading as no tile
    while what is left still says which colour it shows."""
    odds = np.stack([probs[:, c * 13:(c + 1) * 13].sum(axis=1) for c in range(4)] + [probs[:, JOKER_INDEX]], 1)
    return odds / np.maximum(odds.sum(axis=1, keepdims=True), 1e-9)


def colour_reading(probs: np.ndarray) -> list[str]:
    """The tile each found tile reads as within the colour it most likely shows (its code)."""
    colours = colour_odds(probs).argmax(axis=1)
    return [Tile.from_index(JOKER_INDEX if c == 4 else 13 * int(c) + int(p[13 * c:13 * c + 13].argmax())).code
            for c, p in zip(colours, probs)]


def _colour_of(indices) -> np.ndarray:
    indices = np.asarray(indices, dtype=np.int64)
    return np.where(indices == JOKER_INDEX, 4, indices // 13)


def arrange(rows: list[list[int]], groups: list[list[int]], probs: np.ndarray, either_way: bool = False
            ) -> tuple[list[tuple[list[int], list[int]]], list[int], float]:
    """(found tiles and the typed tiles to match them to, the photo's rows in the order used, fit).

    Players type a rack's rows, or a table's sets, in any order (the row
    nearest them first), and type some tiles the reader misses or leave out
    loose tiles it finds.  So the typed groups are matched one to one to the
    photo's rows by what the classifier reads there, whatever their number
    and order (:func:`rules.highs.assignment`), a row only to a group whose
    colours most of its tiles show: a row no group takes is found but not
    typed, a group no row takes was not found.  Tiles typed in
    one run, or groups that cut the photo's rows otherwise, are matched to
    the rows read one after another, in any order of up to
    :data:`MOST_RUN_ON` rows.  A matching of every group to a row of its own
    is kept as it is; otherwise the better fit wins.  Of equal fits, the order
    the photo shows (top to bottom).  With ``either_way`` (sets found on a
    table, each in the order its tiles face) a set may also be read from its
    other end.
    """
    def fits(row: list[int]) -> np.ndarray:  # per typed group: how well the row matches it, and whether
        return np.array([_fit(probs[row], group) for group in groups])  # most of its tiles show the colours

    rows, typed = list(rows), [i for g in groups for i in g]
    table = [fits(row) for row in rows] if either_way or len(groups) > 1 else []
    if either_way:
        for k in range(len(rows)):
            back = fits(rows[k][::-1])
            if back[:, 0].max() > table[k][:, 0].max():  # of equal fits, the order the tiles face
                rows[k], table[k] = rows[k][::-1], back
    if len(groups) == 1:
        return _run_on(rows, typed, probs)
    fit, alike = np.array(table).transpose(2, 1, 0)  # [typed group, photo row]
    size = np.array([len(g) for g in groups])[:, None], np.array([len(r) for r in rows])[None, :]
    apart = SKIP * (size[0] + size[1])  # both left unmatched
    in_order = -1e-6 * np.abs(np.arange(len(groups))[:, None] - np.arange(len(rows))[None, :])
    pairs = assignment(np.where(alike > 0, fit - apart + in_order, 0.0))  # never a row of other colours
    taken = {g: r for g, r in pairs}
    left = [r for r in range(len(rows)) if r not in taken.values()]
    unmatched = sum(len(g) for k, g in enumerate(groups) if k not in taken) + sum(len(rows[r]) for r in left)
    score = float(sum(fit[g, r] for g, r in pairs)) + SKIP * unmatched
    if len(pairs) < max(len(groups), len(rows)):  # not every group and row paired: maybe they cut otherwise
        run_on = _run_on(rows, typed, probs)
        if round(run_on[2], 6) > round(score, 6):
            return run_on
    jobs = [(rows[taken[g]] if g in taken else [], group) for g, group in enumerate(groups)]
    return jobs + [(rows[r], []) for r in left], [taken[g] for g in sorted(taken)], score


def _run_on(rows: list[list[int]], typed: list[int], probs: np.ndarray
            ) -> tuple[list[tuple[list[int], list[int]]], list[int], float]:
    """:func:`arrange` for all typed tiles in one run, matched to the rows read one after another."""
    def score(order):
        return _fit(probs[[i for k in order for i in rows[k]]], typed)[0]

    straight = tuple(range(len(rows)))
    orders = permutations(straight) if len(rows) <= MOST_RUN_ON else [straight]
    order = max(orders, key=lambda o: (round(score(o), 6), o == straight))
    return [([i for r in order for i in rows[r]], typed)], list(order), score(order)


def _fit(probs: np.ndarray, typed: list[int]) -> tuple[float, bool]:
    """(how well found tiles read as ``probs`` match ``typed`` in order, whether most matched ones
    show the typed colour).  A pair whose tile shows another colour than typed counts as both
    left out: a matching never gains by teaching one colour's tile as another's."""
    scores = match_scores(probs, typed)
    pairs, fit = _alignment(scores)
    shown = colour_odds(probs)
    off = [(a, b) for a, b in pairs if shown[a, _colour_of(typed[b])] < OFF_COLOUR]
    fit -= sum(scores[a, b] - 2 * SKIP for a, b in off)
    return fit, 0 < 2 * (len(pairs) - len(off)) >= len(pairs)


def match_scores(probs: np.ndarray, typed: list[int]) -> np.ndarray:
    """How well each found tile fits each typed one: mostly its colour (read well even on a box
    never seen), partly its face; never so low that a typed order is overruled by a poor reading."""
    typed = np.asarray(typed, dtype=np.int64)
    return np.log(0.1 + colour_odds(probs)[:, _colour_of(typed)]) + 0.5 * np.log(0.1 + probs[:, typed])


def place_typed(model, image: np.ndarray, groups: list[list[int]], source: str) -> Placement:
    """Match the tiles found in ``image`` to ``groups`` (typed in reading order)."""
    quads, shown = _outlines_as_read(model, image, model.find_outlines(image)[0])
    typed = [i for g in groups for i in g]
    place = Placement(source, image, typed=len(typed))
    if not len(quads):
        place.missing = len(typed)
        place.problems.append(f"{source}: no tiles found, so none of the {len(typed)} typed tiles could be placed")
        return place
    quads, probs, upside_down = model.classify_outlines(image, quads)
    rows, quads = reading_rows(quads, upside_down, len(groups))
    ways = [(rows, arrange(rows, groups, probs))]
    if len(groups) == 1:  # typed in one run: the rows may be a rack's, read one after another
        as_laid, _ = reading_rows(quads, np.zeros(len(quads)))
        ways.append((as_laid, arrange(as_laid, groups, probs)))
    # sets typed as they lie on the table, at any angle: the sets the reader finds, in its reading order
    sets = group_lines(from_above(quads))
    ways.append((sets, arrange(sets, groups, probs, either_way=True)))
    if shown:  # the sets and rack rows as `read` lists them: what a player may have copied
        ways.append((shown, arrange(shown, groups, probs, either_way=True)))
    # the best fit; of equal ones, one that takes the rows or sets in the order the photo shows them
    rows, (jobs, order, _score) = max(ways, key=lambda w: (round(w[1][2], 6), w[1][1] == sorted(w[1][1])))
    if len(quads) != len(typed):
        place.problems.append(f"{source}: typed {len(typed)} tiles but found {len(quads)} in the photo "
                              f"({len(rows)} row{'s' * (len(rows) != 1)}); matching them in reading order")
    if order != sorted(order):
        place.problems.append(f"{source}: the tiles were typed in another order of rows or sets than the photo "
                              f"shows them (top to bottom); matched as typed to its rows or sets number "
                              + ", ".join(str(r + 1) for r in order))
    colour_seen, seen_as = [], []  # per placed tile: how likely the typed colour is there, the tile read there
    crooked = []  # placed, but outlined askew of their row: not learned
    askew = np.zeros(len(quads), bool)
    for row in rows:  # judged in the row a tile lies in, whatever the tiles were typed with
        askew[row] = _askew(quads[row])
    for found, wanted in jobs:
        pairs = align(match_scores(probs[found], wanted))
        matched_found = {a for a, _ in pairs}
        matched_typed = {b for _, b in pairs}
        odds, read_as = colour_odds(probs[found]), colour_reading(probs[found])
        for a, b in pairs:
            if askew[found[a]]:
                place.others.append(quads[found[a]])
                crooked.append(Tile.from_index(int(wanted[b])).code)
                continue
            place.indices.append(int(wanted[b]))
            place.quads.append(quads[found[a]])
            colour_seen.append(float(odds[a, _colour_of(wanted[b])]))
            seen_as.append(read_as[a])
        for b, index in enumerate(wanted):
            if b not in matched_typed:
                place.missing += 1
                place.problems.append(f"{source}: could not place {Tile.from_index(index).code} "
                                      f"(typed tile {b + 1} of its row, not found in the photo)")
        extra = [k for a, k in enumerate(found) if a not in matched_found]
        place.others += [quads[k] for k in extra]
        described = [f"at ({quads[k].mean(axis=0)[0]:.0f}, {quads[k].mean(axis=0)[1]:.0f}) read as "
                     f"{Tile.from_index(int(probs[k, :JOKER_INDEX + 1].argmax())).code}" for k in extra]
        if described:
            more = f" and {len(described) - 5} more" if len(described) > 5 else ""
            place.problems.append(f"{source}: {len(extra)} tile{'s' * (len(extra) != 1)} found but not typed, "
                                  f"left out: {', '.join(described[:5])}{more}")
    if crooked:
        place.problems.append(f"{source}: {len(crooked)} placed tile{'s' * (len(crooked) != 1)} outlined askew of "
                              f"{'their' if len(crooked) > 1 else 'its'} row (a crooked tile, or two tiles outlined "
                              f"as one) not learned from: {' '.join(crooked)}")
    off = [k for k, seen in enumerate(colour_seen) if seen < OFF_COLOUR]
    place.compared, place.off_colour = len(colour_seen), len(off)
    if off and 2 * len(off) > len(colour_seen):
        place.problems.append(f"{source}: {len(off)} of the {len(colour_seen)} tiles placed show another colour "
                              f"than typed, so the typed tiles do not match this photo (rows top to bottom, each "
                              f"left to right); nothing learned from it")
        place.others += place.quads
        place.indices, place.quads = [], []
    elif off:
        place.problems.append(f"{source}: placed but read in another colour (learned as typed): " + ", ".join(
            f"{Tile.from_index(place.indices[k]).code} at ({place.quads[k].mean(axis=0)[0]:.0f}, "
            f"{place.quads[k].mean(axis=0)[1]:.0f}) read as {seen_as[k]}" for k in off[:5])
            + (f" and {len(off) - 5} more" if len(off) > 5 else ""))
    return place


def _askew(quads: np.ndarray) -> np.ndarray:
    """Which outlines of a row stand more than :data:`ASKEW` degrees off the way most of its tiles
    stand (a row of three or more): their crops show a crooked tile, or two tiles outlined as one."""
    if len(quads) < 3:
        return np.zeros(len(quads), bool)
    ups = np.array([_up(q) for q in quads])
    main = ups.sum(axis=0)
    turn = np.arctan2(ups @ np.array([-main[1], main[0]]), ups @ main)  # each tile's turn from the row's way
    return np.abs(turn - np.median(turn)) > np.deg2rad(ASKEW)


def _outlines_as_read(model, image: np.ndarray, found: np.ndarray) -> tuple[np.ndarray, list[list[int]]]:
    """(the tile outlines to place typed tiles on, the reader's table sets and rack rows as indices
    into them).

    The reader outlines tiles its own way (a closer look at small tiles, a
    table seen from above, tiles recovered beside others) and tells rack rows
    by the rack: each tile it shows replaces the outline ``found`` nearest its
    centre (within half a tile), so the profile learns the crops the reader
    will read, and one it found beyond them is added.  Outlines the reader
    does not show (a joker of a design it reads as no tile) stay to be placed."""
    from rules.options import find_variant
    from vision.reader import ReaderOptions, TableReader

    reading = TableReader(model, ReaderOptions(rules=find_variant("sabra"))).read(image)
    shown = reading.detections.quads
    quads = [np.asarray(q, np.float32) for q in found]
    if not len(shown):
        return np.array(quads, np.float32).reshape(-1, 4, 2), []
    centres = np.asarray(found).reshape(-1, 4, 2).mean(axis=1)
    reach = 0.5 * float(np.median(np.linalg.norm(shown[:, 0] - shown[:, 3], axis=1)))
    where, taken = [], set()
    for quad in shown:
        far = np.linalg.norm(centres - quad.mean(axis=0), axis=1)
        k = int(far.argmin()) if len(far) else -1
        if k < 0 or far[k] > reach or k in taken:
            k = len(quads)
            quads.append(None)
        quads[k] = np.asarray(quad, np.float32)
        taken.add(k)
        where.append(k)
    rows = [[where[t] for t in group.indices] for group in reading.sets]
    return np.array(quads, np.float32), [row for row in rows if row]


def place_labelled(items, source: str) -> list[Placement]:
    """Placements from a YOLO folder's labelled images (quads and tiles given).

    Boxes and polygons say where a tile lies, not which way up: those outlines are turned
    upright (long side up, as the classifier was trained on them); a renderer's outlines
    come in reading order and are kept as they are."""
    out = []
    for item in items:
        place = Placement(f"{source}/{item.image_path.name}", item.load())
        for quad, index in zip(item.quads, item.class_ids):
            if 0 <= int(index) <= JOKER_INDEX:
                place.indices.append(int(index))
                place.quads.append(np.asarray(quad if item.ordered else order_upright(quad), np.float32))
        out.append(place)
    return out


# ---------------------------------------------------------------- learning

def _jitter(quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The outline off as the segmenter draws it (as in training): turned, moved, grown, corners shaken."""
    side = float(np.linalg.norm(quad[1] - quad[0])) + 1e-3
    c = quad.mean(axis=0)
    a = np.deg2rad(np.clip(rng.normal(0, 6), -20, 20))
    turn = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    out = c + rng.normal(0, 0.05 * side, 2) + ((quad - c) @ turn.T) * rng.uniform(0.92, 1.25)
    return (out + rng.normal(0, 0.03 * side, quad.shape)).astype(np.float32)


def _photometric(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light, focus and resolution of other photos: tiles far away are small and soft."""
    gain = rng.uniform(0.7, 1.25) * rng.uniform(0.9, 1.1, 3)
    out = crop.astype(np.float32) * gain + rng.uniform(-15, 15)
    if rng.random() < 0.5:  # seen smaller (down to 16 px tall), scaled back up
        h, w = out.shape[:2]
        f = float(np.exp(rng.uniform(np.log(16 / h), 0)))
        small = cv2.resize(out, (max(4, round(w * f)), max(6, round(h * f))), interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.1))
    if rng.random() < 0.4:
        out = out + rng.normal(0, rng.uniform(2, 8), out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def _not_tiles(place: Placement, rng: np.random.Generator) -> list[np.ndarray]:
    """Outlines that show no single whole face: half of two neighbours, a tile's edge, bare table."""
    quads = place.quads + place.others
    if not quads:
        return []
    all_q = np.array(quads)
    centres = all_q.mean(axis=1)
    width = float(np.median(np.linalg.norm(all_q[:, 1] - all_q[:, 0], axis=1)))
    out = []
    for q in place.quads:
        right = q[1] - q[0]
        down = q[3] - q[0]
        out.append(q + 0.5 * right)          # half this tile, half the next (or the table)
        out.append(q + 0.55 * down)          # the bottom of the face and what lies below
    H, W = place.image.shape[:2]
    q0 = place.quads[0] - place.quads[0].mean(axis=0)
    for _ in range(2 * len(place.quads)):
        c = rng.uniform((0, 0), (W, H))
        if np.min(np.linalg.norm(centres - c, axis=1)) > 1.2 * width:
            out.append((q0 + c).astype(np.float32))
    return out


def training_crops(model, places: list[Placement], rng: np.random.Generator
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops (N, h, w, 3), their classes, and which are unjittered: each placed tile jittered and
    turned, and rejects."""
    crops, labels, plain = [], [], []
    reject = model.reject
    size, margin = model.crop_size, model.margin
    for place in places:
        for index, quad in zip(place.indices, place.quads):
            for k in range(AUGMENT + 1):
                q = quad if k == 0 else _jitter(quad, rng)
                crop = warp_crop(place.image, q, size, margin)
                crop = crop if k == 0 else _photometric(crop, rng)
                crops += [crop, np.ascontiguousarray(crop[::-1, ::-1])]  # the classifier reads either way up
                labels += [index, index]
                plain += [k == 0, k == 0]
        for q in _not_tiles(place, rng):
            crops.append(_photometric(warp_crop(place.image, _jitter(q, rng), size, margin), rng))
            labels.append(reject)
            plain.append(False)
    return np.stack(crops), np.array(labels), np.array(plain)


def crop_features(model, crops: np.ndarray, batch: int = 256) -> np.ndarray:
    return np.concatenate([model.read_crops_raw(crops[i:i + batch])[2] for i in range(0, len(crops), batch)])


@dataclass
class TileReport:
    """Confidence in the right reading of one tile, on its calibration crops, before and after."""

    code: str
    examples: int
    before: float
    after: float
    read_before: str
    read_after: str


def calibrate(model, places: list[Placement], seed: int = 0, pull: float = 1e-2
              ) -> tuple[TileProfile, list[TileReport]]:
    """Fit a profile on the placed tiles of ``places``; per-tile confidence before and after."""
    placed = sum(len(p.indices) for p in places)
    if not placed:
        raise CalibrationError("no tile could be placed in any photo: nothing to learn from")
    if not model.has_features:
        raise CalibrationError("this classifier has no 'features' output; export it again")
    rng = np.random.default_rng(seed)
    crops, labels, plain = training_crops(model, places, rng)
    features = crop_features(model, crops)
    w0, b0 = model.face_layer()
    before = softmax(features[plain] @ w0.T + b0)  # the unjittered crops: the tiles as these photos show them
    right, faces = _faces_read_right(labels[plain], before)
    known = faces > 0 and len(right) >= KNOWN_BOX * faces
    kept_as_shipped = _uneven_turned(labels) if known else []
    if kept_as_shipped:  # a box the shipped layer reads: its uneven 6s and 9s would lose more than they gain
        keep = ~np.isin(labels, kept_as_shipped)
        before = before[keep[plain]]
        features, labels, plain = features[keep], labels[keep], plain[keep]
        if not plain.any():
            raise CalibrationError(f"only {', '.join(_codes(kept_as_shipped))} placed, without as many of the other "
                                   "of their colour (a 6 and a 9 are one numeral turned): nothing to learn")
    bank = model.feature_bank()
    if bank is None:
        weight, bias = fit_face_layer(features, labels, w0, b0, pull=pull)
    else:  # the new box and crops of every kind the classifier trained on
        weight, bias = fit_face_layer(np.concatenate([features, bank[0]]), np.concatenate([labels, bank[1]]),
                                      w0, b0, pull=pull, sample_weights=_even_prior(labels, bank[1], w0.shape[0]))
    truth = labels[plain]
    if known:  # only what the shipped layer misreads here is learned; every other face reads as shipped
        keep = np.ones(len(bias), bool)
        keep[sorted({int(t) for t in truth} - set(right))] = False
        weight, bias = np.where(keep[:, None], w0, weight), np.where(keep, b0, bias)
    after = softmax(features[plain] @ weight.T + bias)
    reports = []
    for index in sorted(set(int(t) for t in truth)):
        rows = truth == index
        reports.append(TileReport(Tile.from_index(index).code, int(rows.sum()) // 2,
                                  float(before[rows, index].mean()), float(after[rows, index].mean()),
                                  _most_read(before[rows]), _most_read(after[rows])))
    info = {
        "sources": [p.source for p in places],
        "not_learned": _codes([f for f in kept_as_shipped if f not in right]),  # read otherwise, yet held back
        "held_back": _codes([f for f in kept_as_shipped if f in right]),  # read right, kept as shipped: not reported
        "read_already": _codes(right) if known else [],
        "learned_alone": [] if known else _codes(_lone_turned(labels)),
        "tiles_placed": placed,
        "crops": int(len(labels)),
        "pull": pull,
        "tiles": [r.__dict__ for r in reports],
    }
    return TileProfile(weight, bias, model.classifier_id, info), reports


def _turned_pairs(labels: np.ndarray) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Per colour with a 6 or a 9 placed: ((the 6's index, its crops), (the 9's index, its crops)).

    Both ways up, a 6 is a 9 turned; only a mark tells them apart. Taught one
    alone, the face layer learns the numeral and reads the other as it too
    (rendered modern racks, an edition the classifier knows: three photos with
    an O9 and no O6 turned the shipped two O6 -> O9 misreadings into seven), and
    taught both unevenly it does the same (three other photos with one O6 and four
    O9s: O6 -> O9 five times). So for a box the shipped layer reads (KNOWN_BOX)
    they keep its reading unless shown as evenly as the layout shows them
    (:func:`_uneven_turned`); for a box it reads badly they are learned, where its
    9s read as 10s cost more than its 6s can lose, and one shown alone is said to
    be (:func:`_lone_turned`)."""
    counts = np.bincount(np.asarray(labels, np.int64), minlength=JOKER_INDEX + 1)
    pairs = []
    for colour in Color:
        six, nine = Tile(colour, 6).index, Tile(colour, 9).index
        if counts[six] or counts[nine]:
            pairs.append(((six, int(counts[six])), (nine, int(counts[nine]))))
    return pairs


def _uneven_turned(labels: np.ndarray) -> list[int]:
    """The 6s and 9s placed, of each colour whose 6s and 9s were not placed equally often."""
    return [index for a, b in _turned_pairs(labels) if a[1] != b[1] for index, n in (a, b) if n]


def _lone_turned(labels: np.ndarray) -> list[int]:
    """The 6s and 9s placed without the other of their colour."""
    return [index for a, b in _turned_pairs(labels) if not (a[1] and b[1]) for index, n in (a, b) if n]


def _faces_read_right(truth: np.ndarray, shipped: np.ndarray) -> tuple[list[int], int]:
    """(the placed faces the shipped layer reads right, how many faces were placed); ``shipped``:
    its probabilities for the unjittered crops of faces ``truth``; a face is read right when most
    of its crops are."""
    faces = sorted({int(t) for t in truth if int(t) <= JOKER_INDEX})
    return [f for f in faces if _most_read(shipped[truth == f]) == Tile.from_index(f).code], len(faces)


def _codes(indices: list[int]) -> list[str]:
    return [Tile.from_index(i).code for i in indices]


def _even_prior(labels: np.ndarray, bank: np.ndarray, classes: int) -> np.ndarray:
    """Sample weights for the new box's crops then the bank's: every class weighs the same in all,
    and a class the new box shows takes NEW_SHARE of its weight from the new box's crops.

    A few photos show some faces and not others; weighing the faces shown on top of the bank
    would make them likelier everywhere than the faces not shown."""
    seen = np.bincount(labels, minlength=classes) > 0
    new = balanced_weights(labels, classes, float(seen.sum()) * NEW_SHARE)
    held = np.bincount(bank, minlength=classes) > 0
    old = balanced_weights(bank, classes, float(held.sum())) * np.where(seen[bank], 1 - NEW_SHARE, 1.0)
    weights = np.concatenate([new, old])
    return weights / weights.sum()


def _most_read(probs: np.ndarray) -> str:
    votes = np.bincount(probs.argmax(axis=1), minlength=probs.shape[1])
    best = int(votes.argmax())
    return Tile.from_index(best).code if best <= JOKER_INDEX else "not a tile"


@dataclass(frozen=True)
class Lesson:
    """One photo the page was taught from: the picture, what names it, and the tiles typed for it
    (empty: the layout)."""

    image: np.ndarray
    source: str
    typed: str = ""


def teach_from_frames(model, lessons: list[Lesson], profile_path) -> dict:
    """The page's "Teach your tiles": the photos taught so far become the active profile.

    Each lesson shows the layout (:data:`LAYOUT`) or the tiles it was typed
    with, in reading order as for ``calibrate --photo --tiles`` (a rack, a
    few sets); a club teaches its box a rack at a time, so every lesson
    refits the profile on all of them.  The newest lesson must place at
    least one tile and match what was typed for it (:func:`mismatch`),
    else nothing changes.  The model is first set back to
    the shipped face layer (the tiles are placed with it), then reads with
    the new profile, which is saved to ``profile_path`` (the server's data
    folder). Returns what the page shows: tiles placed in the newest photo,
    problems, and per-tile confidence before and after over all of them.
    Raises :class:`CalibrationError` for unreadable typing or when the
    newest photo placed nothing or does not match; the profile in use is then kept.
    """
    if not lessons:
        raise CalibrationError("no photo to learn from")
    groups = [parse_typed(n.typed) if n.typed.strip() else [list(r) for r in LAYOUT] for n in lessons]
    previous = model.profile
    model.set_profile(None)
    try:
        places = [place_typed(model, n.image, g, n.source) for n, g in zip(lessons, groups)]
        newest = places[-1]
        if not newest.indices:
            raise CalibrationError("; ".join(newest.problems + ["nothing to learn from this photo"]))
        wrong = mismatch(newest)
        if wrong:
            raise CalibrationError(f"{wrong}; nothing learned")
        profile, reports = calibrate(model, places)
        profile.save(profile_path)
    except Exception:  # refused, or not saved (a full disk): the profile in use stays in use
        model.set_profile(previous)
        raise
    model.set_profile(profile)
    return {
        "placed": len(newest.indices),
        "expected": sum(len(g) for g in groups[-1]),
        "photos": len(places),
        "problems": newest.problems,
        "tiles": [r.__dict__ for r in reports],
        "right_before": sum(r.read_before == r.code for r in reports),
        "right_after": sum(r.read_after == r.code for r in reports),
        "read_already": profile.info["read_already"],
        "profile": str(profile_path),
    }
