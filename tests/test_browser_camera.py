"""What the camera knows, on a phone (390 px) in headless Chromium: a table not read yet after a restart,
a camera gone out, a table found on its return that disagrees with the game, and a hand started with the
last hand's tiles still on the table.  A fake camera (tests/webui_fakes.FakeLive) and a fake clock."""

from __future__ import annotations

import pytest

from test_browser import current_is, phone, save, say_played, served
from test_webui_db import call
from webui_fakes import FakeLive

pytestmark = pytest.mark.browser


def text(page, selector: str) -> str:
    return page.locator(selector).inner_text()


def test_after_a_restart_the_page_waits_for_the_camera_to_read_the_table(browser, tmp_path):
    live = FakeLive("")
    for url, port, live, clock in served(tmp_path, live):
        call(port, "/api/game", {"players": ["Ann", "Ben"], "options": {"turn_time_limit": 60}})
        live.set_table("R10 R11 R12")  # Ann's meld, as the server goes down
    restarted = FakeLive("R10 R11 R12")
    restarted.read = False  # open, but no steady reading yet
    for url, port, live, clock in served(tmp_path, restarted):
        clock.t = 2_000_000.0  # long after: Ann's time ran out while the server was down
        page = phone(browser, url)
        current_is(page, "Ann")
        assert text(page, "#camera-status") == "reading the table…"
        assert "The camera has not read the table yet" in text(page, "#sets")
        assert page.locator("#verdict").is_hidden() and page.locator("#sets .set").count() == 0
        page.wait_for_function("document.getElementById('clock-caption').textContent.includes("
                               "'judged once the camera has read the table')")
        page.click("#end-turn")  # waits for the reading, then says why nothing was judged
        page.wait_for_function("document.getElementById('refusal-text').textContent.includes("
                               "'the camera has not read the table yet')", timeout=10000)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        save(page, tmp_path, "phone-restart-reading.png")
        live.first_reading()
        current_is(page, "Ben")
        assert "Last turn, Ann: time is up: placed R10 R11 R12" in text(page, "#last-turn-text")
        page.wait_for_function("document.querySelectorAll('#sets .set').length === 1")
        assert text(page, "#camera-status").startswith("steady")
        assert page.locator("#verdict").is_hidden()  # Ben has placed nothing: Ann's meld is not his


def test_a_camera_gone_out_is_shown_at_once_with_no_set_and_its_last_picture_dimmed(browser, tmp_path):
    for url, port, live, clock in served(tmp_path, FakeLive("R10 R11 R12 | B4 B5")):
        call(port, "/api/game", {"players": ["Ann", "Ben"]})
        page = phone(browser, url)
        page.wait_for_function("document.querySelectorAll('#sets .set').length === 2")
        assert text(page, "#camera-status") == "steady · 12.5 fps" and text(page, "#table-status") == "1 invalid"
        page.wait_for_timeout(1500)  # an idle page: nothing else changes from here
        live.camera_ok, live.camera_error = False, "camera 0 stopped sending frames"
        page.locator("#camera-banner").wait_for(timeout=1500)  # pushed at once, not with the next change
        assert text(page, "#camera-banner").startswith("No camera sees the table.")
        assert page.locator("#camera-why").text_content() == "Camera 0 stopped sending frames."  # under "details"
        assert text(page, "#camera-status") == "no camera"
        assert page.locator("#sets .set").count() == 0 and page.locator("#table-status").is_hidden()
        assert "No camera sees the table" in text(page, "#sets")
        assert "stale" in page.get_attribute("#camera", "class")
        note = text(page, "#picture-note")
        assert note.startswith("The last picture from the camera, taken at ") and note.endswith(
            "no camera sees the table now.")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        save(page, tmp_path, "phone-camera-out.png")
        live.camera_ok, live.camera_error = True, None
        live.fps = 0.0  # counted as working, but nothing processed lately
        page.locator("#camera-banner").wait_for(state="hidden", timeout=1500)
        page.wait_for_function("document.querySelectorAll('#sets .set').length === 2")
        assert page.locator("#picture-note").is_hidden() and "stale" not in page.get_attribute("#camera", "class")
        assert text(page, "#camera-status") == "steady · no new picture lately"


def test_a_table_found_that_disagrees_is_asked_about_on_a_phone(browser, tmp_path):
    for url, port, live, clock in served(tmp_path, FakeLive("")):
        call(port, "/api/game", {"players": ["Ann", "Ben"]})
        live.camera_ok, live.camera_error = False, "camera 0 stopped sending frames"
        page = phone(browser, url)
        page.locator("#camera-banner").wait_for()
        say_played(page, 3, "Ben")
        live.set_table("R10 R11 R12 | K5 K6 K7 K8 | O1 O2 O3 O4 O5 O6 O7 O8 O9 O10")  # 17 tiles
        live.camera_ok, live.camera_error = True, None
        page.wait_for_function("document.getElementById('table-found-text').textContent.includes('once the table "
                               "holds still')")
        page.wait_for_timeout(600)  # the ticker sees the table hold still from now
        clock.advance(3.0)
        page.locator("#take-found").wait_for()
        words = text(page, "#table-found-text")
        assert words.startswith("The camera is back and sees 17 tiles beyond the table the game knew, but the "
                                "players said 3 tiles were placed while no camera saw")
        assert "Take the table it sees as where Ben's turn started?" in words
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        box = page.locator("#take-found").bounding_box()
        assert box["x"] + box["width"] <= 390
        save(page, tmp_path, "phone-found-asks.png")
        page.click("#take-found")
        page.wait_for_function("document.getElementById('table-found-text').textContent.includes("
                               "'the table it found is taken as where Ben')")
        assert page.locator("#take-found").is_hidden()
        assert [t["action"] for t in call(port, "/api/turns")] == ["unchecked", "table_found"]


def test_start_hand_with_the_last_hand_s_tiles_on_the_table_on_a_phone(browser, tmp_path):
    for url, port, live, clock in served(tmp_path, FakeLive("")):
        call(port, "/api/game", {"players": ["Ann", "Ben"]})
        live.set_table("R10 R11 R12 | K1 K2 K3 K4 K5 | O7 O8 O9 O10 O11")  # Ann lays 13 tiles and goes out
        call(port, "/api/rummikub", {"count_checked": True})
        call(port, "/api/tally/confirm", {"racks": {"Ben": "K13"}})
        page = phone(browser, url)
        page.locator("#dealing").wait_for()
        assert text(page, "#dealing-table") == ("Clear the table first: the camera still sees 13 tiles on it, and a "
                                                "hand starts from an empty table.")
        asked = []
        page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
        page.click("#start-hand")  # asked first; No: the hand waits, and the card says why
        page.wait_for_function("document.getElementById('dealing-error').textContent.includes("
                               "'clear the table first')")
        assert "The camera still sees 13 tiles on the table" in asked[0]
        assert not page.locator("#dealing").is_hidden() and call(port, "/api/state")["game"]["status"] == "dealing"
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        save(page, tmp_path, "phone-start-hand-table.png")
        live.set_table("")  # the players clear the table: the warning goes
        page.locator("#dealing-table").wait_for(state="hidden")
        page.wait_for_timeout(500)  # not a double tap
        page.click("#start-hand")
        current_is(page, "Ben")
        page.locator("#dealing").wait_for(state="hidden")
        assert call(port, "/api/state")["game"]["turn"]["table_before"] == ""


def test_new_game_with_tiles_on_the_table_asks_first_on_a_phone(browser, tmp_path):
    """New game, as Start hand, starts from an empty table: the form asks while the camera sees tiles, and
    No leaves the table without a game; Yes starts it with those tiles lying there before the first turn."""
    for url, port, live, clock in served(tmp_path, FakeLive("R10 R11 R12")):
        page = phone(browser, url)
        page.goto(url + "/new")
        page.fill("textarea[name=players]", "Ann\nBen")
        asked = []
        page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
        page.click("button:has-text('Start the game')")
        page.locator("#form-error").wait_for()
        assert asked[0].startswith("The camera still sees 3 tiles on the table. A game starts from an empty "
                                   "table: clear it first. Start the game anyway")
        assert "clear the table first" in text(page, "#form-error")
        assert call(port, "/api/state")["game"]["status"] == "none"
        page.once("dialog", lambda d: d.accept())
        page.click("button:has-text('Start the game')")
        page.wait_for_url(url + "/")
        current_is(page, "Ann")
        assert call(port, "/api/state")["game"]["turn"]["table_before"] == "R10 R11 R12"
