"""What the camera knows, on a phone (390 px) in headless Chromium: a table not read yet after a restart,
a camera gone out, a table found on its return that disagrees with the game, and a hand started with the
last hand's tiles still on the table.  A fake camera (tests/webui_fakes.FakeLive) and a fake clock."""

from __future__ import annotations

import pytest

from test_browser import current_is, phone, save, served
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
