"""The count on phones, end to end in real headless Chromium (as tests/test_browser.py): a rack typed on
one phone while another confirms, and a camera reading the count questions."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

if not Path("/usr/bin/chromium").exists():
    pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)",
                allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")

from test_browser import count_on_two_phones, save, served  # noqa: E402
from test_webui_db import call  # noqa: E402
from webui_fakes import FakeLive  # noqa: E402

FOURTEEN = "K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 B1"
NARROW = "document.documentElement.scrollWidth <= 390"


@pytest.fixture
def server(tmp_path):
    """An empty table: (url, port, live, clock)."""
    yield from served(tmp_path, FakeLive(""))


def test_a_camera_reading_the_count_questions_is_shown_on_every_phone_and_asked_at_the_confirm(
        browser, server, tmp_path):
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    call(port, "/api/rummikub", {"count_checked": True, "winner": "Ann"})
    ann, ben = count_on_two_phones(browser, url, "#tally")
    live.set_table("K1 K2 K3")  # Ben lays his rack out; the camera sees only three of his tiles
    ben.click(".tally-row:has-text('Ben') >> text=Read")
    question = ("Camera reading in doubt: the camera read 3 tiles; Ben should hold 14: read again or type "
                "the rack.")
    for page in (ann, ben):
        page.locator("[data-doubt=Ben]", has_text=question).wait_for()
        assert page.evaluate(NARROW)
    save(ann, tmp_path, "phone-tally-read-doubt.png")
    asked = []
    ann.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))  # not as read: Ben reads it again
    ann.click("text=Confirm and score")
    ann.locator("#tally-error").wait_for()
    assert asked == ["The camera's reading does not match the count (Ben: the camera read 3 tiles; Ben should "
                     "hold 14). Score the rack as read?"]
    assert ann.locator("#tally-error").inner_text().startswith("the camera's reading is in doubt (Ben: ")
    assert call(port, "/api/state")["game"]["status"] == "tally"
    live.set_table(FOURTEEN)  # the hand moved away
    ben.wait_for_timeout(500)  # not a double tap of Read
    ben.click(".tally-row:has-text('Ben') >> text=Read")
    for page in (ann, ben):
        page.locator("[data-doubt=Ben]").wait_for(state="hidden")
    ann.click("text=Confirm and score")  # nothing to ask now
    ann.locator("#dealing").wait_for()
    assert "hand 1 scored: Ann +92, Ben -92" in ann.locator("#last-turn-text").inner_text()
