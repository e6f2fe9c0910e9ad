"""The recorded demo game plays itself: every press at its frame, the verdicts the script expects.

No browser and no real time: the video is fed frame by frame and the clock
is set from the frame number, as the server's ticker would see them.
"""

from __future__ import annotations

import json
import re

import pytest

from rules.game_state import table_of
from rules.tiles import parse_table
from webui.app import create_app
from webui.companion import recorded_game
from webui.db import Store
from webui.demo import DEMO_GAME, DemoDriver, DemoScript
from webui.session import PRESS_GUARD_S, GameSession
from webui_fakes import FakeClock, FakeLive

SCRIPT = DemoScript.load(recorded_game().with_suffix(".json"))


def check_press(event, before: dict, after: dict, session) -> None:
    """What the page shows for one recorded press is what the script expects."""
    g = after["game"]
    if event.action == "start":
        assert [p["name"] for p in g["players"]] == list(SCRIPT.players) and g["current"] == SCRIPT.players[0]
        assert after["clock"]["limit"] == SCRIPT.rules.turn_time_limit and after["demo"] is not None
    elif event.action == "end_turn":
        player = before["game"]["current"]
        assert before["preview"]["word"] == event.expect  # on the page before the press
        if event.expect == "LEGAL":
            assert g["current"] != player and g["last"]["verdict"]["word"] == "LEGAL"
        else:
            assert g["current"] == player and g["turn"]["attempt"]["word"] == "NOT LEGAL"
    elif event.action == "time_out":  # the clock ran out by itself: the table goes back, the next clock waits
        assert event.expect == "put the table back" and g["restore"]["player"] == "Ben"
        assert g["restore"]["penalty"] == 3 and after["clock"]["paused"]
    elif event.action == "restored":
        assert g["restore"] is None and g["current"] == "Ann" and after["clock"]["running"]
        # Ann's clock waited while the table went back (6 s here): it runs only since the camera saw it back
        assert after["clock"]["remaining"] >= SCRIPT.rules.turn_time_limit - 5
    elif event.action == "rummikub":
        assert before["preview"]["word"] == event.expect
        assert g["status"] == "tally" and g["tally"]["winner"] == "Ann"
    elif event.action == "read_rack":
        assert g["tally"]["racks"][event.player] == event.expect
    elif event.action == "confirm":
        assert session.sheet().totals == event.expect
        assert after["scores"]["hands"][-1]["scores"] == event.expect


@pytest.fixture
def recorded(tmp_path):
    from recorded_game import RecordedGame

    game = RecordedGame()
    clock = FakeClock()
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": game.live, "NOW": clock, "TICKER": False})
    companion = app.extensions["companion"]
    companion.play_recorded_game()
    start = clock.t

    def play_to(frame: int, on_press=None) -> None:
        """Feed the video up to ``frame``, ticking the companion after each frame as its clock would."""
        events = SCRIPT.events
        while game.frame < frame:
            game.play_to(game.frame + 1)
            clock.t = start + game.frame / SCRIPT.fps
            done = companion.demo.done
            due = done < len(events) and game.frame % SCRIPT.frames >= events[done].after_frame
            before = companion.state_json() if due else None
            companion.tick()
            if companion.demo.done > done and on_press:
                after = companion.state_json()
                for event in events[done:companion.demo.done]:
                    on_press(event, before, after, game.frame)

    yield companion, play_to, app
    game.live.stop()


def test_the_demo_plays_the_recorded_game_with_the_recorded_verdicts(recorded):
    companion, play_to, app = recorded
    session = companion.session
    pressed = []

    def on_press(event, before, after, frame):
        check_press(event, before, after, session)
        pressed.append((event.action, frame))

    # the first pass: every press at (or just after) its frame, every verdict as recorded
    play_to(SCRIPT.frames - 1, on_press)
    assert [a for a, _ in pressed] == [e.action for e in SCRIPT.events]
    for (action, frame), event in zip(pressed, SCRIPT.events):
        assert event.after_frame <= frame <= event.after_frame + 2, (action, frame)
    first_game = session.game_id
    assert len(session.games()) == 1

    # the video starts again: a new game replaces the last pass's one, and plays the same way
    pressed.clear()
    second = SCRIPT.frames + SCRIPT.events[1].after_frame
    play_to(second, on_press)
    assert [a for a, _ in pressed] == ["start", "end_turn"]
    assert session.game_id != first_game and [g["id"] for g in session.games()] == [session.game_id]
    assert session.store.load_game(first_game) is None

    # a person presses a button: the demo stops and the game is theirs
    client = app.test_client()
    companion.session.now.advance(PRESS_GUARD_S)  # not a moment after the demo's own press (webui/session.py)
    assert client.post("/api/turn/end", json={}).status_code == 200  # Ben has placed nothing yet: he draws
    assert companion.state_json()["demo"] is None and not companion.demo.driving
    assert session.store.get_setting(DEMO_GAME) is None  # never deleted as the demo's own
    ours, turn = session.game_id, session.game.turn.number
    play_to(SCRIPT.frames + SCRIPT.events[2].after_frame + 12)
    assert session.game_id == ours and session.game.turn.number == turn and session.game.turn.attempt is None

    # New game offers the clock saved for new games, not the demo's quick one the game taken over keeps
    assert session.game.options.turn_time_limit == SCRIPT.rules.turn_time_limit != session.options.turn_time_limit
    form = client.get("/new").get_data(as_text=True)
    clock_field = re.search(r'<input[^>]*name="turn_time_limit"[^>]*>', form).group(0)
    assert f'value="{session.options.turn_time_limit}"' in clock_field, clock_field
    # a new game of their own: no camera sees a table now, so it starts from an empty one, unasked
    assert session.game.turn.table_before  # the demo's sets, on the table of the game taken over
    res = client.post("/api/game", json={"players": ["Zoe", "Yan"], "table_checked": False})
    assert res.status_code == 201, res.get_json()
    assert session.game.names == ("Zoe", "Yan") and session.game.turn.table_before == ()


def T(text: str):
    return table_of(parse_table(text))


def test_the_driver_without_video_and_a_person_taking_over(tmp_path):
    """The driver alone, fed the script's own tables: a person's action stops it at once."""
    clock = FakeClock()
    session = GameSession(Store(tmp_path / "c.sqlite3"), now=clock)
    demo = DemoDriver(SCRIPT, session)
    start, end, bad = SCRIPT.events[0], SCRIPT.events[1], SCRIPT.events[2]
    demo.step(start.after_frame - 1, ())
    assert session.game is None  # not yet
    demo.step(start.after_frame, ())
    assert session.game.names == SCRIPT.players and session.options.turn_time_limit == 60  # the demo's rules stay its own
    demo.step(end.after_frame, ())  # the camera does not see the run yet: the demo waits for it
    assert session.game.turn.number == 1
    demo.step(end.after_frame + 1, end.table)
    assert session.current_player == "Ben" and demo.view()["last"]["result"] == "LEGAL"
    demo.take_over()
    demo.step(bad.after_frame, bad.table)
    assert session.game.turn.attempt is None and demo.view() is None


def test_the_driver_joins_a_pass_only_from_its_start_and_gives_up_waiting_after_the_grace(tmp_path):
    session = GameSession(Store(tmp_path / "c.sqlite3"), now=FakeClock())
    demo = DemoDriver(SCRIPT, session)
    demo.step(SCRIPT.events[3].after_frame, ())  # the server came up mid-game: no game from half a video
    assert session.game is None
    demo.step(SCRIPT.frames + SCRIPT.events[0].after_frame, ())
    end = SCRIPT.events[1]
    demo.step(SCRIPT.frames + end.after_frame + round(2 * SCRIPT.fps), T("R10 R11"))  # misread: pressed anyway
    assert session.game.turn.attempt.legal is False and demo.view()["last"]["result"] == "NOT LEGAL"


def test_a_bad_script_is_refused_with_its_name(tmp_path):
    path = tmp_path / "game.json"
    doc = json.loads(recorded_game().with_suffix(".json").read_text())
    doc["events"][1]["action"] = "dance"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="game.json.*start"):
        DemoScript.load(path)
    path.write_text("{}")
    with pytest.raises(ValueError, match="game.json"):
        DemoScript.load(path)


def test_without_the_recording_as_source_there_is_no_demo(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": FakeLive(""), "TICKER": False})
    assert app.extensions["companion"].demo is None
    assert app.extensions["companion"].state_json()["demo"] is None


def test_the_driver_leaves_a_person_s_game_on_the_table_alone(tmp_path):
    """A server started again with the players' own game on the table: the demo never replaces it."""
    session = GameSession(Store(tmp_path / "c.sqlite3"), now=FakeClock())
    session.start_game(["Zed", "Yan", "Xia"])
    ours = session.game_id
    demo = DemoDriver(SCRIPT, session)
    assert not demo.driving and demo.view() is None
    demo.step(SCRIPT.events[0].after_frame, ())
    demo.step(SCRIPT.frames + SCRIPT.events[0].after_frame + round(2 * SCRIPT.fps), ())
    assert session.game_id == ours and session.game.names == ("Zed", "Yan", "Xia")
