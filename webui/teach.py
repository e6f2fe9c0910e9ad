"""The "Teach your tiles" screen: the camera's view of known tiles becomes the active tile profile.

The tiles are the layout (one of each, in a fixed order) or whatever the
players type for the photo (a rack, a few sets).  Each lesson (its photo and
typed tiles) is kept in the data folder, and the profile is fitted on all of
them, so a box can be taught a rack at a time; "Forget" deletes them and
goes back to the shipped reading.

Self-contained (one blueprint, one template): the work is
:func:`vision.calibration.teach_from_frames`; the profile is kept in the data
folder beside the database, where ``rummikub-companion serve`` loads it at
the next start.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from flask import Blueprint, current_app, render_template, request

from webui.security import takes_photo

bp = Blueprint("teach", __name__)


def profile_path() -> Path:
    from vision.profile import ACTIVE_NAME

    return Path(current_app.config["DATABASE"]).parent / ACTIVE_NAME


LESSONS = "tile_lessons"  # the folder of lessons beside the profile
MOST_LESSONS = 12  # a new lesson past this many drops the oldest (each one is placed again every time)


def lessons_dir() -> Path:
    return profile_path().parent / LESSONS


def _lessons() -> list:
    """The lessons taught so far, oldest first (a lesson whose files are unreadable is left out)."""
    import cv2

    from vision.calibration import Lesson

    out = []
    for meta in sorted(lessons_dir().glob("*.json")):
        image = cv2.imread(str(meta.with_suffix(".jpg")))
        try:
            info = json.loads(meta.read_text())
        except (OSError, ValueError):
            continue
        if image is not None and isinstance(info, dict):
            out.append(Lesson(image, str(info.get("source", meta.stem)), str(info.get("typed", ""))))
    return out


def _keep(lesson) -> None:
    """Save the newest lesson and drop the oldest past MOST_LESSONS."""
    import cv2

    folder = lessons_dir()
    folder.mkdir(exist_ok=True)
    metas = sorted(folder.glob("*.json"))
    number = int(metas[-1].stem) + 1 if metas else 1
    cv2.imwrite(str(folder / f"{number:04d}.jpg"), lesson.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    (folder / f"{number:04d}.json").write_text(json.dumps({"source": lesson.source, "typed": lesson.typed}))
    for old in metas[:max(0, len(metas) + 1 - MOST_LESSONS)]:
        old.unlink(missing_ok=True)
        old.with_suffix(".jpg").unlink(missing_ok=True)


def _frame() -> tuple:
    """(the uploaded photo and its file name) else (the camera's newest frame, "camera")."""
    from vision.images import decode_image

    upload = request.files.get("photo")
    if upload is not None and upload.filename:
        return decode_image(upload.read(), name=upload.filename, max_side=2048), upload.filename
    live = current_app.extensions["companion"].live
    buffer = getattr(live, "buffer", None)
    frame = buffer.get_newer(0, timeout=2.0) if buffer is not None else None
    if frame is None:
        raise LookupError("no camera picture yet: check the camera, or upload a photo of the tiles")
    return frame.image, "camera"


def _reader():
    """The camera's reader, None until it has loaded."""
    return getattr(current_app.extensions["companion"].live, "reader", None)


def _model():
    reader = _reader()
    if reader is None:
        raise LookupError("the tile reader is not loaded yet; try again in a few seconds")
    return reader.model


def _page(**shown):
    from rules.tiles import Tile
    from vision.calibration import LAYOUT

    rows = [[Tile.from_index(i).code for i in row] for row in LAYOUT]
    shown.setdefault("active", profile_path().exists())
    return render_template("teach.html", rows=rows, **shown)


@bp.route("/teach", methods=["GET", "POST"])
@takes_photo
def teach():
    from vision.calibration import CalibrationError, Lesson, teach_from_frames
    from vision.profile import set_default_profile

    if request.method == "GET":
        return _page(typed="")
    typed = request.form.get("tiles", "")
    try:
        model = _model()
        lesson = Lesson(*_frame(), typed)
        # lessons left without their profile (deleted by hand) are stale: a fresh start
        earlier = _lessons() if profile_path().exists() else []
        earlier = earlier[max(0, len(earlier) + 1 - MOST_LESSONS):]
        result = teach_from_frames(model, earlier + [lesson], profile_path())
    except (CalibrationError, LookupError, ValueError) as exc:
        return _page(typed=typed, error=str(exc))
    except OSError as exc:  # the profile could not be written (a full disk): nothing changed
        return _page(typed=typed, error=f"the taught tiles could not be saved ({exc.strerror or exc}): "
                                       "the tiles are read as before")
    if not earlier:
        shutil.rmtree(lessons_dir(), ignore_errors=True)
    _keep(lesson)
    set_default_profile(model.profile)  # a reader loaded later (another camera) reads this box too
    return _page(typed=typed, result=result)


@bp.post("/teach/forget")
def forget():
    """Back to the shipped reading, now and at the next start: the profile file goes too."""
    from vision.profile import set_default_profile

    set_default_profile(None)
    reader = _reader()
    if reader is not None:
        reader.model.set_profile(None)
    profile_path().unlink(missing_ok=True)
    shutil.rmtree(lessons_dir(), ignore_errors=True)
    return _page(typed="", active=False, forgotten=True)
