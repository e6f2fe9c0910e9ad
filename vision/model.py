"""The tile model at run time: ONNX segmenter finds tile outlines, ONNX classifier reads them.

Only onnxruntime, OpenCV and numpy. Everything the two networks were trained
with (sizes, core ratio, crop margin, class names) comes from model.json.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np
import onnxruntime as ort

from rules.tiles import Tile
from vision.clutter import kept_finds
from vision.crops import context_crop, order_upright, turn_upright, warp_crop
from vision.geometry import FACE_ASPECT, projected, squashed_table, table_view
from vision.profile import ProfileError, TileProfile, classifier_id, default_profile, softmax
from vision.racks import rack_rows
from vision.recover import beside_places, in_holes, quads_along, uncovered_places, wide_outlines
from vision.types import TileDetections

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "models"
SMALL_TILE = 26  # px tall at the detector's scale: below this a big photo is looked at closer
MAX_SIDE = 2048  # largest side the detector is ever run at (time and memory)
ENLARGE = 2.0  # a photo whose tiles are tiny is looked at again enlarged up to this much
# tiles below this many px tall at the detector's scale run together where they touch and are
# outlined loosely: the places found are outlined again from a look where tiles are CLOSER_TILE tall
RUN_TOGETHER = 50
CLOSER_TILE = 64
SURE = 0.9  # below this confidence a crop is read a second time, turned half a turn
CLOSE_UP = 0.3  # a photo with no tile found is looked at again this small (share of the detector's side)
FEW = 4  # at most this many tiles found: the photo may be a close-up the first look missed or misread
LARGE = 0.25  # a tile at least this share of the photo's short side tall
SQUARE = 1.2  # an outline whose sides differ less than this may be a tile seen either way round
# an outline up to this much taller than wide may still be a face seen sideways: a tile foreshortened
# by a low camera (a face 0.75 as wide as tall, seen at 40 degrees, is wider than tall)
OBLONG = 2.0
TURNED_MARGIN = 0.2  # ...read turned a quarter only when that reading is this much surer
LOW_CAMERA = 0.5  # when this share of the faces tried turned (two or more) read better so, the photo was taken from low
ODD_MARGIN = 0.2  # a square outline across all its neighbours is read turned unless that is this much less sure
# ...and is read turned a quarter only when its first reading is less sure than this (face confidence
# times how sure it is which way is up): on training photos and rendered racks no turned reading that
# changed a code had a first reading above 0.93, while most upright tiles read above it
SURE_UPRIGHT = 0.95
DIAMOND_OFF = (20.0, 70.0)  # degrees between an outline's axes and those of every tile beside it: drawn as a diamond
# an outline first read as no tile and read again (turned a quarter, or laid as its neighbour lies) is a
# tile only when read again this surely (laid as a neighbour, 0.8 turned two score-sheet digits into tiles)
AGAIN_SURE = 0.95
RECOVERED = 0.8  # a place the outlines missed holds a tile only when the classifier reads one this surely
HOLE_OUTLINE = 0.7  # an outline turned down by the classifier fills a hole in a line when outlined this surely...
HOLE_REJECT = 0.9  # ...and the classifier's "no tile" is less sure than this
KEEP_FLAT = 0.8  # the look from above is kept only when it finds at least this share of the tiles the first found
# ...and a tile the first look read this surely that the look from above lost is kept as first read
KEPT_AS_SHOWN = 0.7


class Outlines(NamedTuple):
    """What one look of the detector found: outlines and scores in image pixels, and its face map
    (tile face probability on the detector's output grid, ``scale`` of its pixels per image pixel)."""

    quads: np.ndarray
    scores: np.ndarray
    face: np.ndarray
    scale: float


def default_model_dir() -> Path:
    """The models/ folder of this installation (repository checkout or installed package)."""
    try:
        from importlib.resources import files

        path = Path(str(files("models")))
        if (path / "model.json").exists():
            return path
    except (ModuleNotFoundError, TypeError):
        pass
    return DEFAULT_DIR


class ModelMissingError(FileNotFoundError):
    """The .onnx files or model.json are not where they should be."""


class TileModel:
    """Finds and reads every face-up tile in a BGR image."""

    def __init__(self, model_dir: str | Path, threads: int | None = None,
                 core_threshold: float = 0.5, min_score: float = 0.05, second_look: bool = True,
                 profile: TileProfile | str | Path | None = None, recover: bool = True):
        """``profile``: a box's tile profile (file or object); None: the process default
        (:func:`vision.profile.set_default_profile`), usually none."""
        model_dir = Path(model_dir)
        meta_path = model_dir / "model.json"
        if not meta_path.exists():
            raise ModelMissingError(f"{meta_path}: no model here (train one with 'python -m models.train')")
        self.meta = json.loads(meta_path.read_text())
        self.model_dir = model_dir
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # idle onnxruntime threads would spin and slow the OpenCV and numpy work between runs
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        det, cls = self.meta["detector"], self.meta["classifier"]
        self.detector = ort.InferenceSession(str(model_dir / det["file"]), options, providers=["CPUExecutionProvider"])
        self.classifier = ort.InferenceSession(str(model_dir / cls["file"]), options, providers=["CPUExecutionProvider"])
        gate = self.meta.get("clutter")  # optional: models without one keep every find the classifier reads
        if gate and not (model_dir / gate["file"]).exists():
            raise ModelMissingError(f"{model_dir / gate['file']}: model.json names a clutter gate that is not there")
        self.clutter = (ort.InferenceSession(str(model_dir / gate["file"]), options, providers=["CPUExecutionProvider"])
                        if gate else None)
        self.clutter_crop = (int(gate["size"]), float(gate["context"])) if gate else None
        self.base_side = int(det["base_side"])
        self.stride = int(det["stride"])
        self.core_ratio = float(det["core_ratio"])
        self.multiple = int(det.get("multiple", 32))
        self.crop_size = (int(cls["width"]), int(cls["height"]))
        self.margin = float(cls["margin"])
        self.reject = len(self.meta["classes"]) - 1
        self.core_threshold = core_threshold
        self.min_score = min_score
        self.second_look = second_look  # read unsure crops turned half a turn too, and average
        self.recover = recover  # look for tiles the outlines missed (vision.recover)
        self.classifier_id = classifier_id(model_dir / cls["file"])
        self.has_features = "features" in [o.name for o in self.classifier.get_outputs()]
        self.profile: TileProfile | None = None
        self.set_profile(profile if profile is not None else default_profile())

    def set_profile(self, profile: TileProfile | str | Path | None) -> None:
        """Read faces with a box's own face layer (a profile file or object), or with the shipped one (None)."""
        if profile is not None and not isinstance(profile, TileProfile):
            profile = TileProfile.load(profile)
        if profile is not None:
            if not self.has_features:
                raise ProfileError("this classifier has no 'features' output, so it cannot use a profile "
                                   "(export it again with models/export.py)")
            if profile.classifier != self.classifier_id:
                raise ProfileError("the profile was made for another classifier; calibrate again with this model")
        self.profile = profile

    @classmethod
    def load(cls, model_dir: str | Path | None = None, **kwargs) -> "TileModel":
        return cls(model_dir or default_model_dir(), **kwargs)

    # ------------------------------------------------------------------ steps

    def find_outlines(self, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Tile outlines (N, 4, 2) in image pixels, upright-or-upside-down, and their detection scores.

        The photo is seen with its long side at ``base_side``; when that leaves
        its tiles tiny (or shows none), it is looked at again closer up: a big
        photo at up to its own size, a small one enlarged up to ENLARGE times
        (tiles about 20 px tall in a 1000x750 photo come out too small for the
        detector at ``base_side``).  Tiles a little bigger than that (below
        RUN_TOGETHER) are found but outlined loosely, touching ones as one:
        the places found are outlined again from a closer look.
        """
        look = self._look(image)
        return look.quads, look.scores

    def _look(self, image: np.ndarray) -> Outlines:
        """:meth:`find_outlines` with the face map of the look kept."""
        look = self._outlines_at(image, self.base_side)
        long_side = max(image.shape[:2])
        heights = _outline_heights(look.quads) * self.base_side / long_side
        # by area: a few specks (bits of tiles far larger than the detector learned) do not
        # make big tiles small
        typical = _area_median(heights, look.quads) if len(heights) else 0.0
        if not len(heights) or typical < SMALL_TILE:
            zoom = SMALL_TILE * 2 / typical if len(heights) else 2.5
            limit = long_side if long_side > 1.5 * self.base_side else ENLARGE * long_side
            side = int(min(limit, MAX_SIDE, self.base_side * zoom))
            if side > 1.2 * self.base_side:
                closer = self._outlines_at(image, side)
                if len(closer.quads) > len(look.quads):
                    look = closer
        elif typical < RUN_TOGETHER:
            side = int(min(MAX_SIDE, self.base_side * CLOSER_TILE / typical))
            if side > 1.2 * self.base_side:
                look = _outlined_closer(look, self._outlines_at(image, side))
        return look

    def _outlines_at(self, image: np.ndarray, side: int) -> Outlines:
        h, w = image.shape[:2]
        scale = side / max(h, w)
        sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
        pw, ph = -(-sw // self.multiple) * self.multiple, -(-sh // self.multiple) * self.multiple
        small = cv2.resize(image, (sw, sh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        canvas = small if (pw, ph) == (sw, sh) else cv2.copyMakeBorder(small, 0, ph - sh, 0, pw - sw,
                                                                       cv2.BORDER_CONSTANT, value=0)
        # NCHW float RGB in [0, 1], as cv2.dnn.blobFromImage makes it bit for bit in half the time: the
        # bytes are put in order first (a contiguous input also spares onnxruntime a copy)
        x = np.ascontiguousarray(canvas[:, :, ::-1].transpose(2, 0, 1))[None].astype(np.float32)
        x *= np.float32(1 / 255)
        maps = self.detector.run(None, {"image": x})[0][0]
        probs = 1 / (1 + np.exp(-maps))  # (2, ph/stride, pw/stride): face, core (face guides training only)
        # back to model-input pixels so outlines are not stuck on the stride grid
        core = cv2.resize(probs[1], (pw, ph), interpolation=cv2.INTER_LINEAR)[:sh, :sw]
        mask = (core > self.core_threshold).astype(np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        quads, scores = [], []
        for contour in contours:
            if cv2.contourArea(contour) < 6:
                continue
            x0, y0, bw, bh = cv2.boundingRect(contour)
            score = float(core[y0:y0 + bh, x0:x0 + bw][mask[y0:y0 + bh, x0:x0 + bw] > 0].mean())
            for rect in split_merged_core(cv2.minAreaRect(contour), self.core_ratio, core):
                quads.append(order_upright(cv2.boxPoints(rect) / scale))
                scores.append(score)
        face = probs[0][:-(-sh // self.stride), :-(-sw // self.stride)]  # kept on the stride grid: only holes use it
        return Outlines(np.array(quads, dtype=np.float32).reshape(-1, 4, 2), np.array(scores, dtype=np.float32),
                        face, scale / self.stride)

    def classify(self, image: np.ndarray, quads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(face probabilities (N, 54), upside-down probability (N,)) for upright-ordered quads.

        With ``second_look``, a crop read with less than ``SURE`` confidence
        (face or orientation) is read again turned half a turn, where it shows
        the same tile, and the two readings are averaged: the second opinion
        where it matters, without paying for it on every tile.
        """
        if not len(quads):
            return np.zeros((0, self.reject + 1), np.float32), np.zeros(0, np.float32)
        crops = np.stack([warp_crop(image, q, self.crop_size, self.margin) for q in quads])
        face, upside_down = self._read_crops(crops)
        if self.second_look:
            unsure = np.nonzero((face.max(axis=1) < SURE) | (np.abs(upside_down - 0.5) < SURE - 0.5))[0]
            if len(unsure):
                face2, upside_down2 = self._read_crops(crops[unsure][:, ::-1, ::-1])
                face[unsure] = (face[unsure] + face2) / 2
                upside_down[unsure] = (upside_down[unsure] + 1 - upside_down2) / 2
        return face, upside_down

    def _read_crops(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        face, flip, features = self.read_crops_raw(crops)
        probs = softmax(face) if self.profile is None else self.profile.probabilities(face, features)
        return probs, softmax(flip)[:, 1]

    def read_crops_raw(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The shipped classifier's face and flip logits and its features (None without that output)."""
        x = cv2.dnn.blobFromImages(crops, 1 / 255.0, swapRB=True)  # as the detector's input: NCHW RGB in [0, 1]
        out = self.classifier.run(None, {"image": x})
        return out[0], out[1], (out[2] if len(out) > 2 else None)

    def face_layer(self) -> tuple[np.ndarray, np.ndarray]:
        """(weight, bias) of the shipped classifier's face layer, the start of every profile.

        Exported beside the classifier (``face_layer`` in model.json), so no
        ONNX parser is needed at run time.
        """
        name = self.meta["classifier"].get("face_layer")
        if not name or not (self.model_dir / name).exists():
            raise ProfileError(f"{self.model_dir}: no face layer file beside the classifier (export it again)")
        with np.load(self.model_dir / name, allow_pickle=False) as data:
            return data["weight"].astype(np.float32), data["bias"].astype(np.float32)

    def feature_bank(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(features, classes) of training crops computed with this classifier, or None if absent or stale."""
        name = self.meta["classifier"].get("feature_bank")
        if not name or not (self.model_dir / name).exists():
            return None
        with np.load(self.model_dir / name, allow_pickle=False) as data:
            if bytes(data["classifier"]).decode() != self.classifier_id:
                return None
            return data["features"].astype(np.float32), data["labels"].astype(np.int64)

    def detect(self, image: np.ndarray) -> TileDetections:
        """Every face-up tile: quads in reading order, tile index, confidence.  A table photographed
        from low down is looked at again as seen from above (:meth:`_detect_from_above`); what the
        clutter gate calls clutter is left out (:mod:`vision.clutter`)."""
        if image is None or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
            raise ValueError("expected a BGR colour image (H, W, 3)")
        found = self._detect_as_shown(image)
        stretch = squashed_table(found.quads)
        if stretch is not None:
            standing = np.zeros(len(found), bool)
            standing[[t for row in rack_rows(found.quads, image) for t in row]] = True
            above = self._detect_from_above(image, found, table_view(found.quads[~standing], image.shape, stretch))
            if above is not None:
                found = _with_lost(found, _racks_as_shown(found, standing, _surer(found, above)))
        # a tile filling much of the photo is a close-up of it, not clutter beside the game
        kept = kept_finds(found.quads, self.tile_chance(image, found.quads)) | _large(found, image)
        return self._upright_on_racks(image, found[np.nonzero(kept)[0]])

    def _upright_on_racks(self, image: np.ndarray, found: TileDetections) -> TileDetections:
        """``found`` with each tile of a rack row outlined a quarter turn from the row's other tiles
        read again standing as they stand, keeping that reading unless it is ODD_MARGIN less sure.
        A rack holds its tiles upright: read sideways, a 3 or a 9 on it comes out a 10."""
        q = found.quads
        up, sides, dist = _layout(q)
        near = dist < 1.6 * np.sqrt(sides[:, 0] * sides[:, 1])[:, None]
        if not (near & (np.abs(up @ up.T) < 0.5)).any():
            return found  # no tile lies across a tile beside it: no rack to look for
        rows = [row for row in rack_rows(q, image) if len(row) >= 3]
        odd, laid = [], []
        for row in rows:
            ref = up[row].sum(axis=0)  # most tiles of a row stand the right way up
            for t in row:
                if abs(float(up[t] @ ref)) < 0.5 * np.linalg.norm(ref):
                    odd.append(t)
                    laid.append(np.roll(q[t], 1, axis=0))  # either quarter: the classifier tells which way is up
        if not odd:
            return found
        laid = np.array(laid, np.float32)
        probs, upside_down = self.classify(image, laid)
        ids = probs[:, :self.reject].argmax(axis=1)
        first = found.probs[odd].max(axis=1)
        better = (probs.argmax(axis=1) != self.reject) & (probs[:, :-1].max(axis=1) > first - ODD_MARGIN)
        if not better.any():
            return found
        found = found[np.arange(len(found))]
        at = np.array(odd)[better]
        found.quads[at] = turn_upright(laid[better], upside_down[better])
        found.class_ids[at] = ids[better]
        found.scores[at] = probs[better, ids[better]]
        found.probs[at] = probs[better, :self.reject]
        return found

    def tile_chance(self, image: np.ndarray, quads: np.ndarray) -> np.ndarray:
        """The clutter gate's chance that each outline is a tile, seen with its surroundings (all 1
        without a gate)."""
        quads = np.asarray(quads, np.float32).reshape(-1, 4, 2)
        if self.clutter is None or not len(quads):
            return np.ones(len(quads), np.float32)
        size, context = self.clutter_crop
        crops = [context_crop(image, q, size, context) for q in quads]
        logits = self.clutter.run(None, {"image": cv2.dnn.blobFromImages(crops, 1 / 255.0, swapRB=True)})[0]
        return (1 / (1 + np.exp(-logits.astype(np.float64)))).astype(np.float32)

    def _detect_as_shown(self, image: np.ndarray) -> TileDetections:
        """:meth:`detect` on the photo as the camera shows it."""
        look = self._look(image)
        found = self._read_outlines(image, look.quads, look.scores)
        if len(found) > FEW:
            return self._recover(image, found, look)
        if len(look.quads) >= 3 and len(found) < len(look.quads) / 2:
            # outlines found but mostly not readable: tiles too small to read at this scale
            side = int(min(MAX_SIDE, ENLARGE * max(image.shape[:2])))
            if side > 1.2 * self.base_side:
                closer = self._outlines_at(image, side)
                again = self._read_outlines(image, closer.quads, closer.scores)
                if len(again) > len(found):
                    look, found = closer, again
                    if len(found) > FEW:
                        return self._recover(image, found, look)
        found = self._recover(image, found, look)
        close = self._detect_close_up(image)
        big = close[_large(close, image)]
        if not len(big):
            return found
        # the big tiles win over whatever the first look made of their parts
        return TileDetections.concat([big, found[_outside(found, big.quads)]])

    def _detect_from_above(self, image: np.ndarray, found: TileDetections, view: np.ndarray) -> TileDetections | None:
        """The tiles found again in the photo shown as seen from above by the 3x3 map ``view``
        (``vision.geometry.table_view``), or None when that look loses tiles.

        From a seat at the table the camera squashes every face lying on it
        along the line of sight, the far ones most: outlines come out too
        short or askew, tiles of a set run together, an 11 reads as a 4.  The
        detector looks again at the photo mapped back to a view from above as
        the faces lying on the table say, and the outlines it finds are mapped
        back onto the photo.
        """
        flat, back = _seen_from_above(image, view)
        again = self._detect_as_shown(flat)
        if len(again) < KEEP_FLAT * len(found):  # the stretched photo lost tiles: the first look stays
            return None
        again.quads = projected(again.quads, back).astype(np.float32)
        return again

    def _detect_close_up(self, image: np.ndarray) -> TileDetections:
        """No tile found: the photo may be one tile filling the frame, far larger than any tile the
        detector learned.  It is looked at again shrunk onto a canvas padded with its own edges, and
        what is found there is mapped back to the photo."""
        h, w = image.shape[:2]
        side = self.base_side
        scale = CLOSE_UP * side / max(h, w)
        small = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
        sh, sw = small.shape[:2]
        top, left = (side - sh) // 2, (side - sw) // 2
        canvas = cv2.copyMakeBorder(small, top, side - sh - top, left, side - sw - left, cv2.BORDER_REPLICATE)
        quads, det_scores = self._outlines_at(canvas, side)[:2]
        found = self._read_outlines(canvas, quads, det_scores)
        if not len(found):
            return found
        found.quads = (found.quads - np.array([left, top], np.float32)) / np.float32(scale)
        return found

    def classify_outlines(self, image: np.ndarray, quads: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(quads, face probabilities, upside-down probability): :meth:`classify`, with outlines not
        read surely also read turned a quarter, keeping the surer reading and its corner order.

        ``order_upright`` takes an outline's long side for the face's height.
        A tile standing on a rack shows only the top of its face above the
        ledge, so its outline is about as wide as tall, and a tile seen from a
        low camera is foreshortened until it is wider than tall; either way
        the crop may be read sideways, where it can look like another number
        (a 3 turned a quarter reads as 10).  A nearly square outline keeps the
        surer reading; a clearly oblong one is turned only when that reading is
        surer by ``TURNED_MARGIN``, unless half or more of the faces tried (two
        or more) read better turned:
        then the whole photo was taken from low, and every oblong outline keeps
        whichever of its two readings is surer.  A nearly square outline that
        comes out a quarter turn from every tile beside it is read turned too, and one read as no tile
        (a two-digit face read sideways) is that tile when read turned ``AGAIN_SURE`` surely.
        An outline lying about 45 degrees off every tile beside it (``_diamonds``)
        is read again laid as its nearest neighbour lies, and keeps the surer reading.
        """
        probs, upside_down = self.classify(image, quads)
        quads = quads.copy()
        sides = _outline_sides(quads)
        ratio = sides.max(axis=1) / np.maximum(sides.min(axis=1), 1e-6)
        # a face read sideways is usually less sure of its face and of which way is up
        sure = lambda p, u: p[:, :-1].max(axis=1) * (0.5 + np.abs(u - 0.5))  # noqa: E731
        first = sure(probs, upside_down)

        def turned(idx: np.ndarray) -> tuple:
            """(quads, probabilities, upside-down, sureness) of these outlines read turned a quarter,
            the left edge becoming the top; the sureness is -1 where the turned crop reads as no tile
            (a turned reading of no tile is never kept: a tile outlined is not lost by turning it)."""
            q = np.roll(quads[idx], 1, axis=1)
            p, u = self.classify(image, q)
            return q, p, u, np.where(p.argmax(axis=1) != self.reject, sure(p, u), -1.0)

        def keep(idx: np.ndarray, reading: tuple, won: np.ndarray) -> None:
            quads[idx[won]], probs[idx[won]], upside_down[idx[won]] = (x[won] for x in reading[:3])

        # an outline first read as no tile is not tried here (turned, a bit of table can pass for a
        # tile), only below, where the turned reading must be sure
        oblong = (ratio < OBLONG) & (probs.argmax(axis=1) != self.reject)
        tried = np.nonzero(oblong & (first < SURE_UPRIGHT))[0]
        if len(tried):
            reading = turned(tried)
            # an oblong face is read the long way first: turning it must be clearly better...
            better = reading[3] > first[tried] + np.where(ratio[tried] < SQUARE, 0.0, TURNED_MARGIN)
            if len(better) >= 2 and better.mean() >= LOW_CAMERA:
                # ...unless half the faces turn out sideways: the photo was taken from low, and no outline's
                # long side says which way its face stands
                better = reading[3] > first[tried]
                rest = np.setdiff1d(np.nonzero(oblong)[0], tried)
                if len(rest):
                    again = turned(rest)
                    keep(rest, again, again[3] > first[rest])
            keep(tried, reading, better)
        # an outline read as no tile may be a two-digit face seen sideways (the crop shows neither
        # numeral whole): turned a quarter, one read surely as a tile is that tile
        lost = np.nonzero((ratio < OBLONG) & (probs.argmax(axis=1) == self.reject))[0]
        if len(lost):
            reading = turned(lost)
            keep(lost, reading, reading[1][:, :-1].max(axis=1) >= AGAIN_SURE)
        # a nearly square outline read a quarter turn from every tile beside it (a 3 read sideways as
        # a 10 in a row of upright tiles) keeps its turned reading unless that is much less sure
        odd = _odd_turns(quads, ratio, probs.argmax(axis=1) != self.reject)
        if len(odd):
            reading = turned(odd)
            keep(odd, reading, reading[3] > sure(probs[odd], upside_down[odd]) - ODD_MARGIN)
        # an outline about 45 degrees off every tile beside it was drawn inside a face, not round it:
        # its crop cuts the numeral's ends off (a 7 reads as 1); read again laid as its neighbour lies
        tile = probs.argmax(axis=1) != self.reject
        askew, laid = _diamonds(quads, tile)
        if len(askew):
            p, u = self.classify(image, laid)
            reading = (laid, p, u)
            # one first read as no tile (a two-digit face cut to its middle) is a tile only when read surely so
            keep(askew, reading, (p.argmax(axis=1) != self.reject) & np.where(
                tile[askew], sure(p, u) > sure(probs[askew], upside_down[askew]),
                p[:, :-1].max(axis=1) >= AGAIN_SURE))
        return quads, probs, upside_down

    def _read_outlines(self, image: np.ndarray, quads: np.ndarray, det_scores: np.ndarray) -> TileDetections:
        """Read every outline found and keep those read as tiles."""
        if not len(quads):
            return TileDetections.empty()
        quads, probs, upside_down = self.classify_outlines(image, quads)
        ids = probs.argmax(axis=1)
        keep = ids != self.reject
        scores = probs[np.arange(len(ids)), ids] * np.clip(det_scores, 0, 1)
        keep &= scores >= self.min_score
        quads = turn_upright(quads, upside_down)
        return TileDetections(quads[keep], ids[keep], scores[keep], probs=probs[keep, :self.reject])

    def _recover(self, image: np.ndarray, found: TileDetections, look: Outlines) -> TileDetections:
        """``found`` with the tiles its outlines missed (``vision.recover``): tile face no outline
        covers, faint face one step beside a tile, and outlines about two tiles wide cut in two, each
        kept only where the classifier surely reads a tile there (two for a wide outline); then the
        outlines it turned down that fill a hole in a line of tiles."""
        if not self.recover or not len(found):
            return found
        return self._holes(image, self._missed(image, found, look), look)

    def _holes(self, image: np.ndarray, found: TileDetections, look: Outlines) -> TileDetections:
        """``found`` with each outline the classifier turned down (or read too unsurely to keep) that
        stands in a line one tile from a tile on each side (``vision.recover.in_holes``): a tile of
        a set seen too small, dim or covered to read.  Read again laid as its neighbours lie, it is
        kept as its likeliest tile with the score that reading earned, so an unsure one is read in
        the context of its set (O9 O10 ? O12 -> O11, marked inferred) or leaves the set unsure,
        instead of two pieces shown invalid."""
        picked, laid = in_holes(look.quads[look.scores >= HOLE_OUTLINE], found.quads)
        if not picked:
            return found
        quads, probs, upside_down = self.classify_outlines(image, laid)
        ids = probs[:, :self.reject].argmax(axis=1)
        scores = probs[np.arange(len(ids)), ids]
        keep = probs[:, self.reject] < HOLE_REJECT
        if not keep.any():
            return found
        quads = turn_upright(quads, upside_down)
        return TileDetections.concat([found, TileDetections(quads[keep], ids[keep], scores[keep],
                                                            probs=probs[keep, :self.reject])])

    def _missed(self, image: np.ndarray, found: TileDetections, look: Outlines) -> TileDetections:
        """:meth:`_recover`'s places the outlines missed and wide outlines cut in two."""
        places = uncovered_places(look.face, look.scale, found.quads)
        places += beside_places(look.face, look.scale, found.quads, image.shape[:2], taken=places)
        wide, halves = wide_outlines(found.quads)
        if not places and not wide:
            return found
        quads = np.array([order_upright(p) for p in places + halves], np.float32).reshape(-1, 4, 2)
        probs, upside_down = self.classify(image, quads)
        ids = probs.argmax(axis=1)
        scores = probs[np.arange(len(ids)), ids]
        sure = (ids != self.reject) & (scores >= RECOVERED)
        quads = turn_upright(quads, upside_down)
        add = list(np.nonzero(sure[:len(places)])[0])
        drop = []
        for k, i in enumerate(wide):
            a, b = len(places) + 2 * k, len(places) + 2 * k + 1
            if sure[a] and sure[b] and not _digits_of(int(found.class_ids[i]), int(ids[a]), int(ids[b])):
                add += [a, b]
                drop.append(i)
        if not add:
            return found
        keep = np.setdiff1d(np.arange(len(found)), drop)
        add = np.array(add, dtype=np.int64)
        return TileDetections.concat([found[keep], TileDetections(quads[add], ids[add], scores[add],
                                                                  probs=probs[add, :self.reject])])


def _racks_as_shown(shown: TileDetections, standing: np.ndarray, above: TileDetections) -> TileDetections:
    """The tiles seen from above, except those ``standing`` on a rack, which keep the photo's own
    look: a rack holds its tiles up towards the camera, so they are not squashed as the table
    is, and stretching them with the table would lose their rack."""
    if not standing.any():
        return above
    return TileDetections.concat([shown[standing], above[_outside(above, shown.quads[standing])]])


def _with_lost(shown: TileDetections, above: TileDetections) -> TileDetections:
    """``above`` with each tile of the first look that it lost, where that look read it at least
    KEPT_AS_SHOWN surely (neither find holds the other's centre).

    One stretch flattens the table only on average: a set lying across it, or
    faces of a box the detector outlines only roughly, can come out of it too
    distorted to outline, while the photo as shown read them well.
    """
    lost = [k for k in _outside(shown, above.quads)
            if shown.scores[k] >= KEPT_AS_SHOWN and not any(_holds(shown.quads[k], c) for c in above.centers)]
    return TileDetections.concat([above, shown[np.array(lost, dtype=np.int64)]]) if lost else above


def _outlined_closer(first: Outlines, closer: Outlines) -> Outlines:
    """The first look's outlines, each replaced by those of the closer look whose centres it holds.

    Small tiles that touch run together into one outline at the first look,
    and every outline there is a few pixels loose; the closer look parts them
    and outlines them tighter, so the crops read better.  Only places the
    first look found are taken: what the closer look finds elsewhere is
    mostly printed digits on paper, which enlarged begin to look like tiles.
    """
    centres, first_centres = closer.quads.mean(axis=1), first.quads.mean(axis=1)
    reach = np.linalg.norm(first.quads - first_centres[:, None], axis=2).max(axis=1)
    owner = np.full(len(centres), -1)  # the first-look outline each closer outline replaces part of
    for k, c in enumerate(centres):
        # a loose outline may reach over its neighbour's centre: the nearest that holds it owns it
        distance = np.linalg.norm(first_centres - c, axis=1)
        near = np.flatnonzero(distance <= reach)
        owner[k] = next((i for i in near[np.argsort(distance[near])] if _holds(first.quads[i], c)), -1)
    if (owner < 0).all():
        return first
    quads, scores = [], []
    for i, (quad, score) in enumerate(zip(first.quads, first.scores)):
        inside = np.flatnonzero(owner == i)
        if len(inside):
            quads.extend(closer.quads[inside])
            scores.extend(closer.scores[inside])
        else:
            quads.append(quad)
            scores.append(score)
    return Outlines(np.array(quads, dtype=np.float32).reshape(-1, 4, 2), np.array(scores, dtype=np.float32),
                    closer.face, closer.scale)


def _holds(quad: np.ndarray, point: np.ndarray) -> bool:
    """The point lies inside the quad or on its edge."""
    return cv2.pointPolygonTest(quad.reshape(-1, 1, 2).astype(np.float32), (float(point[0]), float(point[1])),
                                False) >= 0


def _outside(found: TileDetections, quads: np.ndarray) -> np.ndarray:
    """Indices of the tiles of ``found`` whose centres lie in none of ``quads``."""
    return np.array([k for k, c in enumerate(found.centers) if not any(_holds(q, c) for q in quads)], dtype=np.int64)


def _surer(shown: TileDetections, above: TileDetections) -> TileDetections:
    """The tiles of the look from above, each read as the first look read it where that reading is
    surer (both outlines hold each other's centre): one stretch undoes a perspective's squash
    only on average, so the tiles nearest the camera may read better as shown.  The outlines
    stay those from above, turned to the first reading's corners, so a set's tiles are outlined
    alike."""
    if not len(above) or not len(shown):
        return above
    out = above[np.arange(len(above))]
    taken = set()
    for k in range(len(above)):
        same = next((j for j in range(len(shown)) if j not in taken and _holds(above.quads[k], shown.centers[j])
                     and _holds(shown.quads[j], above.centers[k])), None)
        if same is None or shown.scores[same] <= above.scores[k]:
            continue
        taken.add(same)
        turns = [np.roll(above.quads[k], r, axis=0) for r in range(4)]
        out.quads[k] = min(turns, key=lambda q: float(np.linalg.norm(q - shown.quads[same], axis=1).sum()))
        out.class_ids[k], out.scores[k], out.probs[k] = shown.class_ids[same], shown.scores[same], shown.probs[same]
    return out


def _seen_from_above(image: np.ndarray, view: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the photo under the 3x3 projective map ``view``, on a canvas holding all of it and about
    as many pixels; the 3x3 map from that canvas back to the photo).  Uncovered corners take
    the colour of the photo's rim."""
    h, w = image.shape[:2]
    corners = projected(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64), view)
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    size = np.maximum(hi - lo, 1.0)
    fit = min(1.0, float(np.sqrt(w * h / (size[0] * size[1]))))
    forward = np.array([[fit, 0, -lo[0] * fit], [0, fit, -lo[1] * fit], [0, 0, 1]]) @ view
    out = (max(1, int(np.ceil(size[0] * fit))), max(1, int(np.ceil(size[1] * fit))))
    rim = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    fill = tuple(float(v) for v in np.median(rim, axis=0))
    flat = cv2.warpPerspective(image, forward, out, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=fill)
    return flat, np.linalg.inv(forward)


def _digits_of(whole: int, a: int, b: int) -> bool:
    """The two halves read the two digits of the whole outline's two-digit tile (O13 cut into O1 and
    O3): one tile outlined wide, not two tiles outlined as one."""
    whole_tile, a_tile, b_tile = (Tile.from_index(i) for i in (whole, a, b))
    if any(t.is_joker for t in (whole_tile, a_tile, b_tile)) or not whole_tile.color == a_tile.color == b_tile.color:
        return False
    return whole_tile.number > 10 and sorted((a_tile.number, b_tile.number)) == [1, whole_tile.number - 10]


def _odd_turns(quads: np.ndarray, ratio: np.ndarray, tile: np.ndarray) -> np.ndarray:
    """Nearly square outlines (sides within ``SQUARE``) whose up axis lies more than 60 degrees from
    that of every tile within 1.6 tile sizes of them: tiles side by side mostly face one way.  Two such
    outlines side by side, facing each other's way, count as one (O2 O3 both read sideways as 10s
    between an upright O1 and O4): each is odd when two tiles or more lie beside the pair, every one
    across it (one alone may be the odd one: the tile at the end of a line)."""
    if len(quads) < 2:
        return np.zeros(0, np.int64)
    up, sides, dist = _layout(quads)
    near = _tiles_beside(sides, dist, tile)
    cross = np.abs(up @ up.T) < 0.5  # more than 60 degrees apart
    square = (ratio < SQUARE) & tile
    alike = near & ~cross
    odd = square & near.any(axis=1) & ~alike.any(axis=1)
    for i, j in zip(*np.nonzero(np.triu(alike & square[:, None] & square[None]))):
        pair = np.zeros(len(quads), bool)
        pair[[i, j]] = True
        beside = (near[i] | near[j]) & ~pair
        if beside.sum() >= 2 and not ((alike[i] | alike[j]) & ~pair).any():
            odd[[i, j]] = True
    return np.nonzero(odd)[0]


def _diamonds(quads: np.ndarray, tile: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(outlines whose axes lie DIAMOND_OFF[0]-[1] degrees from those of every tile within 1.6 tile
    sizes of them, each one's quad laid as the nearest of those lies: its size and axes about the
    outline's centre).  Tiles side by side mostly face one way, and an outline inscribed in a face
    as a diamond is centred on it."""
    if len(quads) < 2:
        return np.zeros(0, np.int64), np.zeros((0, 4, 2), np.float32)
    up, sides, dist = _layout(quads)
    near = _tiles_beside(sides, dist, tile)
    cos = np.abs(up @ up.T)
    off = (cos < np.cos(np.deg2rad(DIAMOND_OFF[0]))) & (cos > np.cos(np.deg2rad(DIAMOND_OFF[1])))
    askew = np.nonzero(near.any(axis=1) & ~(near & ~off).any(axis=1))[0]
    laid = []
    for i in askew:
        j = int(np.argmin(np.where(near[i], dist[i], np.inf)))
        laid += quads_along(quads[i].mean(axis=0), quads[j, 1] - quads[j, 0], 1, 0.0, *sides[j])
    return askew, np.array(laid, np.float32).reshape(-1, 4, 2)


def _layout(quads: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(each outline's unit up axis, its top and left edges (``_outline_sides``), the distances
    between outline centres): what the looks at tiles beside one another measure."""
    up = (quads[:, 0] - quads[:, 3]) + (quads[:, 1] - quads[:, 2])
    up /= np.maximum(np.linalg.norm(up, axis=1, keepdims=True), 1e-9)
    centres = quads.mean(axis=1)
    return up, _outline_sides(quads), np.linalg.norm(centres[:, None] - centres[None], axis=2)


def _tiles_beside(sides: np.ndarray, dist: np.ndarray, tile: np.ndarray) -> np.ndarray:
    """near[i, j]: outline j is a tile (``tile``), not i, within 1.6 sizes (the larger of the two) of i."""
    size = np.sqrt(sides[:, 0] * sides[:, 1])
    return (dist < 1.6 * np.maximum(size[:, None], size[None])) & tile[None] & ~np.eye(len(dist), dtype=bool)


def _area_median(values: np.ndarray, quads: np.ndarray) -> float:
    """The median of ``values``, one per outline, each outline counted by its area."""
    a, b = quads[:, 1] - quads[:, 0], quads[:, 3] - quads[:, 0]
    areas = np.abs(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])
    order = np.argsort(values)
    cumulative = np.cumsum(areas[order])
    return float(values[order][np.searchsorted(cumulative, cumulative[-1] / 2)])


def _outline_sides(quads: np.ndarray) -> np.ndarray:
    """(N, 2): each outline's top edge and left edge."""
    if not len(quads):
        return np.zeros((0, 2))
    return np.stack([np.linalg.norm(quads[:, 1] - quads[:, 0], axis=1),
                     np.linalg.norm(quads[:, 3] - quads[:, 0], axis=1)], axis=1)


def _long_sides(quads: np.ndarray) -> np.ndarray:
    """Each outline's long side (its left edge: outlines are ordered with the long side vertical)."""
    return np.linalg.norm(quads[:, 3] - quads[:, 0], axis=1) if len(quads) else np.zeros(0, np.float32)


def _outline_heights(quads: np.ndarray) -> np.ndarray:
    """Tile heights the outlines suggest: an outline's long side, but no more than its short side
    allows.  Where tiles too small for this scale run together into one long outline, its long side
    is several tiles' widths and its short side about one tile's height, FACE_ASPECT of which is a
    face's width.  An outline of one tile keeps its long side, as does one about as wide as tall
    (a tile standing on a rack, its foot hidden by the ledge)."""
    if not len(quads):
        return np.zeros(0, np.float32)
    sides = _outline_sides(quads)
    return np.minimum(sides.max(axis=1), sides.min(axis=1) / FACE_ASPECT)


def _heights(d: TileDetections) -> np.ndarray:
    return _long_sides(d.quads)


def _large(d: TileDetections, image: np.ndarray) -> np.ndarray:
    """Which tiles stand at least ``LARGE`` of the photo's short side tall: a close-up's."""
    return _heights(d) >= LARGE * min(image.shape[:2])


def split_merged_core(rect, core_ratio: float, core: np.ndarray | None = None,
                      dip: float = 0.75) -> list:
    """Tile outlines (rotated rectangles) for one connected core region.

    A core is the face shrunk by ``core_ratio`` about its centre, so one core
    scaled back up is one tile. Cores of tiles laid edge to edge can still
    touch, making one long region with a saddle in the core probability
    between each two tiles. Along the region's long side the probability
    profile is read from ``core`` (the probability map the rect lives in);
    each dip below ``dip`` times the peaks on both sides is a boundary, and a
    region of ``n`` touching cores is cut into ``n`` equal tiles side by side
    (``long = width * (n - 1 + core_ratio)``).
    """
    (cx, cy), (rw, rh), angle = rect
    one = [((cx, cy), (rw / core_ratio, rh / core_ratio), angle)]
    long_side, short_side = max(rw, rh), min(rw, rh)
    if core is None or short_side < 3 or long_side < 1.6 * short_side:
        return one
    n = 1 + len(_profile_dips(_long_profile(core, rect), dip))
    if n < 2:
        return one
    width = long_side / (n - 1 + core_ratio)
    height = short_side / core_ratio
    theta = np.deg2rad(angle if rw >= rh else angle + 90)  # direction of the long side
    axis = np.array([np.cos(theta), np.sin(theta)])
    offsets = (np.arange(n) - (n - 1) / 2) * width
    size = (width, height) if rw >= rh else (height, width)
    return [((float(cx + o * axis[0]), float(cy + o * axis[1])), size, angle) for o in offsets]


def _long_profile(prob: np.ndarray, rect) -> np.ndarray:
    """Mean of ``prob`` across the rect's short side, at each pixel along its long side."""
    (cx, cy), (rw, rh), angle = rect
    if rw < rh:  # turn so the long side is horizontal
        rw, rh, angle = rh, rw, angle + 90
    matrix = cv2.getRotationMatrix2D((cx, cy), angle, 1.0)
    matrix[:, 2] += (rw / 2 - cx, rh / 2 - cy)
    patch = cv2.warpAffine(prob, matrix, (max(1, int(round(rw))), max(1, int(round(rh)))),
                           flags=cv2.INTER_LINEAR)
    profile = patch.mean(axis=0)
    return np.convolve(profile, np.ones(3) / 3, mode="same") if len(profile) > 4 else profile


def _profile_dips(profile: np.ndarray, dip: float) -> list[int]:
    """Valleys of the profile deeper than ``dip`` times the highest point on each side.

    A valley is a stretch below that level between two stretches above it; its
    lowest point is reported once, however flat the valley floor.
    """
    dips = []
    peak = 0.0  # highest point since the last valley
    low_at = None  # lowest point of the valley being crossed
    for i, v in enumerate(profile):
        if low_at is None:
            if peak > 0 and v < dip * peak:
                low_at = i
            peak = max(peak, v)
        elif v < profile[low_at]:
            low_at = i
        elif v * dip > profile[low_at]:  # climbed out: the valley is deep on both sides
            dips.append(low_at)
            low_at, peak = None, v
    return dips
