"""A camera gone out, through the web app (Flask test client, a fake camera): the page learns it at once,
and its last reading is not shown as the table now."""

from __future__ import annotations

import json
import time

import pytest

from test_webui_fixes import start, state
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("R10 R11 R12 | B4 B5")


def events(client):
    """What the event stream sends, one message at a time, with how long it took to come: a state, or
    None for a keepalive (sent after 10 s of nothing new)."""
    res = client.get("/api/events", buffered=False)
    chunks = iter(res.response)
    while True:
        t = time.monotonic()
        chunk = next(chunks)
        chunk = chunk.decode() if isinstance(chunk, bytes) else chunk
        state = json.loads(chunk.split("data: ", 1)[1]) if chunk.startswith("event: state") else None
        yield state, time.monotonic() - t


def test_a_camera_gone_out_and_back_is_pushed_at_once(client, live):
    stream = events(client)
    first, _ = next(stream)
    assert first["camera"]["ok"] and first["camera"]["read"]
    live.camera_ok, live.camera_error = False, "camera 0 stopped sending frames"  # no table change with it
    out, waited = next(stream)
    assert out is not None and waited < 1.0, f"nothing pushed for {waited:.1f} s"
    assert not out["camera"]["ok"] and out["camera"]["error"] == "camera 0 stopped sending frames"
    assert out["version"].split(".")[:2] == first["version"].split(".")[:2]
    assert int(out["version"].split(".")[2]) > int(first["version"].split(".")[2])  # a page keeps it: it is newer
    live.camera_ok, live.camera_error = True, None
    back, waited = next(stream)
    assert back is not None and waited < 1.0 and back["camera"]["ok"] and len(back["sets"]) == 2


def test_the_last_reading_of_a_camera_gone_out_is_not_shown_as_the_table(client, live):
    start(client, ["Ann", "Ben"])
    before = state(client)
    assert before["table"] == "R10 R11 R12 | B4 B5" and len(before["sets"]) == 2
    live.camera_ok, live.camera_error = False, "camera 0 stopped sending frames"
    s = state(client)
    assert s["sets"] == [] and s["table"] == "" and s["all_valid"] and s["warnings"] == []
    assert s["camera"]["read"] is False and s["camera"]["has_picture"]
    assert s["camera"]["picture_at"] == pytest.approx(live.picture_at)
    assert client.get("/api/camera.jpg").status_code == 200  # the last picture, for the page to dim
    assert s["preview"]["changed"] is False  # judged on the game's own table, as before
