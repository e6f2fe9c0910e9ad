"""A photo of the table in, tiles and judged sets out: model -> geometry -> rules.

The reader never changes what the model read without saying so: when a set is
invalid and exactly one of its tiles was read with low confidence, the rules
may name the tile that would make it valid (K5 K6 ? K8 -> K7).  That tile is
then marked ``inferred`` and the model's own reading stays available in
:attr:`TableReading.model_detections`.  When the verdict hangs on a doubtful
tile and no single tile stands out, the set is *unsure* (with its doubtful
tiles), not invalid.  So is a set that runs into the photo's edge and that a
tile past it would make valid (``vision.frame_edge``).

Groups are table sets (judged by the rules) or rack rows (tiles standing on a
rack: never judged as melds, only totalled).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from rules.options import RuleOptions
from rules.scoring import rack_value
from rules.sets import SetVerdict, analyse_set, colours_in_doubt, suggest_missing
from rules.tiles import Tile
from vision.box import printed_matter
from vision.colours import colour_warnings
from vision.context import laid_in_sets, likeliest_valid, valid_as_laid
from vision.frame_edge import row_past_edge, runs_past_edge
from vision.geometry import (RACK, TABLE, EndLinks, GeometryOptions, Group, find_groups, order_line,
                             tile_frames)
from vision.scale import out_of_scale
from vision.types import TileDetections


DECODE_SIDE = 1600  # large JPEGs are decoded reduced, never below this long side (4032 px -> 2016)
WIDE_GAP = 0.15  # a gap this much wider (in tile widths) than a line's usual one may part two groups
JOIN_GAP = 0.5  # lines this much farther apart than tiles of one set (tile widths) may still be one set
RACK_PAST_EDGE = "a rack row runs past the photo's edge: the rack total may leave out tiles there"
TINY_PHOTO = 64  # px: a photo this small on its short side, with no tile found, is too small to show one


@dataclass(frozen=True)
class ReaderOptions:
    """Rules to judge sets by, when the rules may suggest a tile, and how sets are found."""

    rules: RuleOptions  # the rules in force: sets are judged and tiles inferred under them
    infer_below: float = 0.4  # a tile read with a lower score may be inferred from its set
    unsure_below: float = 0.5  # an invalid set is unsure when a tile read below this could make it valid
    doubt_below: float = 0.2  # a set valid as read is unsure when a tile was read (not inferred) below this
    geometry: GeometryOptions = field(default_factory=GeometryOptions)


@dataclass(frozen=True)
class SetReading:
    """One group of tiles: which tiles (indices into the reading), where they lie, and the verdict.

    group: ``"table"`` (a set on the table, judged by the rules) or ``"rack"``
        (a rack row: never judged as a meld; ``verdict`` is None, ``value`` its total).
    as_read: the verdict on the tiles as the model read them, kept when a
        tile of the set was inferred (the set may be valid only thanks to it).
    doubtful: tiles (indices into the reading) read with low confidence on which
        the verdict hangs: another reading of one of them would make an invalid
        set valid, or one read so doubtfully (``doubt_below``) that a set valid
        as read may be no set at all (a numeral under a finger read as a joker
        at 0.09).  Such a set is ``unsure``, neither invalid nor valid.
    past_edge: the set runs into the photo's edge and a tile in the next place,
        out of sight, would make it valid (``vision.frame_edge``): ``unsure`` too.
        A rack row that runs into the edge: tiles past it may be left out of its total.
    colours_doubted: the photo's colours cannot be trusted and other colours for
        the ``doubtful`` tiles would make the set valid: ``unsure``, however
        sure the model was of each numeral.
    """

    indices: list[int]
    verdict: SetVerdict | None
    as_read: SetVerdict | None = None
    group: str = TABLE
    doubtful: tuple[int, ...] = ()
    rack_value: int = 0  # a rack row: what its tiles cost left on the rack
    past_edge: bool = False
    colours_doubted: bool = False

    @property
    def valid(self) -> bool:
        return self.verdict is not None and self.verdict.valid and not self.doubtful

    @property
    def unsure(self) -> bool:
        return self.group == TABLE and not self.valid and (bool(self.doubtful) or self.past_edge)

    @property
    def status(self) -> str:
        """``"valid"``, ``"invalid"``, ``"unsure"`` or ``"rack"`` (the one word the page and drawing use)."""
        if self.group == RACK:
            return RACK
        return "valid" if self.valid else "unsure" if self.unsure else "invalid"

    @property
    def kind(self) -> str | None:
        return self.verdict.kind if self.verdict is not None else None

    @property
    def value(self) -> int:
        """Points a valid set is worth on the table (0 when invalid); a rack row's total."""
        if self.group == RACK:
            return self.rack_value
        return int(self.verdict.value) if self.valid and self.verdict.value is not None else 0

    @property
    def problem(self) -> str | None:
        return self.verdict.problem if self.verdict is not None else None

    @property
    def jokers(self) -> list[list[str]]:
        """For each joker of a valid set, in order, the tiles it may stand for (one, or several
        when the set does not tell: J K7 B7 is O7 or R7); empty otherwise."""
        if not self.valid:
            return []
        return [sorted(t.code for t in m) for m in self.verdict.joker_meanings()]

    def to_json(self) -> dict:
        return {"tiles": list(self.indices), "group": self.group, "status": self.status,
                "valid": self.valid, "kind": self.kind, "value": self.value, "problem": self.problem,
                "jokers": self.jokers, "doubtful": list(self.doubtful), "past_edge": self.past_edge,
                "colours_doubted": self.colours_doubted}


@dataclass
class TableReading:
    """Everything read from one photo.

    detections: the tiles in reading order (set by set), codes after inference.
    model_detections: the same tiles as the model read them (no inference).
    sets: every group: table sets (a lone tile is a set of one, invalid, with
        its problem) and rack rows.
    rack_total: what the tiles on racks cost (``rules.scoring.rack_value``:
        face values, a joker ``joker_penalty``); with no rack in the photo,
        what all its tiles would cost left on a rack (a hand laid out to count).
    warnings: things about the photo that make the reading less sure, in
        plain words (colours that cannot be told apart, a rack row running past
        the photo's edge, ...).
    """

    detections: TileDetections
    sets: list[SetReading]
    rack_total: int
    model_detections: TileDetections
    warnings: list[str] = field(default_factory=list)

    @property
    def tiles(self) -> list[Tile]:
        return self.detections.tiles

    def to_json(self, image: str | None = None) -> dict:
        """The ``read --json`` object for this photo."""
        d = self.detections
        boxes = d.boxes
        tiles = [
            {
                "code": code,
                "box": [round(float(v), 1) for v in boxes[i]],
                "quad": [[round(float(x), 1), round(float(y), 1)] for x, y in d.quads[i]],
                "score": round(float(d.scores[i]), 4),
                "inferred": bool(d.inferred[i]),
            }
            for i, code in enumerate(d.codes)
        ]
        return {"image": image, "tiles": tiles, "sets": [s.to_json() for s in self.sets],
                "rack_total": int(self.rack_total), "warnings": list(self.warnings)}


class TableReader:
    """Reads photos of the table with one loaded model (load once, read many)."""

    def __init__(self, model, options: ReaderOptions):
        if not isinstance(options, ReaderOptions):
            raise TypeError(f"TableReader needs ReaderOptions naming the rules in force, not {options!r}")
        self.model = model
        self.options = options

    @classmethod
    def from_model_dir(cls, path: str | Path | None, options: ReaderOptions,
                       **model_options) -> "TableReader":
        """``model_options`` go to :class:`vision.model.TileModel` (threads, second_look, ...)."""
        from vision.model import TileModel  # onnxruntime is loaded only when a model is

        return cls(TileModel.load(path, **model_options), options)

    def read_file(self, path: str | Path) -> tuple[np.ndarray, TableReading]:
        """(the photo, its reading) for a photo file: EXIF turn applied, a large JPEG decoded reduced.

        A 12 MP JPEG is decoded at half size: still as large as the closest
        look the detector ever takes (``vision.model.MAX_SIDE``), so no tile
        the detector could find is lost, at a fraction of the decoding time.
        ``vision.images.ImageError`` (a ValueError) names a file that cannot be read.
        """
        from vision.images import load_image

        image = load_image(path, max_side=DECODE_SIDE)
        return image, self.read(image)

    def read(self, image_bgr: np.ndarray) -> TableReading:
        if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or not image_bgr.size:
            raise ValueError("expected a BGR colour image (H, W, 3)")
        return self.read_detections(self.model.detect(image_bgr), image_bgr)

    def read_detections(self, detections: TileDetections, image: np.ndarray | None = None) -> TableReading:
        """Groups, verdicts and inferred tiles for tiles already found (the model's output).

        ``image`` (the photo they were found in) lets racks be told from the
        table and the photo's colours be checked; without it every group is a table set.
        Finds the box cannot hold (``vision.box``) are left out first, unless the
        photo's colours cannot be trusted, then finds far smaller than the tiles
        around them (``vision.scale``): a patch of printed numbers is judged whole.
        """
        o = self.options
        # no tile found, no tile colour to doubt (an empty marble table has little colour of its own)
        colours = colour_warnings(image, detections.quads) if image is not None and len(detections) else []
        printed: list[str] = []
        if not colours:  # a grey-scale photo reads every 7 of a group as K7: one colour proves nothing there
            keep, printed = printed_matter(detections, o.rules.box)
            detections = detections[keep]
        detections = detections[~out_of_scale(detections.quads)]
        as_read = detections.tiles

        def in_sets(row: list[int]) -> int:  # a row mostly in no valid set is a rack's, not the table's
            return laid_in_sets([as_read[t] for t in row], o.rules)

        # sets are sought as the table lies, not as the camera slants it
        groups, flat = find_groups(detections.quads, o.geometry, image, in_sets)
        in_context = self._in_context(detections, groups)
        groups = self._join(in_context, flat, groups)
        order = np.array([i for g in groups for i in g.tiles], dtype=np.int64)
        found = detections[order] if len(order) else TileDetections.empty()
        read = in_context[order] if len(order) else TileDetections.empty()
        sets, start = [], 0
        for g in groups:
            indices = list(range(start, start + len(g.tiles)))
            start += len(g.tiles)
            if g.kind == RACK:
                tiles = [Tile.from_index(int(read.class_ids[i])) for i in indices]
                cut = image is not None and row_past_edge(found.quads[indices], image, found.quads)
                sets.append(SetReading(indices, None, group=RACK, rack_value=rack_value(tiles, o.rules), past_edge=cut))
            else:
                sets += [self._past_edge(SetReading(part, *self._judge(read, found, part)), read, found, image)
                         for part in self._split(read, flat[order], indices)]
        if colours:  # a set invalid only by colours the photo cannot show is unsure, not invalid
            sets = [self._colours_doubted(s, read) for s in sets]
        on_rack = [t for s in sets if s.group == RACK for t in s.indices]
        total = rack_value([read.tiles[i] for i in on_rack] if on_rack else read.tiles, o.rules)
        warnings = printed + colours
        if image is not None and not len(read) and min(image.shape[:2]) < TINY_PHOTO:
            h, w = image.shape[:2]
            warnings.append(f"no tile found: the photo is only {w}x{h} pixels, too small to show a tile that can "
                            "be read (tiles need to be about 20 pixels tall)")
        if any(s.group == RACK and s.past_edge for s in sets):
            warnings.append(RACK_PAST_EDGE)
        return TableReading(read, sets, total, found, warnings)

    def _in_context(self, detections: TileDetections, groups: list[Group]) -> TileDetections:
        """A copy of ``detections`` where each table line that is invalid as read takes the likeliest
        reading that makes it a valid set (``vision.context``), its changed tiles marked inferred."""
        read = detections[np.arange(len(detections))]
        for g in groups:
            line = np.array(g.tiles, dtype=np.int64)
            if g.kind != TABLE or len(line) < 3:
                continue
            codes = likeliest_valid(read.probs[line], read.class_ids[line], self.options.rules)
            if codes is not None:
                changed = line[codes != read.class_ids[line]]
                read.class_ids[line] = codes
                read.inferred[changed] = True
        return read

    def _join(self, detections: TileDetections, flat: np.ndarray, groups: list[Group]) -> list[Group]:
        """Table lines that continue one another (``geometry.EndLinks``: straight on past a gap up to
        JOIN_GAP wider than a set's, or with the end tile set down askew), valid together in the
        order they lie while one of them alone is not, are one set laid carelessly (R5 R6 _ R7 R8
        with a wide gap; K6 K7 K8 and a K9 pushed a little away or turned). Two lines valid each
        on their own are joined only when no farther apart than tiles of one set (R7 R8 R9 R10
        and R11 R12 R13, parted as lines by an R10 turned by hand); past a wider gap, two sets."""
        o = self.options
        lines = [list(g.tiles) for g in groups if g.kind == TABLE and g.tiles]
        if len(lines) < 2:
            return groups

        def valid(tiles: list[int], as_laid: bool = False) -> bool:
            v = analyse_set([Tile.from_index(int(detections.class_ids[t])) for t in tiles], o.rules)
            return valid_as_laid(v) if as_laid else v.valid

        links = EndLinks(flat, o.geometry)  # the photo's geometry, measured once for every pass
        joined = True
        while joined:  # one join at a time: a line that grew may take the next tile on
            joined = False
            line_of = {t: k for k, line in enumerate(lines) for t in line}
            close = None  # the pairs at a set's own spacing, worked out when two valid pieces meet
            for i, j in links(lines, JOIN_GAP):
                a, b = lines[line_of[i]], lines[line_of[j]]
                # of a line the rules cut in pieces (R10 pushed against K6 K7 K8), the piece at the end
                a_parts, b_parts = self._split(detections, flat, a), self._split(detections, flat, b)
                a_end = next(p for p in a_parts if i in p)
                b_end = next(p for p in b_parts if j in p)
                both = order_line(flat, a_end + b_end)
                # the tiles joined must read in order as they lie: K8 K9 K10 and a K7 dropped past K10 are not one set
                each_valid = valid(a_end) and valid(b_end)
                if each_valid and close is None:
                    close = set(links(lines))
                if valid(both, as_laid=True) and (not each_valid or (i, j) in close):
                    rest = [p for p in a_parts + b_parts if p is not a_end and p is not b_end]
                    # the joined set and what the rules cut off, in the order they lie, where ``a`` was
                    place = {t: k for k, t in enumerate(order_line(flat, a + b))}
                    pieces = sorted([both] + rest, key=lambda p: min(place[t] for t in p))
                    lines = [x for line in lines if line is not b for x in (pieces if line is a else [line])]
                    joined = True
                    break
        return [g for g in groups if g.kind != TABLE] + [Group(TABLE, line) for line in lines]

    def _past_edge(self, s: SetReading, read: TileDetections, found: TileDetections,
                   image: np.ndarray | None) -> SetReading:
        """``s`` marked ``past_edge`` when it is invalid as seen, runs into the photo's edge, and a
        tile past the edge, or another reading of an end tile the edge cuts, would make it valid
        (a lone tile only when it reaches the edge itself: see :func:`runs_past_edge`)."""
        if image is None or s.verdict.valid or not s.indices:
            return s
        tiles = [Tile.from_index(int(read.class_ids[i])) for i in s.indices]
        if not runs_past_edge(tiles, found.quads[s.indices], image.shape, self.options.rules):
            return s
        return replace(s, past_edge=True)

    def _colours_doubted(self, s: SetReading, read: TileDetections) -> SetReading:
        """``s`` unsure, with the tiles whose colour decides it doubtful, when it is invalid as read and
        other colours for them would make it valid (``rules.sets.colours_in_doubt``): in a grey-scale
        photo a group K9 R9 B9 reads K9 K9 K9, and would otherwise be flagged with full confidence."""
        if s.group != TABLE or s.verdict is None or s.verdict.valid or s.unsure:
            return s
        doubt = colours_in_doubt([Tile.from_index(int(read.class_ids[i])) for i in s.indices], self.options.rules)
        return replace(s, doubtful=tuple(s.indices[k] for k in doubt), colours_doubted=True) if doubt else s

    def _split(self, read: TileDetections, flat: np.ndarray, indices: list[int]) -> list[list[int]]:
        """A line that is invalid as a whole, cut where the rules and the spacing say it is several groups.

        Players push sets together and drop loose tiles next to them; the
        spacing alone cannot always tell, the rules can: K1 K2 K3 R7 B7 O7 is
        invalid as one line and two valid sets.  The cut kept is the one that
        puts the most tiles in valid sets (then the fewest pieces).  Next to a
        valid set a cut may fall anywhere (what is left over is still shown
        invalid, so no invalid tile is hidden); between two pieces that are
        not valid sets it must fall at a gap clearly wider than the line's usual one.
        A line whose verdict hangs on a doubtful tile is judged whole, not cut:
        an O8 read as O6 at 0.23 before O9 O10 O11 O12 is inferred or shown
        unsure, not cut off as a loose O6 beside a valid run.
        """
        n = len(indices)
        rules = self.options.rules
        tiles = [Tile.from_index(int(read.class_ids[i])) for i in indices]
        if n < 4 or analyse_set(tiles, rules).valid or self._hangs(read, indices, tiles):
            return [indices]
        f = tile_frames(flat[indices])  # gaps as the table shows them from above
        width = float(np.median(f.widths))
        steps = np.linalg.norm(np.diff(f.centers, axis=0), axis=1) / max(width, 1e-9)
        wide = steps > np.median(steps) + WIDE_GAP  # wide[k]: the gap before tile k + 1
        valid = {(a, b): b - a >= 3 and valid_as_laid(analyse_set(tiles[a:b], rules))
                 for a in range(n) for b in range(a + 1, n + 1)}
        # best[b]: (tiles in valid sets, -pieces, table at the cuts, cuts) over the first b tiles, last
        # piece ending at b; of two equally good cuts the one at the wider gap wins (R5 B5 O5 K5 _ K6 K7 K8)
        best: dict[tuple[int, bool], tuple[int, int, float, list[int]]] = {(0, True): (0, 0, 0.0, [])}
        for b in range(1, n + 1):
            for a in range(b):
                ok = valid[(a, b)]
                for prev_ok in (True, False):
                    if (a, prev_ok) not in best:
                        continue
                    if a > 0 and not (ok or prev_ok) and not wide[a - 1]:
                        continue
                    score, pieces, gaps, cuts = best[(a, prev_ok)]
                    cand = (score + (b - a if ok else 0), pieces - 1, gaps + (float(steps[a - 1]) if a else 0.0),
                            cuts + [b])
                    if (b, ok) not in best or cand[:3] > best[(b, ok)][:3]:
                        best[(b, ok)] = cand
        ends = [best[(n, ok)] for ok in (True, False) if (n, ok) in best]
        score, _, _, cuts = max(ends, key=lambda c: c[:3])
        if score == 0:
            return [indices]
        starts = [0] + cuts[:-1]
        return [indices[a:b] for a, b in zip(starts, cuts)]

    def _judge(self, read: TileDetections, model: TileDetections, indices: list[int]
               ) -> tuple[SetVerdict, SetVerdict | None, str, tuple]:
        """(verdict, verdict on the model's own reading when a tile was inferred else None, group, doubtful tiles)."""
        o = self.options
        tiles = [Tile.from_index(int(read.class_ids[i])) for i in indices]
        verdict = analyse_set(tiles, o.rules)

        def as_read() -> SetVerdict | None:  # the model's own reading, kept when the rules changed a tile
            return analyse_set([model.tiles[i] for i in indices], o.rules) if read.inferred[indices].any() else None

        if verdict.valid:
            return verdict, as_read(), TABLE, tuple(i for i in indices if read.scores[i] < o.doubt_below
                                                    and not read.inferred[i])
        if len(tiles) < 3:
            return verdict, as_read(), TABLE, ()
        doubtful = [k for k, i in enumerate(indices) if read.scores[i] < o.infer_below]
        if len(doubtful) == 1:
            k = doubtful[0]
            candidates = suggest_missing(tiles[:k] + [None] + tiles[k + 1:], o.rules)
            guess = _likely(tiles[k], candidates, lambda t: analyse_set(tiles[:k] + [t] + tiles[k + 1:], o.rules))
            if guess is not None:
                read.class_ids[indices[k]] = guess.index
                read.inferred[indices[k]] = True
                tiles[k] = guess
                return analyse_set(tiles, o.rules), as_read(), TABLE, ()
        return verdict, None, TABLE, self._hangs(read, indices, tiles)

    def _hangs(self, read: TileDetections, indices: list[int], tiles: list[Tile]) -> tuple[int, ...]:
        """The doubtful tiles an invalid line's verdict hangs on: read below ``unsure_below``, and
        another reading of one of them would make the line valid."""
        o = self.options
        return tuple(i for k, i in enumerate(indices) if read.scores[i] < o.unsure_below
                     and suggest_missing(tiles[:k] + [None] + tiles[k + 1:], o.rules))


def _likely(as_read: Tile, candidates: list[Tile], judge) -> Tile | None:
    """The one candidate closest to what the model read, or None when no single one stands out.

    A candidate sharing the read tile's colour or number wins over one sharing
    neither; then one that keeps the set in the order it lies (10 11 ? -> 12,
    not 9); then a numbered tile over a joker (jokers are rare).
    """
    if not candidates:
        return None

    def closeness(t: Tile) -> tuple[int, int, int]:
        shared = (not t.is_joker and not as_read.is_joker
                  and (t.color == as_read.color) + (t.number == as_read.number))
        in_order = any(rank < 2 for rank in judge(t).ranks)  # 2: not as laid
        return (int(shared), int(in_order), 0 if t.is_joker else 1)

    ranked = sorted(candidates, key=closeness, reverse=True)
    if len(ranked) > 1 and closeness(ranked[0]) == closeness(ranked[1]):
        return None
    return ranked[0]


__all__ = ["TABLE", "RACK", "ReaderOptions", "SetReading", "TableReading", "TableReader"]
