"""YOLO-format folders (images/ + labels/ + data.yaml), as labelling tools export them.

Used by training, by ``rummikub-companion eval`` and by the tests. Box labels
(``cls cx cy w h``) and polygon labels (``cls x1 y1 x2 y2 ...``) are both read;
every label becomes a 4-corner quad in pixels. A malformed label line is an
error naming the file and line, as a wrong sets file is.

Set labels (which tiles the players laid together) live in a sets folder of
one text file per image stem, beside the YOLO folder (``<split>/sets/``) or
anywhere else (``load_folder(root, sets=DIR)``)::

    # comment
    set 3 4 5        # tiles laid together on the table, in reading order
    rack 0 1 2 7     # one row of a rack, left to right

Numbers are 0-based line numbers of the image's label file. Tiles not named
on any line are loose. A photo without a sets file has no set labels.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from rules.tiles import JOKER_INDEX, NotationError, Tile
from vision.images import ImageError, load_image, load_image_size

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".avif", ".heic", ".heif"}  # an undecodable HEIC: named
_COLOR_WORDS = {"black": "K", "blue": "B", "teal": "B", "orange": "O", "yellow": "O", "gold": "O", "red": "R"}
_JOKER = re.compile(r"joker|jolly|j[ _\-]?[12]?")  # "red_joker", "Joker", "j1", "J 2"
_WORD_NUMBER = re.compile(r"([a-z]+)[ _\-]?(\d{1,2})|(\d{1,2})[ _\-]?([a-z]+)")  # red_5, Blue-10, 5_red, 10 Black
_TILE_LIKE = re.compile(r"\d|" + "|".join(_COLOR_WORDS) + "|joker")


def class_name_to_index(name: str) -> int | None:
    """Map a dataset's class name to a tile index, or None for non-tile classes.

    Accepts tile codes (``R5``, ``k_3``, ``J``) and colour words with the
    number either side (``red_5``, ``Blue-10``, ``5_red``, ``10 Black``;
    yellow and gold for orange, teal for blue) and jokers (``joker``,
    ``joker_red``, ``j1``).
    """
    text = name.strip().lower()
    if "joker" in text or _JOKER.fullmatch(text):
        return JOKER_INDEX
    m = _WORD_NUMBER.fullmatch(text)
    if m:
        word, number = (m[1], m[2]) if m[1] else (m[4], m[3])
        colour = _COLOR_WORDS.get(word, word if len(word) == 1 else None)
        text = f"{colour}{number}" if colour else text
    try:
        return Tile.parse(text).index
    except NotationError:
        return None


def tile_classes(names: list[str], source: Path) -> list[int | None]:
    """Each class name's tile index (:func:`class_name_to_index`), refusing names that hold no tile.

    ValueError when no class is a tile: every label would be left out and
    the folder would read as photos without tiles.  A name that looks like a
    tile but is none (``red_14``, ``purple_3``) is named in a warning, its
    labels left out; others (``hand``, ``tile_back``) are left out quietly.
    """
    index_of = [class_name_to_index(n) for n in names]
    if names and all(i is None for i in index_of):
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        raise ValueError(f"{source}: none of its class names is a tile ({shown}); name tiles as codes "
                         "(R5, K13, J) or colour and number (red_5, black_13, joker)")
    odd = [n for n, i in zip(names, index_of) if i is None and _TILE_LIKE.search(n.lower())]
    if odd:
        log.warning("%s: class names not read as tiles, their labels left out: %s", source, ", ".join(odd))
    return index_of


def read_class_names(folder: Path) -> list[str]:
    """Class names from data.yaml (``names:`` as a block list, inline list or mapping)."""
    yaml_path = next((p for p in (folder / "data.yaml", folder.parent / "data.yaml") if p.exists()), None)
    if yaml_path is None:
        raise FileNotFoundError(f"{folder}: no data.yaml with class names")
    text = yaml_path.read_text()
    inline = re.search(r"^names:\s*\[(.*?)\]", text, re.M | re.S)
    if inline:
        return [s.strip().strip("'\"") for s in inline[1].split(",") if s.strip()]
    block = re.search(r"^names:\s*\n((?:[ \t]+.*\n?|-.*\n?)+)", text, re.M)
    if not block:
        raise ValueError(f"{yaml_path}: no 'names:' list")
    names = []
    for line in block[1].splitlines():
        line = line.strip()
        if line.startswith("-"):
            names.append(line[1:].strip().strip("'\""))
        elif ":" in line:  # mapping form "0: red_1"
            names.append(line.split(":", 1)[1].strip().strip("'\""))
    return names


GROUP_KINDS = ("set", "rack")  # a line of tiles on the table; a row of tiles standing on a rack


@dataclass(frozen=True)
class GroupLabel:
    """Tiles laid together: ``kind`` "set" (on the table) or "rack" (a rack row), tiles in reading order."""

    kind: str
    tiles: tuple[int, ...]  # indices into LabelledImage.quads


@dataclass
class LabelledImage:
    image_path: Path
    quads: np.ndarray  # (N, 4, 2) pixels
    class_ids: np.ndarray  # (N,) tile indices 0-52
    ordered: bool  # True when quads are in reading order (renderer output)
    groups: list[GroupLabel] | None = None  # None: no set labels for this photo

    @property
    def loose(self) -> list[int]:
        """Tiles in no set and no rack row (empty without set labels)."""
        if self.groups is None:
            return []
        used = {t for g in self.groups for t in g.tiles}
        return [i for i in range(len(self.quads)) if i not in used]

    def load(self) -> np.ndarray:
        return load_image(self.image_path)


def _polygon_to_quad(points: np.ndarray) -> np.ndarray:
    """Four corners for a polygon: itself if it has 4, else its min-area rectangle."""
    if len(points) == 4:
        return points.astype(np.float32)
    rect = cv2.minAreaRect(points.astype(np.float32))
    return cv2.boxPoints(rect).astype(np.float32)


def _find_split_dirs(root: Path) -> list[Path]:
    """Folders under root that hold an images/ and a labels/ folder."""
    if (root / "images").is_dir() and (root / "labels").is_dir():
        return [root]
    return sorted(p.parent for p in root.rglob("images") if (p.parent / "labels").is_dir())


def read_groups(path: Path, line_to_tile: dict[int, int]) -> list[GroupLabel]:
    """The set labels of one image; ``line_to_tile`` maps label-file line numbers to quad indices.

    ValueError naming the file and line for an unknown kind, a line number
    with no tile label, or a tile named twice.
    """
    groups, seen = [], set()
    for n, line in enumerate(path.read_text().splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        kind, numbers = words[0], words[1:]
        if kind not in GROUP_KINDS:
            raise ValueError(f"{path}:{n}: unknown kind {kind!r} (expected one of {', '.join(GROUP_KINDS)})")
        try:
            lines = [int(w) for w in numbers]
        except ValueError:
            raise ValueError(f"{path}:{n}: tiles must be label line numbers") from None
        if not lines:
            raise ValueError(f"{path}:{n}: a {kind} names no tile")
        tiles = []
        for k in lines:
            if k not in line_to_tile:
                raise ValueError(f"{path}:{n}: label line {k} is not a tile of this image")
            if k in seen:
                raise ValueError(f"{path}:{n}: label line {k} is in two groups")
            seen.add(k)
            tiles.append(line_to_tile[k])
        groups.append(GroupLabel(kind, tuple(tiles)))
    return groups


def read_label_line(line: str, path: Path, n: int, classes: int) -> tuple[int, np.ndarray] | None:
    """(class, values) of one YOLO label line, None for a blank one.

    ValueError naming the file and line (1-based) for anything else that is
    not a class of data.yaml and a box or polygon: skipping it would shift or
    drop a tile, and the sets files count label lines.
    """
    parts = line.split()
    if not parts:
        return None
    try:
        cls = int(parts[0])
        values = np.array([float(v) for v in parts[1:]], dtype=np.float32)
    except ValueError:
        raise ValueError(f"{path}:{n}: not a YOLO label (a class, then 4 box numbers or x y pairs): "
                         f"{line.strip()!r}") from None
    if not 0 <= cls < classes:
        raise ValueError(f"{path}:{n}: class {cls} is not one of data.yaml's {classes} names")
    if len(values) != 4 and (len(values) < 6 or len(values) % 2):
        raise ValueError(f"{path}:{n}: {len(values)} numbers after the class: a box has 4, a polygon "
                         "3 or more x y pairs")
    if not np.isfinite(values).all():
        raise ValueError(f"{path}:{n}: a coordinate is not a number: {line.strip()!r}")
    return cls, values


def load_folder(root: str | Path, sets: str | Path | None = None) -> list[LabelledImage]:
    """Every labelled image under a YOLO-format folder, with labels in pixels.

    Set labels come from ``sets`` (a folder of ``<stem>.txt``) when given,
    else from a ``sets/`` folder beside each ``images/``; see the module doc.
    """
    root = Path(root)
    if sets is not None and not Path(sets).is_dir():
        raise FileNotFoundError(f"{sets}: no such sets folder")
    if not root.is_dir():
        raise FileNotFoundError(f"{root}: not a folder")
    splits = _find_split_dirs(root)
    if not splits:
        raise ValueError(f"{root}: no images/ and labels/ folders")
    names = read_class_names(root if (root / "data.yaml").exists() else splits[0])
    index_of = tile_classes(names, root)
    ordered = (root / "data.yaml").exists() and "reading-order" in (root / "data.yaml").read_text()
    items: list[LabelledImage] = []
    for split in splits:
        for image_path in sorted((split / "images").iterdir()):
            if image_path.suffix.lower() not in IMAGE_SUFFIXES:
                continue
            try:
                w, h = load_image_size(image_path)
            except (ImageError, OSError) as exc:
                log.warning("skipped %s", exc)  # the message names the file and what is wrong
                continue
            label_path = split / "labels" / (image_path.stem + ".txt")
            quads, ids, line_to_tile = [], [], {}
            if label_path.exists():
                for number, line in enumerate(label_path.read_text().splitlines()):
                    label = read_label_line(line, label_path, number + 1, len(index_of))
                    tile = index_of[label[0]] if label else None
                    if tile is None:
                        continue
                    values = label[1]
                    if len(values) == 4:  # box: cx cy w h
                        cx, cy, bw, bh = values
                        pts = np.array([[cx - bw / 2, cy - bh / 2], [cx + bw / 2, cy - bh / 2],
                                        [cx + bw / 2, cy + bh / 2], [cx - bw / 2, cy + bh / 2]])
                    else:
                        pts = values.reshape(-1, 2)
                    pts = pts * np.array([w, h], dtype=np.float32)
                    line_to_tile[number] = len(quads)
                    quads.append(_polygon_to_quad(pts))
                    ids.append(tile)
            sets_path = (Path(sets) if sets is not None else split / "sets") / (image_path.stem + ".txt")
            items.append(LabelledImage(
                image_path,
                np.array(quads, dtype=np.float32).reshape(-1, 4, 2),
                np.array(ids, dtype=np.int64),
                ordered,
                read_groups(sets_path, line_to_tile) if sets_path.exists() else None,
            ))
    return items


def split_holdout(items: list[LabelledImage], every: int = 5, block: int = 4) -> tuple[list, list]:
    """A fixed train/held-out split, stable across runs and machines.

    Photos named ``series-12_...`` are consecutive shots of one scene, so each
    series is cut, in number order, into blocks of ``block`` neighbours and
    every ``every``-th block is held out: about 1/every of each series, and a
    held-out photo rarely has its near-twin in training.
    """
    def key(item):
        m = re.match(r"(.+?)-(\d+)", item.image_path.name)
        return (m[1], int(m[2])) if m else (item.image_path.name, 0)

    series: dict[str, list] = {}
    for item in sorted(items, key=key):
        series.setdefault(key(item)[0], []).append(item)
    train, held = [], []
    for members in series.values():
        for rank, item in enumerate(members):
            (held if (rank // block) % every == every // 2 else train).append(item)
    return train, held
