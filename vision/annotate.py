"""The reading drawn over the photo: tile outlines, codes, and each group framed in its colour.

Valid sets green, invalid red, unsure orange (with its doubtful tiles
outlined in orange), rack rows purple with their total ("+?" after it when the
row runs past the photo's edge).

Line widths and text sizes follow the tiles' size in the picture, so the
drawing stays readable on a 640x480 webcam frame and on a 4032x3024 photo.
An inferred tile is drawn in yellow with a '?' after its code.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import tile_frames
from vision.reader import TableReading

VALID = (60, 190, 40)  # BGR green
INVALID = (40, 40, 220)  # BGR red
TILE = (230, 160, 30)  # BGR blue outline of each tile
INFERRED = (0, 215, 255)  # BGR yellow
UNSURE = (0, 140, 255)  # BGR orange: the verdict hangs on a doubtful tile
RACK = (200, 60, 170)  # BGR purple: a row of tiles on a rack (not judged, totalled)
COLOURS = {"valid": VALID, "invalid": INVALID, "unsure": UNSURE, "rack": RACK}
FONT = cv2.FONT_HERSHEY_SIMPLEX


def annotate(image: np.ndarray, reading: TableReading) -> np.ndarray:
    """A copy of ``image`` with the reading drawn on it."""
    out = image.copy()
    d = reading.detections
    h_img, w_img = out.shape[:2]
    frames = tile_frames(d.quads) if len(d) else None
    tile_h = float(np.median(frames.heights)) if frames is not None else max(h_img, w_img) / 20
    tile_w = float(np.median(frames.widths)) if frames is not None else tile_h * 0.75
    thick = max(1, round(tile_h / 40))
    # a three-character code fills about 85% of a tile's width
    (unit_w, _), _ = cv2.getTextSize("R13", FONT, 1.0, thick)
    font_scale = max(0.3, 0.85 * tile_w / unit_w)

    doubtful = {i for s in reading.sets for i in getattr(s, "doubtful", ())}
    for s in reading.sets:
        colour = COLOURS[_status(s)]
        pts = d.quads[s.indices].reshape(-1, 2)
        hull = cv2.convexHull(pts.astype(np.float32))
        pad = tile_h * 0.12
        center = pts.mean(axis=0)
        grown = center + (hull.reshape(-1, 2) - center) * (1 + pad / max(tile_h, 1.0))
        cv2.polylines(out, [np.round(grown).astype(np.int32)], True, colour, thick * 2, cv2.LINE_AA)
        label = _set_label(s)
        x0, y0 = grown.min(axis=0)
        _text(out, label, (int(x0), int(y0 - thick * 3)), font_scale, colour, thick)

    for i, code in enumerate(d.codes):
        quad = np.round(d.quads[i]).astype(np.int32)
        inferred = bool(d.inferred[i])
        edge = INFERRED if inferred else UNSURE if i in doubtful else TILE
        cv2.polylines(out, [quad], True, edge, thick * (2 if i in doubtful else 1), cv2.LINE_AA)
        bottom = (d.quads[i][2] + d.quads[i][3]) / 2
        center = d.quads[i].mean(axis=0)
        spot = center + (bottom - center) * 0.6  # the code sits low on the face, below the numeral
        text = code + ("?" if inferred else "")
        _text(out, text, tuple(spot), font_scale, INFERRED if inferred else (255, 255, 255), thick, centred=True)
    return out


def _status(s) -> str:
    """The set's status; a set reading kept from before racks and unsure sets is valid or invalid."""
    return getattr(s, "status", "valid" if s.valid else "invalid")


def _set_label(s) -> str:
    status = _status(s)
    if status == "valid":
        return f"{s.kind or 'set'} {s.value}"
    if status == "rack":  # "+?": the row runs past the photo's edge, its total may leave out tiles
        return f"rack {s.value}" + ("+?" if s.past_edge else "")
    return status


def _text(image, text, origin, scale, colour, thick, centred=False) -> None:
    """Text with a dark outline so it reads on ivory tiles and dark tables alike."""
    (tw, th), _ = cv2.getTextSize(text, FONT, scale, thick)
    x, y = origin
    if centred:
        x, y = x - tw / 2, y + th / 2
    h, w = image.shape[:2]
    x = int(min(max(x, 0), max(w - tw, 0)))
    y = int(min(max(y, th + 1), h - 1))
    cv2.putText(image, text, (x, y), FONT, scale, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(image, text, (x, y), FONT, scale, colour, thick, cv2.LINE_AA)


__all__ = ["annotate"]
