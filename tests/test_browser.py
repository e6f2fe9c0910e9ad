"""End to end in real headless Chromium (Debian's /usr/bin/chromium driven by Playwright).

One test serves a table laid out in tile notation (a fake camera, so every
check is exact); others play the shipped recorded game through the real tile
model, on a laptop and on a phone, saving a screenshot after each move.
Pages are opened with bypass_csp: Playwright's wait_for_function evaluates
its predicate with eval, which the page's Content-Security-Policy forbids
(test_browser_security.py drives the page under its CSP).
"""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]

if not CHROMIUM.exists():
    pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)",
                allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")

from werkzeug.serving import make_server  # noqa: E402

from webui.app import create_app  # noqa: E402
from webui.companion import UnavailableLive  # noqa: E402
from webui.session import PRESS_GUARD_S  # noqa: E402
from webui_fakes import FakeClock, FakeLive  # noqa: E402
from recorded_game import RecordedGame  # noqa: E402
from test_webui_db import call, free_port, serve  # noqa: E402
from test_game_closed_preview import ROYAL  # noqa: E402


def served(tmp_path, live):
    """The app on a real socket, in this process, watching ``live`` and a FakeClock:
    yields (url, port, live, clock)."""
    clock = FakeClock()
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": live, "NOW": clock})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", server.server_port, live, clock
    server.shutdown()
    app.extensions["companion"].stop()


@pytest.fixture
def fake_server(tmp_path):
    """A table of three sets, one tile uncertain."""
    for url, _, live, clock in served(tmp_path, FakeLive("R1 R2 R3 | K7 B7 O7 J | R5 K5", uncertain=[4])):
        yield url, live, clock


@pytest.fixture
def server(tmp_path):
    """An empty table."""
    yield from served(tmp_path, FakeLive(""))


def test_play_a_turn_and_score_a_hand(browser, fake_server, tmp_path):
    url, live, clock = fake_server
    page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page.goto(url + "/")
    sets = page.locator("#sets .set")
    sets.first.wait_for()
    assert sets.count() == 3
    invalid = page.locator("#sets .set.invalid")
    assert invalid.count() == 1 and "R5 K5" not in invalid.inner_text()
    assert invalid.locator(".why").inner_text().startswith("✗")
    assert page.locator("#sets .tile.uncertain").count() == 1  # B7, read with low confidence

    # the players fix the table, then start a new game from the form
    live.set_table("R1 R2 R3 | K7 B7 O7 J")
    page.wait_for_function("document.querySelectorAll('#sets .set').length === 2")
    page.click("text=New game")
    page.fill("textarea[name=players]", "Ann\nBen\nCid")
    asked = []  # the sets still lie there: a new game asks before it takes them as its starting table
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.click("button:has-text('Start the game')")
    page.wait_for_url(url + "/")
    assert asked and asked[0].startswith("The camera still sees 7 tiles on the table. A game starts from an empty")
    assert page.locator("#current-player").inner_text() == "Ann"
    assert re.fullmatch(r"[01]:\d\d", page.locator("#clock").inner_text())

    # the hint: off by default; Ann types her rack and sees her best move
    assert page.locator("#hint-body").is_hidden()
    page.check("#hint-toggle")
    page.locator("#hint-body").wait_for()
    page.fill("#hint-rack", "O11 O12 O13 K2")
    page.click("text=Use this rack")
    page.locator("#hint-result >> text=Play 3 tiles").wait_for()

    # the table changes under the camera: the page follows without reloading
    live.set_table("R1 R2 R3 | K7 B7 O7 J | O11 O12 O13")
    page.locator("#sets .set").nth(2).locator("text=11").wait_for()
    page.wait_for_function("document.querySelectorAll('#sets .set.invalid').length === 0")

    # the clock warns near the end of the turn
    clock.advance(50)
    live.set_table("R1 R2 R3 | K7 B7 O7 J | O11 O12 O13", colour=(30, 90, 50))  # any push re-syncs the clock
    page.wait_for_function("document.getElementById('clock').classList.contains('warn')")

    # the space bar ends the turn; the verdict is in plain words
    page.keyboard.press("Space")
    page.wait_for_function("document.getElementById('current-player').textContent === 'Ben'")
    assert page.locator("#verdict").is_hidden()  # Ben's turn starts clean
    assert "Ann: placed O11 O12 O13" in page.locator("#last-turn-text").inner_text()

    # Ben breaks a run and runs out of time: the start-of-turn snapshot is shown, 3 tiles penalty
    live.set_table("R1 R2 | R3 K3 | K7 B7 O7 J | O11 O12 O13")
    page.wait_for_function("document.querySelectorAll('#sets .set.invalid').length === 2")
    page.keyboard.press("Space")  # not legal: the turn goes on, and the page says why
    page.wait_for_function("document.getElementById('verdict-word').textContent === 'NOT LEGAL'")
    assert page.locator("#current-player").inner_text() == "Ben"
    sets_line = page.locator("#verdict-groups li").first.inner_text()  # two broken sets, one line
    assert sets_line.startswith("Not a valid set") and "R1 R2" in sets_line and "R3 K3" in sets_line
    clock.advance(61)
    page.locator("#restore").wait_for()
    assert "Ben" in page.locator("#restore-text").inner_text()
    assert "draws 3" in page.locator("#restore-text").inner_text()
    assert page.locator("#clock-caption").inner_text().lower() == "paused"  # Cid's clock waits
    assert page.locator("#restore-sets .set").count() == 3
    page.wait_for_function("document.getElementById('snapshot-img').naturalWidth > 0")
    assert page.locator("#current-player").inner_text() == "Cid"
    live.set_table("R1 R2 R3 | K7 B7 O7 J | O11 O12 O13")  # put back: the banner goes by itself
    page.locator("#restore").wait_for(state="hidden")

    # Cid calls Rummikub!; the others' racks are typed and the hand is scored.  By the count Cid still
    # holds tiles (this table never saw him meld): the page asks, and the players say the count is wrong
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.click("#rummikub")
    page.locator("#tally").wait_for()
    assert len(asked) == 1 and re.fullmatch(r"By the count, Cid still holds \d+ tiles\. Call Rummikub! anyway\?",
                                            asked[0]), asked
    page.fill("textarea[data-player=Ann]", "R12 B1")
    live.set_table("R1 R2 R3 | K7 B7 O7 J | O11 O12 O13 | J")  # Ben lays his rack in view
    page.click(".tally-row:has-text('Ben') >> text=Read")
    page.wait_for_function("document.querySelector('textarea[data-player=Ben]').value === 'J'")
    assert page.input_value("textarea[data-player=Ann]") == "R12 B1"  # the refresh kept what Ann typed
    # one tile read where Ben holds more by the count: the confirm asks, and the players keep the reading
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.click("text=Confirm and score")
    page.locator("#dealing").wait_for()  # the next hand waits for its deal: no turn buttons yet
    assert re.fullmatch(r"The camera's reading does not match the count \(Ben: the camera read 1 tile; Ben should "
                        r"hold \d+\)\. Score the rack as read\?", asked[1]), asked
    assert page.locator("#controls").is_hidden()
    page.screenshot(path=str(tmp_path / "table.png"), full_page=True)
    page.click("nav >> text=Scores")
    sheet = page.locator("#score-sheet")
    sheet.wait_for()
    text = sheet.inner_text()
    assert "Hand 1" in text and "+43" in text and "-13" in text and "-30" in text
    page.screenshot(path=str(tmp_path / "scores.png"), full_page=True)
    assert (tmp_path / "table.png").stat().st_size > 10_000

    # on a phone the page still fits: no sideways scrolling
    phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                             bypass_csp=True)
    live.set_table("")  # the tiles are collected for the next hand (Start hand asks while any lie there)
    phone.goto(url + "/")
    phone.locator("#dealing").wait_for()
    phone.click("#start-hand")  # hand 2 is dealt
    phone.locator("#end-turn").wait_for()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert phone.locator("#end-turn").bounding_box()["height"] >= 48
    phone.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
    keep = os.environ.get("WEBUI_SCREENSHOTS")
    if keep:
        for name in ("table.png", "scores.png", "phone.png"):
            Path(keep).mkdir(parents=True, exist_ok=True)
            (Path(keep) / name).write_bytes((tmp_path / name).read_bytes())


def save(page, tmp_path: Path, name: str) -> Path:
    """A full-page screenshot, also kept in $WEBUI_SCREENSHOTS when set (CI keeps that folder)."""
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=True)
    keep = os.environ.get("WEBUI_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        (Path(keep) / name).write_bytes(path.read_bytes())
    return path


@pytest.fixture
def recorded_server(tmp_path):
    game = RecordedGame()
    clock = FakeClock()
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": game.live, "NOW": clock, "TICKER": False})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", game, clock, app.extensions["companion"]
    server.shutdown()
    game.live.stop()


@pytest.mark.parametrize("viewport", [(1280, 800), (390, 844)], ids=["laptop", "phone"])
def test_a_whole_hand_over_the_recorded_game(browser, recorded_server, tmp_path, viewport):
    """Ann and Ben play the recorded hand: every verdict, the time-out, Rummikub!, the tally and the sheet."""
    url, game, clock, companion = recorded_server
    w, h = viewport
    phone = w < 600
    page = browser.new_page(viewport={"width": w, "height": h}, is_mobile=phone, has_touch=phone, bypass_csp=True)
    tag = "phone" if phone else "laptop"
    shots = []
    for n, event in enumerate(game.script["events"]):
        game.play_to(event["after_frame"])
        action, expect = event["action"], event["expect"]
        if action == "start":
            page.goto(url + "/new")
            page.fill("textarea[name=players]", "\n".join(game.script["players"]))
            page.click("button:has-text('Start the game')")
            page.wait_for_url(url + "/")
            assert page.locator("#current-player").inner_text() == "Ann"
            continue
        same = "(t) => window.state && window.state.table.split(' | ').sort().join('|') === t.split(' | ').sort().join('|')"
        page.wait_for_function(same, arg=event["table"])
        if action == "end_turn":
            player = page.locator("#current-player").inner_text()
            assert page.locator("#verdict-word").inner_text() == expect  # seen before the button is pressed
            clock.advance(PRESS_GUARD_S)  # not a moment after the last press (webui.session.PRESS_GUARD_S)
            page.click("#end-turn")
            if expect == "LEGAL":
                page.wait_for_function("(p) => document.getElementById('current-player').textContent !== p",
                                       arg=player)
                assert page.locator("#verdict").is_hidden()  # the next turn starts clean
                assert f"{player}: placed" in page.locator("#last-turn-text").inner_text()
            else:
                page.wait_for_function("!document.getElementById('verdict').classList.contains('preview')")
                assert page.locator("#current-player").inner_text() == player
                assert page.locator("#verdict-groups li").first.inner_text().startswith("Not a valid set: B4 B5")
                box = page.locator("#verdict-word").bounding_box()
                assert box["height"] >= 38  # readable from across the table
        elif action == "time_out":
            clock.advance(61)
            companion.tick()
            page.locator("#restore").wait_for()
            assert "Ben ran out of time" in page.locator("#restore-text").inner_text()
            page.wait_for_function("document.getElementById('clock-caption').textContent === 'paused'")
            assert page.locator("#end-turn").is_disabled()
            assert page.evaluate("document.getElementById('snapshot-img').hidden") is False
            assert page.locator("#verdict").is_hidden()  # nobody's turn is judged while the table goes back
        elif action == "restored":
            clock.advance(20)  # the players take their time putting it back: Ann's clock waits
            companion.tick()
            page.locator("#restore").wait_for(state="hidden")
            assert page.locator("#current-player").inner_text() == "Ann"
            assert re.fullmatch(r"1:00|0:59", page.locator("#clock").inner_text())
        elif action == "rummikub":
            assert page.locator("#verdict-word").inner_text() == "LEGAL"
            clock.advance(PRESS_GUARD_S)
            page.once("dialog", lambda d: d.accept())  # the recording's winner, whatever the count says
            page.click("#rummikub")
            page.locator("#tally").wait_for()
            if phone:  # the tally is on the first screen of a phone, under the clock
                assert page.locator("#tally").bounding_box()["y"] < h
            page.click("text=Confirm and score")  # Ben's rack still blank: refused, with the reason
            page.locator("#tally-error").wait_for()
            assert "rack not given for Ben" in page.locator("#tally-error").inner_text()
        elif action == "read_rack":
            page.click(".tally-row:has-text('Ben') >> text=Read")
            page.wait_for_function("(r) => document.querySelector('textarea[data-player=Ben]').value === r", arg=expect)
            page.wait_for_function("document.querySelector('[data-points=Ben]').textContent.includes('45 points')")
            # the rack laid beside the final table is a rack to count, never an invalid table set
            assert page.locator("#sets .set.invalid").count() == 0
            assert "rack row · 45 points" in page.locator("#sets .set.rack").all_inner_texts()[-1]
        elif action == "confirm":
            # by the count Ben holds 14 (the recording is one short hand): the confirm asks, the players say go
            asked = []

            def answer(d):
                asked.append(d.message)
                d.accept()
            page.on("dialog", answer)
            page.click("text=Confirm and score")
            page.locator("#dealing").wait_for()  # the next hand waits for its deal
            assert asked == ["The camera's reading does not match the count (Ben: the camera read 4 tiles; Ben should "
                             "hold 14). Score the rack as read?"]
            # back to the top once the confirm's answer is in: the new state may come first, pushed to every
            # page, so the #dealing card can show a moment before this page scrolls
            page.wait_for_function("window.scrollY === 0", timeout=5000)
            assert "hand 1 scored: Ann +45, Ben -45" in page.locator("#last-turn-text").inner_text()
            page.click("#undo-hand")  # it asks first (the hand's scores come off the sheet): scored by mistake
            page.locator("#tally").wait_for()  # the tally opens again, racks kept
            assert page.input_value("textarea[data-player=Ben]") == "K2 K5 O8 J"
            page.click("text=Confirm and score")  # the reading is asked about again
            page.locator("#dealing").wait_for()  # the next hand waits for its deal
            assert len(asked) == 3 and asked[1].startswith("Take back hand 1?") and asked[2] == asked[0]
            page.remove_listener("dialog", answer)
        shots.append(save(page, tmp_path, f"{tag}-{n:02d}-{action}.png"))
    assert companion.session.sheet().totals == expect
    page.click("nav >> text=Scores")
    text = page.locator("#score-sheet").inner_text()
    assert "Hand 1" in text and "+45" in text and "-45" in text
    shots.append(save(page, tmp_path, f"{tag}-scores.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= w  # no sideways scrolling
    assert all(p.stat().st_size > 10_000 for p in shots)


def test_offline_banner_when_the_server_is_down(browser, fake_server, tmp_path):
    url, live, clock = fake_server
    call(int(url.rsplit(":", 1)[1]), "/api/game", {"players": ["Ann", "Ben"]})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    page.goto(url + "/")
    page.locator("#sets .set").first.wait_for()
    page.route("**/api/**", lambda route: route.abort())  # the server stops answering
    page.click("#end-turn")
    page.locator("#offline-banner").wait_for()
    save(page, tmp_path, "phone-offline.png")
    page.unroute("**/api/**")
    page.locator("#offline-banner").wait_for(state="hidden", timeout=10_000)  # back by itself


def test_rack_rows_unsure_sets_and_colour_warnings_on_a_phone(browser, fake_server, tmp_path):
    url, live, clock = fake_server
    live.set_table("R1 R2 R3")
    call(int(url.rsplit(":", 1)[1]), "/api/game", {"players": ["Ann", "Ben"]})
    live.set_table("R1 R2 R3 | K5 K6 B7 K8 | R13 J K2", status=["valid", "unsure", "rack"], doubtful=[5],
                   uncertain=[5], warnings=["the photo has almost no colour (grey-scale?)"])
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.goto(url + "/")
    page.locator("#sets .set.rack").wait_for()
    rack = page.locator("#sets .set.rack")
    assert rack.locator(".tile").count() == 3 and rack.locator(".meta").inner_text() == "rack row · 45 points"
    assert page.locator("#sets .set.invalid").count() == 0  # neither the rack row nor the unsure set
    unsure = page.locator("#sets .set.unsure")
    assert unsure.locator(".meta").inner_text() == "? unsure: check B7"
    assert unsure.locator(".tile.doubtful").get_attribute("title").startswith("B7")
    assert page.locator("#table-status").inner_text() == "1 unsure"
    assert page.locator("#verdict-word").inner_text() == "UNSURE"
    assert "grey-scale" in page.locator("#colour-banner").inner_text()
    save(page, tmp_path, "phone-rack-unsure.png")
    # a set the photo's edge cuts: unsure, and the page says why instead of naming a tile
    live.set_table("R1 R2 R3 | O9 O10", status=["valid", "unsure"], past_edge=[1])
    page.locator("#sets .set.rack").wait_for(state="detached")
    assert page.locator("#sets .set.unsure .meta").inner_text() == "? unsure: runs past the photo's edge"
    assert page.locator("#sets .set.invalid").count() == 0 and page.locator("#sets .tile.doubtful").count() == 0
    assert page.locator("#verdict-word").inner_text() == "UNSURE"
    save(page, tmp_path, "phone-past-edge.png")


def test_settings_and_new_game_on_a_phone(browser, fake_server, tmp_path):
    url, live, clock = fake_server
    live.set_table("")  # games start from an empty table here (one with tiles asks: tests/test_browser_camera.py)
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    page.goto(url + "/settings")
    assert page.evaluate("document.documentElement.scrollHeight") < 2200  # compact: the joker rules fold away
    text = page.locator("main").inner_text()
    assert "one_high" not in text and "False" not in text and "American (1978 book)" in text
    page.fill("#opt-turn_time_limit", "90")
    page.click("text=Save rules")
    page.locator("#form-ok").wait_for()
    save(page, tmp_path, "phone-settings.png")
    page.click("#your-tiles >> text=Teach your tiles")  # the way to the tile profile screen
    page.wait_for_url(url + "/teach")
    assert page.locator("h1").inner_text() == "Teach your tiles"
    page.goto(url + "/new")
    page.fill("textarea[name=players]", "Ann\nBen")
    page.click("button:has-text('Start the game')")
    page.wait_for_url(url + "/")
    assert page.locator("#clock").inner_text() == "1:30"  # the settings just made
    asked = []  # each game started below replaces Ann and Ben's game in play: the form asks first
    page.on("dialog", lambda d: (asked.append(d.message), d.accept()))
    # a rulebook picked on New game keeps the clock set on Settings (it used to start from the book's 60 s)
    page.goto(url + "/new")
    assert page.input_value("#opt-turn_time_limit") == "90" and page.input_value("#opt-rounds") == ""
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.select_option("select[name=rules]", "sabra")
    page.fill("#opt-rounds", "2")
    page.click("button:has-text('Start the game')")
    page.wait_for_url(url + "/")
    page.locator("#turn-info", has_text="round 1 of 2").wait_for()
    assert page.locator("#clock").inner_text() == "1:30"
    assert page.locator("#turn-info").inner_text() == "Sabra · round 1 of 2 · hand 1 of 2 · turn 1"
    # what is changed on the form wins
    page.goto(url + "/new")
    assert page.input_value("#opt-rounds") == "2"  # the last game's rules are the rules for the next
    page.fill("#opt-turn_time_limit", "45")
    page.click("button:has-text('Start the game')")
    page.wait_for_url(url + "/")
    assert page.locator("#clock").inner_text() == "0:45"
    # as many rounds as players (the Israeli rules' length): the box greys the number out and is what is sent
    page.goto(url + "/new")
    assert "90 s a turn" not in page.locator("select[name=rules]").inner_text()
    page.check("input[data-named-for=rounds]")
    assert page.is_disabled("#opt-rounds")
    page.click("button:has-text('Start the game')")
    page.wait_for_url(url + "/")
    page.locator("#turn-info", has_text="round 1 of 2 · hand 1 of 2").wait_for()
    page.goto(url + "/settings")
    assert page.is_checked("input[data-named-for=rounds]") and page.is_disabled("#opt-rounds")
    page.uncheck("input[data-named-for=rounds]")
    assert not page.is_disabled("#opt-rounds")
    assert len(asked) == 3 and all(m.startswith("Ann and Ben are playing a game (hand 1).") for m in asked)


def test_serve_follows_the_recorded_game_by_default(browser, tmp_path):
    """``rummikub-companion serve`` with no camera, left alone: the recorded game plays itself, verdicts and all."""
    port = free_port()
    proc = serve(port, tmp_path / "c.sqlite3", tmp_path, source=None)  # default: the recorded game
    js_word = "(w) => document.getElementById('verdict-word').textContent === w"
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800}, bypass_csp=True)
        page.goto(f"http://127.0.0.1:{port}/")
        banner = page.locator("#demo-banner")
        banner.wait_for()
        assert "Recorded demo game" in banner.inner_text() and "Ann and Ben" in banner.inner_text()
        # Ann's opening run (33 points) is read off the video and judged legal before she ends her turn
        page.wait_for_function("document.getElementById('current-player').textContent === 'Ann'", timeout=90_000)
        page.wait_for_function("window.state && window.state.table === 'R10 R11 R12'", timeout=60_000)
        page.wait_for_function(js_word, arg="LEGAL")
        assert page.locator("#sets .set.invalid").count() == 0
        # nobody presses anything: the recording's Ann ends her turn and it is Ben's
        page.wait_for_function("document.getElementById('current-player').textContent === 'Ben'", timeout=30_000)
        assert "Ann: placed" in page.locator("#last-turn-text").inner_text()
        # Ben lays two tiles that are no set and ends his turn: refused, in one line, and his turn goes on
        page.wait_for_function("document.getElementById('demo-last').textContent.includes('NOT LEGAL')",
                               timeout=30_000)
        page.wait_for_function(js_word, arg="NOT LEGAL")
        assert "B4 B5" in page.locator("#verdict-groups").inner_text()
        assert page.locator("#current-player").inner_text() == "Ben"
        save(page, tmp_path, "serve-recorded-game.png")
        # his 16 s run out: the table goes back while Ann's clock waits
        page.locator("#restore").wait_for(timeout=30_000)
        assert "Ben ran out of time" in page.locator("#restore-text").inner_text()
        save(page, tmp_path, "serve-recorded-time-out.png")
        # a person acts on the page (here: turns the hint on): the demo stops and the game is theirs
        page.check("#hint-toggle")
        banner.wait_for(state="hidden")
        assert call(port, "/api/state")["demo"] is None
    finally:
        proc.kill()
        proc.wait(10)


def test_teaching_typed_tiles_from_a_phone_photo_and_forgetting_them(browser, tmp_path):
    """The real server, a phone: a full-size phone photo of a few typed tiles is learned, then forgotten."""
    import cv2

    from test_calibrate import rows_drawing

    typed = "R1 R2 R3 R4 | B7 B8 B9 J"
    photo = tmp_path / "rack.jpg"
    cv2.imwrite(str(photo), rows_drawing(typed, size=(4032, 3024)).image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    assert photo.stat().st_size > 1_000_000  # a phone photo, far past the limit of any other write
    port = free_port()
    proc = serve(port, tmp_path / "c.sqlite3", tmp_path, source=None)
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                bypass_csp=True)
        page.goto(f"http://127.0.0.1:{port}/teach")
        for _ in range(60):  # the camera's reader loads in the background
            page.fill("input[name=tiles]", typed)
            page.set_input_files("input[name=photo]", str(photo))
            page.click("button:has-text('Take the photo and learn')")
            page.wait_for_load_state()
            if "not loaded yet" not in page.locator("body").inner_text():
                break
            page.wait_for_timeout(1000)
        text = " ".join(page.locator("body").inner_text().split())
        assert "Learned from 1 photo: 8 of 8 tiles placed" in text, text[:800]
        assert "camera:" not in text  # what the page says it placed names the photo sent
        assert (tmp_path / "tile_profile.npz").exists()
        save(page, tmp_path, "phone-teach-typed.png")
        page.click("button:has-text('Forget the taught tiles')")
        page.wait_for_load_state()
        assert "Taught tiles forgotten" in page.locator("[role=status]").inner_text()
        assert not (tmp_path / "tile_profile.npz").exists()
    finally:
        proc.kill()
        proc.wait(10)


# the page side of the web fixes: double presses, a time-out on an empty table, the Israeli tally
# with its "has melded" toggles, the next hand waiting for "Start hand", the turn log on a phone


def current_is(page, name: str) -> None:
    page.wait_for_function("(p) => document.getElementById('current-player').textContent === p", arg=name)


def test_double_presses_and_an_empty_table_put_back(browser, server, tmp_path):
    url, port, live, clock = server
    page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    posts = []  # what the page sends: a double press must send one request, not rely on the server
    page.on("request", lambda r: posts.append(r.url.split("/api/")[-1]) if r.method == "POST" else None)
    page.goto(url + "/new")
    page.fill("textarea[name=players]", "Ann\nBen\nCid")
    page.dblclick("button:has-text('Start the game')")  # 14: one game, not two
    page.wait_for_url(url + "/")
    current_is(page, "Ann")
    assert len(call(port, "/api/games")) == 1 and posts == ["game"]

    page.dblclick("#end-turn")  # 1: Ann's turn ends (she draws); Ben's does not
    current_is(page, "Ben")
    page.wait_for_timeout(800)  # long enough for a second press to have gone through
    assert [t["player"] for t in call(port, "/api/turns")] == ["Ann"] and posts == ["game", "turn/end"]
    assert page.locator("#current-player").inner_text() == "Ben"

    # 16: Ben's time runs out on his first turn, the table empty when it began
    live.set_table("R1 R2")
    page.wait_for_function("document.querySelectorAll('#sets .set.invalid').length === 1")
    clock.advance(61)
    page.locator("#restore").wait_for()
    text = page.locator("#restore-text").inner_text()
    assert "The table was empty when the turn began: every tile on it goes back to the racks." in text
    assert "Lay the table out as it was" not in text and page.locator("#restore-sets .set").count() == 0
    save(page, tmp_path, "fixes-restore-empty.png")
    live.set_table("")  # the tiles go back: the banner goes by itself
    page.locator("#restore").wait_for(state="hidden")


def test_israeli_tally_next_hand_waits_and_the_turn_log_on_a_phone(browser, server, tmp_path):
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Ann", "Ben", "Cid"], "rules": "israeli", "options": {"turn_time_limit": 60}})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, bypass_csp=True)
    page.goto(url + "/")
    # 10; the Israeli rules play as many rounds as players (000_*), so the header says where in them the game is
    assert page.locator("#turn-info").inner_text().startswith("Israeli · round 1 of 3 · hand 1 of 3")
    page.click("text=Drew from the pool")
    page.locator("#discard-field").wait_for()
    page.fill("#discard", "K1")
    page.once("dialog", lambda d: d.accept())  # by the count Ann still holds tiles: the players overrule it
    page.click("#rummikub")
    page.locator("#tally").wait_for()
    # 11: the winner's line says what minus scoring gives; 6: who has melded, and what each rack scores
    winner = page.locator("[data-winner=Ann]")
    assert winner.inner_text() == "went out: scores -200, nobody else has melded (minus scoring: low is good)"
    page.fill("textarea[data-player=Ben]", "R5")
    page.wait_for_function("document.querySelector('[data-points=Ben]').textContent.includes('scores')")
    assert page.locator("[data-points=Ben]").inner_text() == (
        "1 tile · 5 points → scores +100 (not melded) (by the count Ben holds 14)")  # 17
    page.check("input[data-melded=Ben]")
    page.wait_for_function("document.querySelector('[data-points=Ben]').textContent.includes('scores +5 (by')")
    assert winner.inner_text() == "went out: scores -100 (minus scoring: low is good)"
    page.fill("textarea[data-player=Cid]", "K2 K3")
    save(page, tmp_path, "fixes-israeli-tally.png")
    page.click("text=Confirm and score")
    # 2: the next hand waits; the scored hand and "Take back this hand" stay whatever lies on the table
    page.locator("#dealing").wait_for()
    assert page.locator("#dealing-title").inner_text() == "Hand 2 is dealt"
    assert page.locator("#clock-caption").inner_text().lower() == "waits for the start"
    assert page.locator("#clock").inner_text() == "1:00"
    assert "hand 1 scored: Ann -100, Ben +5, Cid +100" in page.locator("#last-turn-text").inner_text()
    live.set_table("R1 R2 | K9")  # the old hand's tiles still lie about
    page.wait_for_function("document.querySelectorAll('#sets .set').length === 2")
    assert page.locator("#undo-hand").is_visible() and page.locator("#verdict").is_hidden()
    # second report, 2: no turn press while the hand waits (End turn would judge the old tiles)
    for button in ("#end-turn", "#pass", "#rummikub", "#pool-empty", "text=Drew from the pool"):
        assert page.locator(button).is_hidden(), button
    page.keyboard.press("Space")
    # 3: the card says what starts the hand, camera or none; the tiles still there are to be cleared first
    words = page.locator("#dealing > p").first.inner_text()
    assert "camera" not in words and "Start hand" in words
    assert page.locator("#dealing-table").inner_text().startswith("Clear the table first: the camera still sees 3")
    save(page, tmp_path, "fixes-dealing.png")
    live.set_table("")
    page.locator("#dealing-table").wait_for(state="hidden")
    page.click("#start-hand")
    page.locator("#dealing").wait_for(state="hidden")
    page.wait_for_function("document.getElementById('clock-caption').textContent === 'left of 1:00'")
    assert call(port, "/api/state")["game"]["status"] == "playing"

    # 13: the turn log on a phone: each turn a readable card, nothing wider than the screen
    for discard in ("R9", "B9", "O9"):  # a third R9 would be more than the box holds
        call(port, "/api/turn/draw", {"source": "pool"})
        call(port, "/api/turn/end", {"discard": discard})
        clock.advance(PRESS_GUARD_S)  # the next press is not a moment after this one
    live.set_table("R1 R2 | B4 B5")
    call(port, "/api/turn/draw", {"source": "pool"})
    clock.advance(200)  # an illegal table at the time-out: a long verdict in the log
    for _ in range(100):  # the server's own clock ticks it
        if call(port, "/api/state")["game"]["restore"]:
            break
        page.wait_for_timeout(50)
    page.goto(url + "/scores")
    log = page.locator("#turn-log")
    log.wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    verdict = page.locator("#turn-log td.c-verdict .why").first
    box = verdict.bounding_box()
    assert box["width"] > 300 and box["height"] < 160, box  # whole lines (about 5 here), not a word per line
    rows = log.locator("tbody tr")
    assert rows.first.bounding_box()["width"] <= 390
    log.scroll_into_view_if_needed()
    save(page, tmp_path, "fixes-turn-log-phone.png")


def test_finish_the_game_on_a_phone(browser, server, tmp_path):
    """The organiser finishes the game from the score sheet (a confirmation first, saying the hand in
    progress is not scored): the table shows the final standings instead of the turn, and the way on."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Ann", "Ben", "Cid"]})
    call(port, "/api/rummikub", {"count_checked": True, "winner": "Ann"})
    call(port, "/api/tally/confirm", {"racks": {"Ben": "R5 K7", "Cid": "J"}})  # Ann +42, Ben -12, Cid -30
    call(port, "/api/hand/start", {})
    call(port, "/api/pass", {})  # hand 2 goes on: Ben draws
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    page.goto(url + "/scores")
    page.click("#finish summary")
    assert "Hand 2, in progress, will not be scored" in page.locator("#finish-details").inner_text()
    page.click("text=Keep playing")  # folds away: nothing is sent
    page.locator("#finish-game").wait_for(state="hidden")
    assert call(port, "/api/state")["game"]["status"] == "playing"
    page.click("#finish summary")
    page.click("text=Yes, finish the game")
    page.wait_for_url(url + "/")
    page.locator("#finished").wait_for()
    assert page.locator("#finished").bounding_box()["y"] < 844  # on the first screen, under the clock
    assert page.locator("#finished-result").inner_text() == "Ann wins"
    rows = [r.split("\t") for r in page.locator("#standings-rows tr").all_inner_texts()]
    assert rows == [["1", "Ann", "1", "+42"], ["2", "Ben", "0", "-12"], ["3", "Cid", "0", "-30"]]
    assert page.locator("#who-label").inner_text().lower() == "game over"
    assert page.locator("#current-player").inner_text() == "Ann wins"
    assert page.locator("#clock").inner_text() == "—" and page.locator("#clock-caption").inner_text().lower() == "game over"
    assert page.locator("#end-turn").is_hidden() and page.locator("#rummikub").is_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(page, tmp_path, "phone-finished.png")
    assert call(port, "/api/state")["game"]["status"] == "finished"
    page.click("#new-game-link")
    page.wait_for_url(url + "/new")
    assert page.input_value("textarea[name=players]") == "Ann\nBen\nCid"
    assert "finished: Ann wins" in page.locator("#games").inner_text()


def test_a_wrong_draw_taken_back_and_the_next_hands_trump_on_a_phone(browser, server, tmp_path):
    """American game on a phone: the draw pressed by mistake is taken back and the right one pressed;
    hand 2's own trump tile is typed on the "Hand 2 is dealt" card (a bad code refused by name)."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Al", "Bo"], "rules": "american", "trump": "R7"})
    pool = call(port, "/api/state")["game"]["pool"]
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    page.goto(url + "/")
    page.locator("#draw-trump").wait_for()
    assert page.locator("#draw-discard").is_hidden()  # Al's first turn: no discard may be taken yet (seed 004)
    page.click("text=Took the trump")
    page.locator("#drawn-controls").wait_for()
    assert page.locator("#drawn-text").inner_text() == "Took the trump R7"
    assert page.locator("#draw-controls").is_hidden() and page.locator("#undo-draw").is_enabled()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(page, tmp_path, "phone-undo-draw.png")
    page.click("#undo-draw")
    page.locator("#draw-controls").wait_for()
    assert page.locator("#drawn-controls").is_hidden() and call(port, "/api/state")["game"]["trump_up"]
    page.click("text=Drew from the pool")
    page.wait_for_function("document.getElementById('drawn-text').textContent === 'Drew from the pool'")
    assert call(port, "/api/state")["game"]["pool"] == pool - 1

    page.fill("#discard", "K1")
    page.once("dialog", lambda d: d.accept())  # by the count Al still holds tiles: the players overrule it
    page.click("#rummikub")
    page.locator("#tally").wait_for()
    page.fill("textarea[data-player=Bo]", "R5")
    page.click("text=Confirm and score")
    page.locator("#dealing").wait_for()
    assert page.locator("#hand-trump-field").is_visible() and "trump" not in page.locator("#turn-info").inner_text()
    page.fill("#hand-trump", "R14")
    page.click("#start-hand")
    page.locator("#dealing-error").wait_for()
    assert page.locator("#dealing-error").inner_text() == "trump tile: 'R14' is not a tile"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(page, tmp_path, "phone-hand-trump.png")
    page.fill("#hand-trump", "b4")
    page.wait_for_timeout(500)  # not a double tap of Start hand (the page ignores one)
    page.click("#start-hand")
    page.locator("#dealing").wait_for(state="hidden")
    page.wait_for_function("document.getElementById('turn-info').textContent.includes('trump B4')")
    assert call(port, "/api/state")["game"]["trump"] == "B4"


def test_a_camera_back_mid_game_and_a_forgotten_trump_on_a_phone(browser, server, tmp_path):
    """The camera drops out, Ann says what she placed, the camera comes back: the page says the table it
    found is where Ben's turn started, and that Ben's own tiles laid before cannot be told apart.  Then
    an American game started without its trump: it is set, and a mistyped one corrected, in play."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    page.goto(url + "/")
    current_is(page, "Ann")
    assert page.locator("#trump-control").is_hidden()  # Sabra has no trump
    live.camera_ok, live.camera_error = False, "camera 0 stopped sending frames"
    live.set_table("")
    page.locator("#camera-banner").wait_for()
    say_played(page, 3, "Ben")
    live.camera_ok, live.camera_error = True, None
    live.set_table("R10 R11 R12")  # Ann's run, as the camera now sees it
    page.wait_for_function("document.getElementById('table-found').textContent.includes('once the table holds still')")
    assert page.locator("#camera-banner").is_hidden() and page.locator("#verdict").is_hidden()
    page.wait_for_timeout(600)  # the ticker sees the table hold still from now
    clock.advance(3.0)
    page.wait_for_function("document.getElementById('table-found').textContent.includes('the table it found')")
    words = page.locator("#table-found").inner_text()
    assert "taken as where Ben's turn started (3 tiles placed while no camera saw: R10 R11 R12)" in words
    assert "Tiles Ben placed before it came back cannot be told apart" in words
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(page, tmp_path, "phone-camera-back.png")
    assert [t["action"] for t in call(port, "/api/turns")] == ["unchecked", "table_found"]

    call(port, "/api/game", {"players": ["Al", "Bo"], "rules": "american"})
    page.locator("#trump-control").wait_for()
    assert page.locator("#trump-label").inner_text() == "Trump tile not entered:"
    page.fill("#trump-code", "R14")
    page.click("#set-trump")
    page.wait_for_function("document.getElementById('refusal-text').textContent.includes(\"'R14' is not a tile\")")
    page.fill("#trump-code", "b4")
    page.wait_for_timeout(500)  # not a double tap
    page.click("#set-trump")
    page.wait_for_function("document.getElementById('turn-info').textContent.includes('trump B4')")
    assert page.locator("#set-trump").inner_text() == "Correct trump"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = page.locator("#set-trump").bounding_box()
    assert box["x"] + box["width"] <= 390 and box["height"] >= 44
    save(page, tmp_path, "phone-trump-in-play.png")
    page.fill("#trump-code", "B5")
    page.wait_for_timeout(500)  # not a double tap
    page.keyboard.press("Enter")  # Enter in the box sets it too
    page.wait_for_function("document.getElementById('turn-info').textContent.includes('trump B5')")


@pytest.fixture
def no_camera_server(tmp_path):
    """A server whose camera could not be opened: it keeps turns, clock and scores only."""
    yield from served(tmp_path, UnavailableLive("cannot open source '0': no such camera"))


def test_without_a_camera_the_players_say_what_a_turn_did_on_a_phone(browser, no_camera_server, tmp_path):
    url, port, _, clock = no_camera_server
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, bypass_csp=True)
    page.goto(url + "/")
    current_is(page, "Ann")
    assert page.locator("#camera-banner").is_visible() and page.locator("#unseen").is_hidden()
    page.click("#end-turn")  # End turn asks what the turn did: nothing is sent yet
    page.locator("#unseen").wait_for()
    assert call(port, "/api/turns") == [] and "what did Ann do?" in page.locator("#unseen-title").inner_text()
    assert page.locator("#unseen-tiles-field").is_hidden()  # Ann's rack is not typed
    page.click("#unseen [data-step='1']")
    page.click("#unseen [data-step='1']")
    assert page.input_value("#unseen-count") == "3"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for button in ("#unseen-drew", "#unseen-played", "#unseen [data-step='1']", "#unseen [data-step='-1']"):
        box = page.locator(button).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["height"] >= 44, (button, box)
    save(page, tmp_path, "phone-no-camera-turn.png")
    page.click("#unseen-played")
    current_is(page, "Ben")
    page.locator("#unseen").wait_for(state="hidden")
    assert page.locator("#last-turn-text").inner_text() == ("Last turn, Ann: placed 3 tiles (not checked: no "
                                                            "camera saw the table; a count cannot show a first "
                                                            "meld's 30 points)")
    assert page.locator("#players tr").first.inner_text().split("\t")[1::2] == ["11", "yes"]  # tiles, melded
    clock.advance(PRESS_GUARD_S)
    page.keyboard.press("Space")  # the space bar asks too
    page.locator("#unseen").wait_for()
    assert page.locator("#unseen-drew").inner_text() == "Drew a tile"
    page.click("#unseen-drew")
    current_is(page, "Ann")
    assert "Ben: nothing placed: draws a tile" in page.locator("#last-turn-text").inner_text()
    assert [(t["action"], t["placed"]) for t in call(port, "/api/turns")] == [("unchecked", "3 tiles"), ("draw", "")]
    page.goto(url + "/scores")
    assert "not checked: no camera saw the table" in page.locator("#turn-log").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_a_wrong_answer_is_undone_on_a_phone(browser, no_camera_server, tmp_path):
    """Ann drew, but Played 3 tiles was pressed: Undo last turn, beside the last turn's line, asks and takes it
    back; the button shows only while the turn can be taken back."""
    url, port, _, clock = no_camera_server
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, bypass_csp=True)
    posts = []
    page.on("request", lambda r: posts.append(r.url.split("/api/")[-1]) if r.method == "POST" else None)
    page.goto(url + "/")
    current_is(page, "Ann")
    assert page.locator("#undo-turn").is_hidden()  # no turn has ended
    say_played(page, 3, "Ben")
    page.locator("#undo-turn").wait_for()
    assert page.locator("#undo-turn").inner_text() == "Undo last turn"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = page.locator("#undo-turn").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["height"] >= 44, box
    save(page, tmp_path, "phone-undo-last-turn.png")
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))  # not now: nothing is sent
    page.wait_for_timeout(500)  # not a double tap of the button before
    page.click("#undo-turn")
    page.wait_for_function("() => !document.body.classList.contains('busy')")
    assert asked == ["Undo Ann's turn (turn 1)? Last turn, Ann: placed 3 tiles (not checked: no camera saw the "
                     "table; a count cannot show a first meld's 30 points). It becomes Ann's turn again, as it was "
                     "before it ended: the rack counts, the pool, who has melded and the clock go back with it. "
                     "The turn log keeps it, marked taken back."]  # Sabra has no discards to go back
    assert "turn/undo" not in posts and page.locator("#current-player").inner_text() == "Ben"
    page.once("dialog", lambda d: d.accept())
    page.wait_for_timeout(500)
    page.click("#undo-turn")
    current_is(page, "Ann")
    assert page.locator("#last-turn").is_hidden() and page.locator("#undo-turn").is_hidden()
    assert page.locator("#players tr").first.inner_text().split("\t")[1::2] == ["14", "no"]  # tiles, melded
    clock.advance(PRESS_GUARD_S)
    page.click("#end-turn")  # the right answer: Ann drew
    page.locator("#unseen").wait_for()
    page.click("#unseen-drew")
    current_is(page, "Ben")
    assert "Ann: nothing placed: draws a tile" in page.locator("#last-turn-text").inner_text()
    page.locator("#undo-turn").wait_for()  # a draw said with no camera can be taken back too
    assert [(t["action"], t["undone"]) for t in call(port, "/api/turns")] == [("unchecked", True), ("draw", False)]
    clock.advance(61)  # Ben's clock runs out: his turn waits, and Ann's can no longer be taken back
    page.locator("#undo-turn").wait_for(state="hidden")
    page.goto(url + "/scores")
    assert "taken back (Undo last turn)" in page.locator("#turn-log").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def draw_and_end(page, discard: str) -> None:
    """American, no camera: draw from the pool, type the discard, press End turn: it asks what the turn did."""
    page.click("text=Drew from the pool")
    page.locator("#discard-field").wait_for()
    page.fill("#discard", discard)
    page.click("#end-turn")
    page.locator("#unseen").wait_for()


def test_the_last_turn_names_the_discarded_tile(browser, no_camera_server, tmp_path):
    url, port, _, clock = no_camera_server
    call(port, "/api/game", {"players": ["Al", "Bo"], "rules": "american"})
    page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page.goto(url + "/")
    current_is(page, "Al")
    draw_and_end(page, "r7")
    assert page.locator("#unseen-drew").inner_text() == "Only discarded"  # the draw was pressed already
    page.click("#unseen-drew")
    current_is(page, "Bo")
    assert page.locator("#last-turn-text").inner_text().startswith("Last turn, Al: discarded")
    tile = page.locator("#last-turn-text .tile")
    assert tile.get_attribute("title") == "R7" and "c-R" in tile.get_attribute("class") and tile.inner_text() == "7"
    clock.advance(PRESS_GUARD_S)
    draw_and_end(page, "K1")
    page.click("#unseen [data-step='1']")
    asked = []  # 2 tiles are no first meld: the page asks, and the players say Bo had melded before
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.click("#unseen-played")
    current_is(page, "Al")
    assert asked and asked[0].startswith("By the game's record Bo has not melded yet")
    assert page.locator("#last-turn-text").inner_text().startswith(
        "Last turn, Bo: placed 2 tiles (not checked: no camera saw the table), discarded")
    assert page.locator("#last-turn-text .tile").get_attribute("title") == "K1"
    save(page, tmp_path, "laptop-discard-named.png")
    assert call(port, "/api/state")["game"]["players"][1]["rack_count"] == 12


def count_on_two_phones(browser, url: str, shown: str) -> list:
    """Two phones at the table (390 px wide), each on the count once ``shown`` is on its page."""
    phones = []
    for _ in range(2):
        page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                bypass_csp=True)
        page.goto(url + "/")
        page.locator(shown).wait_for()
        phones.append(page)
    return phones


def test_each_player_types_their_rack_on_their_own_phone_and_another_confirms(browser, server, tmp_path):
    """A club table: Ben and Cid type their own racks on their own phones; what one saves is on the other's
    page, the box being typed in keeps its text, a code that is not a tile is refused in words, and the
    phone that did not type Ben's rack confirms the hand."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Ann", "Ben", "Cid"]})
    call(port, "/api/rummikub", {"count_checked": True, "winner": "Ann"})
    phones = count_on_two_phones(browser, url, "#tally")
    ben, cid = phones
    cid.fill("textarea[data-player=Cid]", "K2 K")  # Cid is still typing ...
    ben.fill("textarea[data-player=Ben]", "r5 x9")
    ben.press("textarea[data-player=Ben]", "Enter")  # done: saved, refused
    ben.locator("#tally-error").wait_for()
    assert ben.locator("#tally-error").inner_text() == "Ben's rack: 'x9' is not a tile"
    assert ben.input_value("textarea[data-player=Ben]") == "r5 x9"  # kept as typed, to be corrected
    ben.fill("textarea[data-player=Ben]", "r5 k7")
    ben.press("textarea[data-player=Ben]", "Enter")
    ben.wait_for_function("document.querySelector('textarea[data-player=Ben]').value === 'R5 K7'")
    # ... and Cid's phone shows Ben's rack while Cid's own box keeps its text and the focus
    cid.wait_for_function("document.querySelector('textarea[data-player=Ben]').value === 'R5 K7'")
    cid.wait_for_function("document.querySelector('[data-points=Ben]').textContent.includes('12 points')")
    assert cid.input_value("textarea[data-player=Cid]") == "K2 K"
    assert cid.evaluate("document.activeElement.dataset.player") == "Cid"
    cid.type("textarea[data-player=Cid]", "3")
    cid.locator("textarea[data-player=Cid]").blur()  # saved when the box is left
    ben.wait_for_function("document.querySelector('textarea[data-player=Cid]').value === 'K2 K3'")
    assert call(port, "/api/state")["game"]["tally"]["racks"] == {"Ann": "", "Ben": "R5 K7", "Cid": "K2 K3"}
    assert ben.evaluate("document.documentElement.scrollWidth") <= 390
    save(ben, tmp_path, "phone-tally-shared.png")
    cid.click("text=Confirm and score")  # Cid's phone never typed Ben's rack
    for page in phones:
        page.locator("#dealing").wait_for()
        assert "hand 1 scored: Ann +17, Ben -12, Cid -5" in page.locator("#last-turn-text").inner_text()


def test_an_international_closed_win_shows_its_value_before_confirm(browser, server, tmp_path):
    """The winner's closed hand is typed: the line of the player who went out names its type and what it
    scores, and a loser who never melded pays it, before anyone presses Confirm."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Ann", "Ben"], "rules": "international"})
    call(port, "/api/rummikub", {"count_checked": True, "discard": "K13"})  # Ann starts with 15 tiles
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    page.goto(url + "/")
    page.locator("#tally-intl").wait_for()
    winner = page.locator("[data-winner=Ann]")
    page.fill("textarea[data-player=Ben]", "K5")
    page.select_option("#win", "closed")
    page.wait_for_function("document.querySelector('[data-winner=Ann]').textContent.includes('14 tiles')")
    page.fill("#closed-hand", "R1 R2 R3")
    page.wait_for_function("document.querySelector('[data-winner=Ann]').textContent.includes('not 3')")
    assert winner.inner_text() == "went out closed: the closed hand: a closed hand has 14 tiles, not 3"
    page.fill("#closed-hand", "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 R1")
    box = page.evaluate("(() => { const b = document.getElementById('closed-hand'); "
                        "return [b.scrollWidth <= b.clientWidth, b.scrollHeight <= b.clientHeight + 2]; })()")
    assert box == [True, True]  # all 14 tiles in view on a phone, not cut off in a one-line box
    page.wait_for_function("document.querySelector('[data-winner=Ann]').textContent.includes('Royal')")
    assert winner.inner_text() == "went out closed: Royal, 2400 points → scores +2400"
    ben = page.locator("[data-points=Ben]")
    page.wait_for_function("document.querySelector('[data-points=Ben]').textContent.includes('-2400')")
    assert ben.inner_text() == "1 tile · 5 points → scores -2400 (not melded) (by the count Ben holds 14)"
    page.check("#joker-discard")
    page.wait_for_function("document.querySelector('[data-winner=Ann]').textContent.includes('+4800')")
    assert winner.inner_text() == "went out closed: Royal, 2400 points → scores +4800 (doubled by the joker discard)"
    page.wait_for_function("document.querySelector('[data-points=Ben]').textContent.includes('-4800')")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(page, tmp_path, "phone-closed-win.png")
    page.click("text=Confirm and score")
    page.locator("#dealing").wait_for()
    assert "hand 1 scored: Ann +4800, Ben -4800" in page.locator("#last-turn-text").inner_text()


def test_every_international_win_says_its_points_and_a_winner_who_melded_cannot_go_out_on_foot(browser, server,
                                                                                              tmp_path):
    """The tally names the final discard; Open and Foot say their points and then the score after the joker
    discard's doubling, as Closed does; a winner who had melded before going out cannot go out on foot."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Ann", "Ben"], "rules": "international"})
    call(port, "/api/rummikub", {"count_checked": True, "discard": "J"})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    page.goto(url + "/")
    page.locator("#tally-intl").wait_for()
    assert page.locator("#tally-title").inner_text() == "Rummikub! Ann went out (final discard J): counting the racks"
    winner = page.locator("[data-winner=Ann]")
    page.wait_for_function("document.querySelector('[data-winner=Ann]').textContent.includes('points')")
    assert winner.inner_text() == \
        "went out open: 200 points, nobody else has melded → scores +400 (doubled by the joker discard)"
    page.select_option("#win", "foot")
    page.wait_for_function("document.querySelector('[data-winner=Ann]').textContent.includes('on foot')")
    assert winner.inner_text() == "went out on foot: 200 points → scores +400 (doubled by the joker discard)"
    page.select_option("#win", "open")
    page.wait_for_function("document.querySelector('[data-winner=Ann]').textContent.includes('open')")
    page.check("#winner-melded")  # she had melded before this turn
    page.wait_for_function("document.querySelector('#winner-melded').checked")
    for _ in range(50):
        if call(port, "/api/state")["game"]["tally"]["winner_melded"]:
            break
        page.wait_for_timeout(100)
    page.select_option("#win", "foot")
    page.locator("#tally-error").wait_for()
    assert "Ann melded earlier this hand, so cannot go out on foot" in page.locator("#tally-error").inner_text()
    page.wait_for_function("document.querySelector('#win').value === 'open'")  # back to what the count holds
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(page, tmp_path, "phone-foot-refused.png")


def test_the_closed_win_typed_on_the_winners_phone_is_scored_by_the_other(browser, server, tmp_path):
    """International at a club table: Ann enters her Closed win, its 14 tiles and the joker discard on her
    phone; Ben's page shows them as she saves them (a hand that is not 14 tiles is refused on hers, kept
    as typed), previews the hand and what Ben pays, and Ben's phone, that typed none of it, confirms."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Ann", "Ben"], "rules": "international"})
    call(port, "/api/rummikub", {"count_checked": True, "discard": "K13"})  # Ann starts with 15 tiles
    phones = count_on_two_phones(browser, url, "#tally-intl")
    ann, ben = phones
    ben.fill("textarea[data-player=Ben]", "K5")
    ben.press("textarea[data-player=Ben]", "Enter")
    ann.select_option("#win", "closed")
    ben.wait_for_function("document.querySelector('#win').value === 'closed'")
    ann.fill("#closed-hand", "R1 R2 R3")
    ann.press("#closed-hand", "Enter")
    ann.locator("#tally-error").wait_for()
    assert ann.locator("#tally-error").inner_text() == "the closed hand: a closed hand has 14 tiles, not 3"
    assert ann.input_value("#closed-hand") == "R1 R2 R3"  # kept as typed, to be corrected
    ann.fill("#closed-hand", ROYAL.lower())
    ann.press("#closed-hand", "Enter")
    ben.wait_for_function(f"document.querySelector('#closed-hand').value === '{ROYAL}'")
    ben.wait_for_function("document.querySelector('[data-winner=Ann]').textContent.includes('Royal')")
    ann.check("#joker-discard")
    ben.wait_for_function("document.querySelector('#joker-discard').checked")
    ben.wait_for_function("document.querySelector('[data-winner=Ann]').textContent.includes('+4800')")
    assert ben.locator("[data-winner=Ann]").inner_text() == \
        "went out closed: Royal, 2400 points → scores +4800 (doubled by the joker discard)"
    ben.wait_for_function("document.querySelector('[data-points=Ben]').textContent.includes('-4800')")
    tally = call(port, "/api/state")["game"]["tally"]
    assert (tally["win"], tally["hand"], tally["joker_discard"]) == ("closed", ROYAL, True)
    assert ben.evaluate("document.documentElement.scrollWidth") <= 390
    save(ben, tmp_path, "phone-closed-win-shared.png")
    ben.click("text=Confirm and score")
    for page in phones:
        page.locator("#dealing").wait_for()
        assert "hand 1 scored: Ann +4800, Ben -4800" in page.locator("#last-turn-text").inner_text()


def test_a_game_of_agreed_rounds_finishes_itself_on_a_phone(browser, server, tmp_path):
    """One round of two players: the second hand confirmed on the page ends the game with its standings;
    the game over card can take that hand back, and the game goes on from its count."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Ann", "Ben"], "options": {"rounds": 1}})
    call(port, "/api/rummikub", {"count_checked": True, "winner": "Ann"})
    call(port, "/api/tally/confirm", {"racks": {"Ben": "R5 K7"}})  # Ann +12
    call(port, "/api/hand/start", {})
    call(port, "/api/rummikub", {"count_checked": True, "winner": "Ben"})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    page.goto(url + "/")
    page.locator("#tally").wait_for()
    assert "round 1 of 1 · hand 2 of 2 · last hand" in page.locator("#turn-info").inner_text()
    page.fill("#tally-rows textarea[data-player=Ann]", "K1")
    page.click("[data-action=confirm-tally]")
    page.locator("#finished").wait_for()
    assert page.locator("#finished-result").inner_text() == "Ann wins"
    assert page.locator("#turn-info").inner_text() == "Sabra · finished after 2 hands · 1 round agreed"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(page, tmp_path, "phone-rounds-finished.png")
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.click("#finished-undo")
    page.locator("#tally").wait_for()
    assert page.locator("#finished").is_hidden() and call(port, "/api/state")["game"]["status"] == "tally"
    assert asked == ["Take back hand 2? Its scores come off the sheet and its count opens again with the racks "
                     "as confirmed: the game is no longer over."]


# Settings and New game during a game (a club evening on phones): a rulebook keeps the table's clock and
# length and the page shows what was saved; New game asks before it replaces the game in play


def test_a_rulebook_picked_on_settings_during_a_game_on_a_phone(browser, server, tmp_path):
    """Jo, Kim and Lou play Sabra, 40 s a turn, 2 rounds.  "Sabra, Dutch edition" picked on Settings dropped
    the rounds and the clock and left the form showing the old rules, which "Save rules" then saved again."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Jo", "Kim", "Lou"], "rules": "sabra",
                             "options": {"turn_time_limit": 40, "rounds": 2}})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    asked = []
    page.on("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.goto(url + "/settings")
    page.select_option("select[name=rules]", "dutch_sabra")
    page.click("text=Use these rules")
    page.locator("#form-ok", has_text="From hand 2").wait_for()
    assert "A joker left on a rack costs: 25 (was 30)" in page.locator("#form-ok").inner_text() and asked == []
    s = call(port, "/api/state")
    assert s["game"]["length"]["words"] == "round 1 of 2 · hand 1 of 3" and s["clock"]["limit"] == 40
    # the form shows what was saved, so "Save rules" after another change keeps the Dutch rules
    assert [page.input_value(f"#opt-{n}") for n in ("joker_penalty", "turn_time_limit", "rounds")] == ["25", "40", "2"]
    assert page.locator("#pending").inner_text() == "From the next hand: Sabra rules, 30-point first meld, 40 s a turn."
    page.fill("#opt-initial_meld", "40")
    page.click("text=Save rules")
    page.locator("#form-ok", has_text="Points the first meld needs: 40 (was 30)").wait_for()
    saved = call(port, "/api/options")["options"]
    assert (saved["joker_penalty"], saved["manipulate_on_initial_meld"], saved["initial_meld"]) == (25, True, 40)
    assert (saved["turn_time_limit"], saved["rounds"]) == (40, 2)
    # another game: the question says what changes from when; the clock and the rounds stay
    page.select_option("select[name=rules]", "american")
    page.click("text=Use these rules")
    page.locator("#form-ok", has_text="Game: American (was Sabra)").wait_for()
    assert len(asked) == 1 and asked[0].startswith("The game on the table plays Sabra rules. Switch it to American? "
                                                   "From hand 2: Game: American (was Sabra);")
    assert "Seconds per turn" not in asked[0] and "Rounds" not in asked[0]
    assert [page.input_value(f"#opt-{n}") for n in ("game", "initial_meld", "turn_time_limit", "rounds")] == \
        ["american", "21", "40", "2"]
    assert call(port, "/api/state")["game"]["length"]["words"] == "round 1 of 2 · hand 1 of 3"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(page, tmp_path, "phone-settings-rulebook-in-game.png")


def test_new_game_asks_before_it_replaces_the_game_in_play_on_a_phone(browser, server, tmp_path):
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Jo", "Kim", "Lou"]})
    first = call(port, "/api/state")["game"]["id"]
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.goto(url + "/new")
    # several names on one line are one player's name: the form says so, and sends nothing
    page.fill("textarea[name=players]", "Ann Ben Cid")
    page.click("button:has-text('Start the game')")
    page.locator("#form-error", has_text="Type one name per line").wait_for()
    assert page.locator("#form-error").inner_text().startswith('Only one player: "Ann Ben Cid".') and posts == []
    page.fill("textarea[name=players]", "Ann\nBen")
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))  # "Keep playing"
    page.click("button:has-text('Start the game')")
    page.wait_for_function("!document.querySelector('#new-game button[type=submit]').disabled")
    assert asked == ["Jo, Kim and Lou are playing a game (hand 1). Start a new game in its place? "
                     "That game is kept: resume it from Earlier games on this page."]
    assert posts == [] and call(port, "/api/state")["game"]["id"] == first and page.url == url + "/new"
    save(page, tmp_path, "phone-new-game-in-play.png")
    page.once("dialog", lambda d: d.accept())
    page.click("button:has-text('Start the game')")
    page.wait_for_url(url + "/")
    assert [p["name"] for p in call(port, "/api/state")["game"]["players"]] == ["Ann", "Ben"]


# a club evening on three phones with no camera: refusals that stay readable, a rack typed while the server was
# down, presses that throw work away asking first, a count and a game over that say what a table no camera
# sees can know


def say_played(page, tiles: int, next_player: str) -> None:
    """End turn with no camera, answered "Played tiles: ``tiles``" (the count starts at 1); the turn passes."""
    page.click("#end-turn")
    page.locator("#unseen").wait_for()
    for _ in range(tiles - 1):
        page.click("#unseen [data-step='1']")
    page.click("#unseen-played")
    current_is(page, next_player)


def lose_posts(page, path: str, delay_ms: int | None = None) -> None:
    """This phone's POSTs to a URL holding ``path`` fail as over a lost connection (the page's fetch
    rejects), or with ``delay_ms`` arrive that late; every other request goes through. Done in the page,
    so the server and the browser's network stay untouched."""
    page.evaluate("""([path, delay]) => {
      const real = window.realFetch || (window.realFetch = window.fetch);
      window.fetch = (url, opts = {}) => {
        if (!String(url).includes(path) || (opts.method || "GET") !== "POST") return real(url, opts);
        if (delay === null) return Promise.reject(new TypeError("Failed to fetch"));
        return new Promise((done) => setTimeout(done, delay)).then(() => real(url, opts));
      };
    }""", [path, delay_ms])


def posts_arrive_again(page) -> None:
    page.evaluate("() => { if (window.realFetch) window.fetch = window.realFetch; }")


def phone(browser, url: str):
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, bypass_csp=True)
    page.goto(url + "/")
    return page


def test_a_refused_press_stays_readable_through_the_refresh_it_brings(browser, no_camera_server, tmp_path):
    """Ann's phone passes; Ben's phone presses Pass a moment later, meant for Ann's turn: the server refuses it
    (409) and the state it then fetches redraws the page, but the refusal stays, with its "Press again"."""
    url, port, _, clock = no_camera_server
    call(port, "/api/game", {"players": ["Ann", "Ben", "Cid"]})
    ann, ben = phone(browser, url), phone(browser, url)
    current_is(ben, "Ann")
    ann.click("#pass")
    current_is(ben, "Ben")
    ben.click("#pass")
    shown = "document.body.innerText.includes(\"Press again to end Ben's turn.\")"
    ben.wait_for_function(shown)
    ben.wait_for_timeout(2500)  # long after the refresh the refusal brought
    assert ben.evaluate(shown) and ben.locator("#refusal").is_visible()
    assert ben.locator("#refusal-text").inner_text().startswith("Ben's turn began a moment ago: was that press for")
    assert ben.evaluate("document.documentElement.scrollWidth") <= 390
    save(ben, tmp_path, "phone-refusal.png")
    assert [t["player"] for t in call(port, "/api/turns")] == ["Ann"]
    ben.click("#refusal-close")  # read: dismissed
    ben.locator("#refusal").wait_for(state="hidden")
    clock.advance(PRESS_GUARD_S)
    ben.click("#end-turn")  # no camera: End turn asks what the turn did
    ben.locator("#unseen").wait_for()
    ben.click("#unseen-drew")
    current_is(ben, "Cid")
    assert ben.locator("#refusal").is_hidden()


def test_a_rack_left_while_the_server_is_down_is_marked_and_sent_again(browser, no_camera_server, tmp_path):
    """Cid changes his rack and leaves the box while the companion is not answering: his phone marks the
    box not saved, and sends it again once the server answers, so every phone and the score agree."""
    url, port, _, clock = no_camera_server
    call(port, "/api/game", {"players": ["Ann", "Ben", "Cid"]})
    call(port, "/api/rummikub", {"count_checked": True, "winner": "Ann"})
    call(port, "/api/tally/rack", {"player": "Cid", "rack": "B7 B8 K1"})
    ben, cid = count_on_two_phones(browser, url, "#tally")
    box = "textarea[data-player=Cid]"
    cid.wait_for_function(f"document.querySelector('{box}').value === 'B7 B8 K1'")
    cid.route("**/api/**", lambda route: route.abort())  # the server stops answering
    cid.fill(box, "B7 B8 K1 R9")
    cid.locator(box).blur()
    cid.locator("#offline-banner").wait_for()
    mark = cid.locator("[data-unsaved=Cid]")
    mark.wait_for()
    assert mark.inner_text() == "not saved: the companion is not answering; sent again when it answers"
    assert cid.evaluate("document.documentElement.scrollWidth") <= 390
    save(cid, tmp_path, "phone-rack-not-saved.png")
    assert call(port, "/api/state")["game"]["tally"]["racks"]["Cid"] == "B7 B8 K1"
    cid.unroute("**/api/**")  # back: the box is sent again by itself
    ben.wait_for_function(f"document.querySelector('{box}').value === 'B7 B8 K1 R9'", timeout=10_000)
    mark.wait_for(state="hidden")
    assert call(port, "/api/state")["game"]["tally"]["racks"]["Cid"] == "B7 B8 K1 R9"
    assert cid.locator("#offline-banner").is_hidden() and cid.input_value(box) == "B7 B8 K1 R9"
    ben.fill("textarea[data-player=Ben]", "K5")
    ben.click("text=Confirm and score")  # Ben's phone scores Cid's rack as Cid typed it
    ben.locator("#dealing").wait_for()
    assert "Cid -25" in ben.locator("#last-turn-text").inner_text()


def test_taking_a_hand_back_and_leaving_the_count_ask_first(browser, no_camera_server, tmp_path):
    """Take back this hand, one tap above End turn, and Back to the game, which throws away the racks other
    phones entered, ask first, saying what goes; answered no, nothing changes."""
    url, port, _, clock = no_camera_server
    call(port, "/api/game", {"players": ["Ann", "Ben", "Cid"]})
    call(port, "/api/rummikub", {"count_checked": True, "winner": "Ann"})
    call(port, "/api/tally/confirm", {"racks": {"Ben": "R5 K7", "Cid": "K2"}})
    page = phone(browser, url)
    page.locator("#dealing").wait_for()
    asked = []

    def answer(yes: bool) -> None:
        page.once("dialog", lambda d: (asked.append(d.message), d.accept() if yes else d.dismiss()))

    answer(False)
    page.click("#undo-hand")
    page.wait_for_timeout(500)
    assert asked == ["Take back hand 1? Its scores come off the sheet and its count opens again with the racks "
                     "as confirmed: hand 2, dealt, is not played."]
    assert call(port, "/api/state")["game"]["status"] == "dealing"
    call(port, "/api/hand/start", {})
    page.locator("#end-turn").wait_for()  # hand 2's first turn: Take back this hand sits above End turn
    answer(False)
    page.click("#undo-hand")
    page.wait_for_timeout(500)
    assert asked[-1].endswith(": Ben's turn in progress, the first of hand 2, is thrown away.")
    assert call(port, "/api/state")["game"]["status"] == "playing"
    clock.advance(PRESS_GUARD_S)
    answer(True)
    page.wait_for_timeout(500)  # not a double tap
    page.click("#undo-hand")
    page.locator("#tally").wait_for()  # hand 1's count again, the racks as confirmed
    answer(False)
    page.click("text=Back to the game")
    page.wait_for_timeout(500)
    assert asked[-1] == ("Back to the game? This count is thrown away with the racks entered for Ben and Cid: "
                         "when the hand ends again, they are entered again.")
    assert call(port, "/api/state")["game"]["status"] == "tally"
    answer(True)
    page.wait_for_timeout(500)
    page.click("text=Back to the game")
    page.locator("#end-turn").wait_for()
    assert call(port, "/api/state")["game"]["status"] == "playing"
    clock.advance(PRESS_GUARD_S)
    call(port, "/api/rummikub", {"count_checked": True, "winner": "Ann"})
    page.locator("#tally").wait_for()
    page.wait_for_timeout(500)  # not a double tap
    page.click("text=Back to the game")  # nothing entered: nothing to lose, nothing asked
    page.locator("#end-turn").wait_for()
    assert len(asked) == 5


def test_with_no_camera_an_american_rummikub_asks_about_the_final_discard_not_an_empty_rack(
        browser, no_camera_server):
    """The American winner goes out holding the final discard: "if Ann's rack is empty" asked the wrong thing."""
    url, port, _, clock = no_camera_server
    call(port, "/api/game", {"players": ["Ann", "Ben"], "rules": "american", "trump": "R7"})
    page = phone(browser, url)
    current_is(page, "Ann")
    page.click("text=Drew from the pool")
    page.locator("#discard-field").wait_for()
    page.fill("#discard", "K3")
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.click("#rummikub")
    page.locator("#tally").wait_for()
    assert asked == ["No camera sees the table, so the count knows only the tiles said to be placed, not those "
                     "laid to go out: by it, Ann still holds 14 tiles. Call Rummikub! if Ann has laid every tile "
                     "but the final discard."]


def test_with_no_camera_rummikub_and_the_count_speak_of_typing(browser, no_camera_server, tmp_path):
    """No camera ever sees the last tiles laid, so a right Rummikub! always meets the count: the question
    says why instead of reading as an error; the count asks for racks typed and offers no Read."""
    url, port, _, clock = no_camera_server
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    page = phone(browser, url)
    current_is(page, "Ann")
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.click("#rummikub")
    page.locator("#tally").wait_for()
    assert asked == ["No camera sees the table, so the count knows only the tiles said to be placed, not those "
                     "laid to go out: by it, Ann still holds 14 tiles. Call Rummikub! if Ann's rack is empty."]
    assert page.locator("#tally-how-typed").inner_text().startswith(
        "No camera sees the table: type the tiles left on each rack")
    assert page.locator("#tally-how-camera").is_hidden()
    assert page.locator("#tally [data-action=read-rack]").count() == 1
    assert page.locator("#tally [data-action=read-rack]").is_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(page, tmp_path, "phone-count-no-camera.png")


def cells(page, column: int) -> list:
    """The texts of a column of the Players table (1: the name, 2: tiles, 3: score, 4: melded)."""
    return page.locator(f"#players tr td:nth-child({column})").all_inner_texts()


def test_a_game_without_a_camera_does_not_contradict_itself_on_a_phone(browser, no_camera_server, tmp_path):
    """What the page says agrees with a table no camera sees: the camera's absence is a notice, not an error;
    tiles placed are not called "no tiles"; the player who went out holds none; totals are signed as in the
    standings; a finished game shows no hand in play and no hint; the hint's words fit a phone."""
    url, port, _, clock = no_camera_server
    call(port, "/api/game", {"players": ["Ann", "Ben"], "options": {"rounds": 1}})
    page = phone(browser, url)
    current_is(page, "Ann")
    banner = page.locator("#camera-banner")
    assert banner.is_visible() and "problem" not in banner.get_attribute("class")
    assert page.locator("#camera-text").inner_text() == (
        "No camera sees the table: the camera could not be opened. The game goes on without it: End turn asks what "
        "each turn did, and the racks are typed at the count.")
    assert page.locator("#camera-why").is_hidden()  # the source's own words, folded away under "details"
    box = page.locator("#camera-details summary").bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44, box  # a finger finds it
    save(page, tmp_path, "phone-no-camera-banner.png")
    page.click("#camera-details summary")
    assert page.locator("#camera-why").inner_text() == "Cannot open source '0': no such camera."
    page.click("#end-turn")
    page.locator("#unseen").wait_for()
    page.click("#unseen [data-step='1']")
    page.once("dialog", lambda d: d.accept())  # 2 tiles are no first meld by the record: Ann had melded, say
    page.click("#unseen-played")
    current_is(page, "Ben")
    assert page.locator("#sets").inner_text() == "No camera sees the table: its tiles are not shown here."
    page.check("#hint-toggle")
    page.locator("#hint-body").wait_for()
    label, who = page.locator("#hint-body label").bounding_box(), page.locator("#hint-player").bounding_box()
    assert abs(who["y"] - label["y"]) < 6, (label, who)  # "Rack of Ben (kept hidden)" on one line at 390 px
    save(page, tmp_path, "phone-no-camera-placed.png")
    clock.advance(PRESS_GUARD_S)
    page.once("dialog", lambda d: d.accept())
    page.click("#rummikub")
    page.locator("#tally").wait_for()
    assert cells(page, 2) == ["12", "went out"]  # not the 14 Ben holds by the count
    page.fill("textarea[data-player=Ann]", "R5 K7")
    page.click("text=Confirm and score")
    page.locator("#dealing").wait_for()
    page.wait_for_function("document.querySelector('#players tr td:nth-child(3)').textContent === '-12'")
    assert cells(page, 3) == ["-12", "+12"]
    call(port, "/api/hand/start", {})
    call(port, "/api/rummikub", {"count_checked": True, "winner": "Ben"})
    call(port, "/api/tally/confirm", {"racks": {"Ann": "K1"}})
    page.locator("#finished").wait_for()
    assert page.locator("#standings-rows").inner_text().count("+13") == 1
    page.wait_for_function("document.querySelector('#players tr td:nth-child(3)').textContent === '-13'")
    assert cells(page, 3) == ["-13", "+13"]
    for column in (2, 4):  # tiles and melded: of a hand nobody plays
        assert page.locator(f"#players-table th:nth-child({column}), #players td:nth-child({column})").count() == 3
        assert all(not c.is_visible() for c in page.locator(f"#players-table :is(th, td):nth-child({column})").all())
    assert page.locator("#pool-info").inner_text() == "" and page.locator("#hint-card").is_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(page, tmp_path, "phone-no-camera-game-over.png")


def test_time_up_pool_empty_and_rules_for_the_dealt_hand_on_a_phone(browser, server, tmp_path):
    """American on a phone: a turn whose time runs out after the trump was taken waits for its discard (the
    trump face up again); Pool empty works at the draw and asks while the pool holds tiles by the count;
    rules saved while hand 2 is dealt are hand 2's, and the turn line says so."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Al", "Bo"], "rules": "american", "trump": "R7",
                             "options": {"turn_time_limit": 60}})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    page.goto(url + "/")
    page.locator("#draw-controls").wait_for()
    assert page.locator("#pool-empty").is_enabled()  # at the draw too: an empty pool is found there
    page.click("text=Took the trump")
    page.locator("#drawn-controls").wait_for()
    clock.advance(61)
    page.wait_for_function("document.getElementById('turn-info').textContent.includes('time is up: discard now')")
    assert page.locator("#clock-caption").text_content() == "time is up"
    assert page.locator("#drawn-text").inner_text() == "Drew from the pool"
    assert page.locator("#undo-draw").is_disabled() and call(port, "/api/state")["game"]["trump_up"]
    save(page, tmp_path, "phone-time-up-discard.png")
    page.fill("#discard", "K3")
    page.click("#end-turn")
    current_is(page, "Bo")
    assert page.locator("#last-turn-text").inner_text().startswith(
        "Last turn, Al: time is up (the trump went back face up and a tile was drawn from the pool instead), "
        "discarded")
    clock.advance(PRESS_GUARD_S)
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.click("#pool-empty")
    page.wait_for_function("document.getElementById('refusal-text').textContent.includes('still in the pool')")
    pool = call(port, "/api/state")["game"]["pool"]
    assert asked == [f"By the count, {pool} tiles are still in the pool. Call Pool empty anyway?"]
    page.wait_for_timeout(500)  # not a double tap
    page.once("dialog", lambda d: d.accept())
    page.click("#pool-empty")
    page.locator("#tally").wait_for()
    page.fill("textarea[data-player=Al]", "R5")
    page.fill("textarea[data-player=Bo]", "K6")
    page.click("text=Confirm and score")
    page.locator("#dealing").wait_for()
    call(port, "/api/settings", {"options": {"initial_meld": 30}})
    page.wait_for_function("document.getElementById('turn-info').textContent.includes("
                           "'this hand: American rules, 30-point first meld, 60 s a turn')")
    assert "next hand" not in page.locator("#turn-info").inner_text()


def test_a_time_out_with_no_camera_asks_what_the_turn_did_on_a_phone(browser, no_camera_server, tmp_path):
    url, port, _, clock = no_camera_server
    call(port, "/api/game", {"players": ["Ann", "Ben"], "options": {"turn_time_limit": 30}})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, bypass_csp=True)
    page.goto(url + "/")
    current_is(page, "Ann")
    clock.advance(31)
    page.locator("#unseen").wait_for()  # asked by itself: nobody saw what Ann did
    assert page.locator("#unseen-why").inner_text().startswith("Time is up. No camera sees the table")
    assert page.locator("#clock-caption").text_content() == "time is up"
    assert page.locator("#current-player").inner_text() == "Ann" and call(port, "/api/turns") == []
    save(page, tmp_path, "phone-no-camera-time-up.png")
    page.once("dialog", lambda d: d.accept())  # 1 tile is no first meld by the record: Ann had melded, say
    page.click("#unseen-played")
    current_is(page, "Ben")
    assert page.locator("#last-turn-text").inner_text() == \
        "Last turn, Ann: time is up: placed 1 tile (not checked: no camera saw the table)"


# Settings and New game as played on phones: a rulebook's own length and Israeli scoring's lack of a target on
# the form, the rules of the game on the table and the book they are, the answers of a save in view


def in_view(page, selector: str) -> bool:
    """The element is on the phone's screen as the page is scrolled now."""
    return page.evaluate("""(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
                                      return r.height > 0 && r.top > -1 && r.bottom < window.innerHeight + 1; }""",
                         selector)


def test_israeli_picked_on_new_game_brings_its_length_and_no_target_on_a_phone(browser, server, tmp_path):
    """Israeli picked on New game left the rounds open ("Israeli · hand 1", never finishing), and with 100
    points on Settings was refused above the form, off-screen, as "bad value 100 for rule option ..."."""
    url, port, live, clock = server
    call(port, "/api/settings", {"options": {"target_score": 100}})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    page.goto(url + "/new")
    page.fill("textarea[name=players]", "Ann\nBen")
    assert page.input_value("#opt-target_score") == "100"
    page.select_option("select[name=rules]", "israeli")
    # no target with Israeli scoring: cleared, greyed, and why beside it; the book's own length instead
    assert page.is_disabled("#opt-target_score") and page.input_value("#opt-target_score") == ""
    assert page.locator(".target-note").inner_text().startswith(
        "Israeli scoring ranks the totals only at the end, so it cannot be played to a target score")
    assert page.is_checked("input[data-named-for=rounds]") and page.is_disabled("#opt-rounds")
    # another book: the players' own length is back; a length they set stays whatever book is picked
    page.select_option("select[name=rules]", "sabra")
    assert page.input_value("#opt-target_score") == "100" and not page.is_checked("input[data-named-for=rounds]")
    assert page.locator(".target-note").is_hidden() and not page.is_disabled("#opt-target_score")
    page.fill("#opt-rounds", "3")
    page.select_option("select[name=rules]", "israeli")
    assert page.input_value("#opt-rounds") == "3" and not page.is_checked("input[data-named-for=rounds]")
    page.fill("#opt-rounds", "2")  # a length set with Israeli picked has no points: they do not come back
    page.select_option("select[name=rules]", "sabra")
    assert page.input_value("#opt-rounds") == "2" and page.input_value("#opt-target_score") == ""
    page.fill("#opt-rounds", "")
    page.select_option("select[name=rules]", "israeli")
    assert page.is_checked("input[data-named-for=rounds]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(page, tmp_path, "phone-new-israeli.png")
    # a refusal is shown where the player is looking, not above the form off-screen
    page.fill("input[name=trump]", "Z9")
    page.click("button:has-text('Start the game')")
    page.locator("#form-error", has_text="trump tile").wait_for()
    assert in_view(page, "#form-error")
    page.fill("input[name=trump]", "")
    page.click("button:has-text('Start the game')")
    page.wait_for_url(url + "/")
    page.locator("#turn-info", has_text="round 1 of 2").wait_for()
    assert page.locator("#turn-info").inner_text().startswith("Israeli · round 1 of 2 · hand 1 of 2")


def test_settings_show_the_game_on_the_table_and_what_a_save_did_on_a_phone(browser, server, tmp_path):
    """An open-ended American game resumed after one to 100 points: Settings showed 100 and "Sabra: the rule
    leaflet", and "Save rules" made the resumed game "first to 100", its "Saved" line off-screen above."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Jo", "Kim", "Lou"], "rules": "american"})
    earlier = call(port, "/api/state")["game"]["id"]
    call(port, "/api/game", {"players": ["Ann", "Ben"], "rules": "american", "options": {"target_score": 100}})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    page.goto(url + "/new")
    page.click(f"[data-resume='{earlier}']")
    page.wait_for_url(url + "/")
    page.goto(url + "/settings")
    assert page.input_value("select[name=rules]") == "american" and page.input_value("#opt-target_score") == ""
    page.check("input[name=hint]")
    page.click("text=Save rules")
    page.locator("#form-ok", has_text="Nothing changes for the game on the table").wait_for()
    assert in_view(page, "#form-ok")
    assert call(port, "/api/state")["game"]["length"]["target"] is None
    # a house rule: the rules are no book's, and the select says so
    page.fill("#opt-initial_meld", "30")
    page.click("text=Save rules")
    page.locator("#form-ok", has_text="Points the first meld needs: 30 (was 21)").wait_for()
    assert in_view(page, "#form-ok") and page.input_value("select[name=rules]") == ""
    assert page.locator("select[name=rules] option:checked").inner_text() == "— keep the rules below —"
    page.click("text=Use these rules")
    page.locator("#form-error", has_text="Pick a rulebook").wait_for()
    # Israeli scoring chosen on the form greys the target out, as New game does
    page.select_option("#opt-scoring", "israeli")
    assert page.is_disabled("#opt-target_score") and page.locator(".target-note").is_visible()
    page.select_option("#opt-scoring", "american")
    assert not page.is_disabled("#opt-target_score") and page.locator(".target-note").is_hidden()
    # the Israeli rulebook with no length set brings its own; the American game on the table keeps its scoring
    page.select_option("select[name=rules]", "israeli")
    page.click("text=Use these rules")
    page.locator("#form-ok", has_text="keeps American scoring").wait_for()
    saved = call(port, "/api/options")["options"]
    assert (saved["scoring"], saved["rounds"], saved["target_score"]) == ("israeli", "players", None)
    assert page.input_value("select[name=rules]") == ""  # the form shows the game's rules again
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(page, tmp_path, "phone-settings-game-on-the-table.png")


def test_the_hint_shows_only_on_the_phone_that_typed_the_rack(browser, server, tmp_path):
    """Two phones at 390 px: Ann types her rack on hers and sees her best move there (also after a reload:
    the key stays in the tab); Ben's phone says whose hint it is and shows none of her tiles, and never asks
    for it.  Once her turn is over her hint is gone and the rack is asked for again."""
    url, port, live, clock = server
    live.set_table("R3 R4 R5 | K5 B5 O5")
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    call(port, "/api/settings", {"hint": True})
    ann, ben = phone(browser, url), phone(browser, url)
    asked = []  # Ben's phone's requests for a hint
    ben.on("request", lambda r: asked.append(r.url) if "/api/hint" in r.url else None)
    for page in (ann, ben):
        current_is(page, "Ann")
        page.locator("#hint-result >> text=Type the rack to get a hint.").wait_for()
    ann.fill("#hint-rack", "K10 K11 K12 B2")
    ann.click("text=Use this rack")
    ann.locator("#hint-result >> text=Play 3 tiles worth 33").wait_for()
    assert ann.locator("#hint-result .tile").count() > 3
    ben.locator("#hint-result >> text=Ann's hint shows only on the phone that typed the rack.").wait_for()
    live.set_table("R3 R4 R5 | K5 B5 O5 | O7 O8 O9")  # the table changes: the hint follows it on Ann's phone
    ann.locator("#hint-result .set >> text=7").first.wait_for()
    ann.reload()
    ann.locator("#hint-result >> text=Play 3 tiles worth 33").wait_for()
    for page in (ann, ben):
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save(ann, tmp_path, "phone-hint-ann.png")
    save(ben, tmp_path, "phone-hint-ben.png")
    assert ben.locator("#hint-result .tile").count() == 0 and asked == []
    assert not re.search(r'title="(K10|K11|K12|B2)\b', ben.content())
    assert "hint-key" not in ben.evaluate("Object.keys(sessionStorage).join(' ')")
    live.set_table("R3 R4 R5 | K5 B5 O5")
    clock.advance(PRESS_GUARD_S)
    call(port, "/api/turn/end", {})  # nothing placed: Ann draws
    for page in (ann, ben):
        current_is(page, "Ben")
        page.locator("#hint-result >> text=Type the rack to get a hint.").wait_for()
        assert page.locator("#hint-result .tile").count() == 0


def test_keyboard_space_large_text_reduced_motion_and_spoken_tile_colours(browser, fake_server, tmp_path):
    """A player on the keyboard: Space presses the control that has the focus (Rummikub!, the hint
    switch), and ends the turn only while none has it; the page's text follows the browser's own size;
    asked for less motion, the clock's last seconds do not blink; a tile is heard with its colour."""
    url, live, clock = fake_server
    call(int(url.rsplit(":", 1)[1]), "/api/game", {"players": ["Ann", "Ben"]})
    page = phone(browser, url)
    current_is(page, "Ann")
    sent = []
    page.on("request", lambda r: sent.append(r.url.split("/api/")[-1]) if r.method == "POST" else None)
    page.once("dialog", lambda d: d.dismiss())  # Rummikub! with 14 tiles by the count asks first: no
    page.focus("#rummikub")
    page.keyboard.press("Space")
    page.wait_for_timeout(800)
    assert "rummikub" in sent and "turn/end" not in sent, sent
    page.focus("#hint-toggle")
    page.keyboard.press("Space")
    page.locator("#hint-body").wait_for()
    assert "turn/end" not in sent and page.is_checked("#hint-toggle")
    current_is(page, "Ann")
    # large text: the browser's own size reaches the body text, not only headings and buttons
    assert page.evaluate("document.documentElement.style.fontSize = '32px'; "
                         "getComputedStyle(document.body).fontSize") == "32px"
    assert page.evaluate("getComputedStyle(document.querySelector('nav a')).fontSize") != "16px"
    page.evaluate("document.documentElement.style.fontSize = ''")
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate("$('clock').classList.add('danger'); getComputedStyle($('clock')).animationName") == "none"
    assert page.locator("#sets .tile").first.get_attribute("aria-label") == "red 1"
    # and seen with its colour's letter under the numeral, for players who cannot tell red from orange
    assert page.evaluate("getComputedStyle(document.querySelector('#sets .tile'), '::before').content") == '"R"'
    save(page, tmp_path, "phone-tile-letters.png")
    assert page.locator("h1").count() == 1 and page.locator("h1").inner_text() == "Table"
    assert page.get_by_role("button", name="End turn", exact=True).count() == 1  # not "End turn space"
    assert page.locator("#end-turn kbd").is_hidden()  # no space bar on a phone
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("Space")  # nothing has the focus: Space ends the turn
    page.wait_for_timeout(800)
    assert "turn/end" in sent
    page.goto(url + "/settings")  # a long label beside a checkbox does not squeeze it
    assert page.locator("input[name=hint]").bounding_box()["width"] >= 20
    # control edges stand out 3:1 from the page in a bright room (WCAG 1.4.11): a text box, a white button
    assert page.evaluate(EDGE_CONTRAST, "#options-form select") >= 3
    assert page.evaluate(EDGE_CONTRAST, "a.btn, button.btn:not(.primary)") >= 3



def test_a_button_pressed_from_the_keyboard_keeps_the_focus(browser, server, tmp_path):
    """Enter on a focused End turn: the button is disabled while the press is on its way, yet the focus is
    back on it afterwards, so Tab goes on from there; a tap still leaves no focus (Space ends the turn)."""
    url, port, live, clock = server
    live.set_table("R3 R4 R5")
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    page = phone(browser, url)
    current_is(page, "Ann")
    clock.advance(PRESS_GUARD_S)
    page.focus("#end-turn")
    page.keyboard.press("Enter")  # nothing placed: Ann draws
    current_is(page, "Ben")
    page.wait_for_timeout(300)
    assert page.evaluate("document.activeElement.id") == "end-turn"
    clock.advance(PRESS_GUARD_S)
    page.wait_for_timeout(500)  # a second press of the same button within 0.4 s is taken as a bounce
    page.click("#end-turn")
    current_is(page, "Ann")
    page.wait_for_timeout(300)
    assert page.evaluate("document.activeElement === document.body")


def test_the_no_camera_question_takes_the_focus_when_a_press_opens_it(browser, no_camera_server, tmp_path):
    """End turn with no camera asks what the turn did: the question takes the focus (a screen reader reads
    it, Tab goes on to its answers), not its count box, which would open a phone's keyboard."""
    url, port, _, clock = no_camera_server
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    page = phone(browser, url)
    current_is(page, "Ann")
    page.focus("#end-turn")
    page.keyboard.press("Enter")
    page.locator("#unseen").wait_for()
    page.wait_for_timeout(300)
    assert page.evaluate("document.activeElement.id") == "unseen"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "unseen-drew"
    page.keyboard.press("Enter")  # Ann drew: the question closes and the focus is back on End turn
    current_is(page, "Ben")
    page.locator("#unseen").wait_for(state="hidden")
    page.wait_for_timeout(300)
    assert page.evaluate("document.activeElement.id") == "end-turn"
    clock.advance(PRESS_GUARD_S)
    page.wait_for_timeout(500)
    page.keyboard.press("Enter")  # End turn again, for Ben: the count box answers with Enter
    page.locator("#unseen").wait_for()
    page.focus("#unseen-count")
    page.keyboard.press("Control+A")
    page.keyboard.type("3")
    page.keyboard.press("Enter")
    current_is(page, "Ann")
    assert "Ben: placed 3 tiles" in page.locator("#last-turn-text").inner_text()


EDGE_CONTRAST = """(selector) => {
  const lum = (css) => {
    const [r, g, b] = css.match(/[\\d.]+/g).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const edge = lum(getComputedStyle(document.querySelector(selector)).borderTopColor);
  const page = lum(getComputedStyle(document.body).backgroundColor);
  return (Math.max(edge, page) + 0.05) / (Math.min(edge, page) + 0.05);
}"""


def test_the_hint_switch_stays_as_tapped_while_its_save_is_on_its_way(browser, server, tmp_path):
    """A state pushed between the tap and the save's answer (the camera saw the table change) still has
    the hint off: the switch stays on, as tapped, and the hint follows once the save is answered."""
    url, port, live, clock = server
    live.set_table("R3 R4 R5")
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    page = phone(browser, url)
    current_is(page, "Ann")
    lose_posts(page, "/api/settings", delay_ms=3000)
    page.check("#hint-toggle")
    live.set_table("R3 R4 R5 | K5 B5 O5")
    page.locator("#sets .set").nth(1).wait_for()
    assert call(port, "/api/state")["game"]["hint"] is False  # the save has not arrived yet
    assert page.is_checked("#hint-toggle") and page.locator("#hint-body").is_visible()
    page.locator("#hint-result >> text=Type the rack to get a hint.").wait_for()
    assert call(port, "/api/state")["game"]["hint"] is True and page.is_checked("#hint-toggle")
    posts_arrive_again(page)
    page.uncheck("#hint-toggle")
    page.locator("#hint-body").wait_for(state="hidden")
    assert call(port, "/api/state")["game"]["hint"] is False


def hint_on_ann_s_turn(browser, server):
    """Ann and Ben play with the hint on, R3 R4 R5 on the table: Ann's phone, on her turn."""
    url, port, live, _ = server
    live.set_table("R3 R4 R5")
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    call(port, "/api/settings", {"hint": True})
    ann = phone(browser, url)
    current_is(ann, "Ann")
    return ann


def test_a_hint_rack_refused_for_a_code_that_is_no_tile_comes_back_to_be_mended(browser, server, tmp_path):
    """Fourteen tiles typed with two typos: the refusal names both, and the rack is back in the box, so
    only the typos are mended; once mended it is used."""
    url, port, live, clock = server
    ann = hint_on_ann_s_turn(browser, server)
    typed = "K1 K2 K3 x9 B5 B6 B7 O1 O2 O3 R9 R10 b14 J"
    ann.fill("#hint-rack", typed)
    ann.click("text=Use this rack")
    ann.locator("#refusal >> text=Ann's rack: 'x9' and 'b14' are not tiles").wait_for()
    assert ann.input_value("#hint-rack") == typed
    ann.fill("#hint-rack", typed.replace("x9", "K9").replace("b14", "B4"))
    ann.wait_for_timeout(500)  # a second press of the same button within 0.4 s is taken as a bounce
    ann.click("text=Use this rack")
    ann.wait_for_function("document.getElementById('hint-rack').value === ''")
    # the box empties as the press leaves the page; the rack is the server's once the press arrives
    def racks_typed():
        return [p["rack_typed"] for p in call(port, "/api/state")["game"]["players"]]
    deadline = time.monotonic() + 5
    while racks_typed() != [True, False] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert racks_typed() == [True, False]


def test_a_hint_rack_typed_while_another_phone_ends_the_turn_is_kept_by_nobody(browser, server, tmp_path):
    """Ann types her rack; before she saves it another phone ends her turn and the box's label becomes
    "Rack of Ben". Her tiles must not be saved as Ben's: the box is emptied and says why, and a press made
    anyway (a stale page) is refused by the turn it carries."""
    url, port, live, clock = server
    ann = hint_on_ann_s_turn(browser, server)
    ann.fill("#hint-rack", "K10 K11 K12 B2")
    clock.advance(PRESS_GUARD_S)
    call(port, "/api/turn/end", {})  # on another phone: Ann draws
    current_is(ann, "Ben")
    ann.locator("#hint-note >> text=Ann's turn ended before the rack was used, so it was not kept.").wait_for()
    assert ann.input_value("#hint-rack") == ""
    assert ann.locator("#hint-player").inner_text() == "Ben"
    assert not any(p["rack_typed"] for p in call(port, "/api/state")["game"]["players"])
    save(ann, tmp_path, "phone-hint-turn-over.png")
