"""Playing without a camera, and the last turn's line naming the discard: the Flask test client, a fake
live table and a fake clock (no test sleeps)."""

from __future__ import annotations

import pytest

from test_webui_fixes import start, state
from webui_fakes import FakeLive


@pytest.fixture
def live():
    return FakeLive("")


# --- the last turn names the discarded tile -------------------------------------------

def test_the_last_turn_names_the_tile_discarded(client):
    start(client, ["Al", "Bo"], rules="american")
    assert client.post("/api/turn/draw", json={"source": "pool"}).status_code == 200
    res = client.post("/api/turn/end", json={"discard": "r7"})
    assert res.status_code == 200, res.get_json()
    last = res.get_json()["state"]["game"]["last"]
    assert last["player"] == "Al" and last["action"] == "discard" and last["discard"] == "R7"
    assert state(client)["game"]["players"][0]["discard"] == "R7"


def test_a_sabra_turn_names_no_discard(client):
    start(client, ["Ann", "Ben"])
    last = client.post("/api/turn/end", json={}).get_json()["state"]["game"]["last"]
    assert last["action"] == "draw" and last["discard"] is None
