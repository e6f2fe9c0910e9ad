"""The "Teach your tiles" screen: the camera's view of the layout becomes the active tile profile.

Self-contained (one blueprint, one template): the work is
:func:`vision.calibration.teach_layout`; the profile is kept in the data
folder beside the database, where ``rummikub-companion serve`` loads it at
the next start.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, current_app, render_template, request

bp = Blueprint("teach", __name__)


def profile_path() -> Path:
    from vision.profile import ACTIVE_NAME

    return Path(current_app.config["DATABASE"]).parent / ACTIVE_NAME


def _frame():
    """The uploaded photo, else the camera's newest frame."""
    from vision.images import decode_image

    upload = request.files.get("photo")
    if upload is not None and upload.filename:
        return decode_image(upload.read(), name=upload.filename, max_side=2048)
    live = current_app.extensions["companion"].live
    buffer = getattr(live, "buffer", None)
    frame = buffer.get_newer(0, timeout=2.0) if buffer is not None else None
    if frame is None:
        raise LookupError("no camera picture yet: check the camera, or upload a photo of the layout")
    return frame.image


def _model():
    live = current_app.extensions["companion"].live
    reader = getattr(live, "reader", None)
    if reader is None:
        raise LookupError("the tile reader is not loaded yet; try again in a few seconds")
    return reader.model


@bp.route("/teach", methods=["GET", "POST"])
def teach():
    from vision.calibration import LAYOUT, CalibrationError, teach_layout
    from rules.tiles import Tile

    rows = [[Tile.from_index(i).code for i in row] for row in LAYOUT]
    result = error = None
    if request.method == "POST":
        try:
            result = teach_layout(_model(), _frame(), profile_path())
        except (CalibrationError, LookupError, ValueError) as exc:
            error = str(exc)
    return render_template("teach.html", rows=rows, result=result, error=error, active=profile_path().exists())
