"""End to end in real headless Chromium (Debian's /usr/bin/chromium driven by Playwright).

One test serves a table laid out in tile notation (a fake camera, so every
check is exact); the other starts ``rummikub-companion serve`` on the shipped
sample images with the real tile model.  Pages are opened with bypass_csp:
Playwright's wait_for_function evaluates its predicate with eval, which the
page's Content-Security-Policy forbids (test_browser_security.py drives the
page under its CSP).
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ROOT = Path(__file__).resolve().parents[1]

if not CHROMIUM.exists():
    pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")

from werkzeug.serving import make_server  # noqa: E402

from webui.app import create_app  # noqa: E402
from webui_fakes import FakeClock, FakeLive  # noqa: E402
from test_webui_db import call, free_port, serve  # noqa: E402


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


@pytest.fixture
def fake_server(tmp_path):
    """The app on a real socket, in this process, watching a FakeLive table and a FakeClock."""
    live = FakeLive("R1 R2 R3 | K7 B7 O7 J | R5 K5", uncertain=[4])
    clock = FakeClock()
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": live, "NOW": clock})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", live, clock
    server.shutdown()
    app.extensions["companion"].stop()


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
    page.click("button:has-text('Start the game')")
    page.wait_for_url(url + "/")
    assert page.locator("#current-player").inner_text() == "Ann"
    assert re.fullmatch(r"[01]:\d\d", page.locator("#clock").inner_text())

    # the hint: off by default; Ann types her rack and sees her best move
    assert page.locator("#hint-body").is_hidden()
    page.check("#hint-toggle")
    page.locator("#hint-body").wait_for()
    page.fill("#hint-rack", "O11 O12 O13 K2")
    page.click("text=Use this rack")
    page.locator("#hint-result >> text=Play 3 tile(s)").wait_for()

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
    assert "legal" in page.locator("#verdict-summary").inner_text()
    assert "O11 O12 O13" in page.locator("#verdict-summary").inner_text()

    # Ben breaks a run and runs out of time: the start-of-turn snapshot is shown, 3 tiles penalty
    live.set_table("R1 R2 | R3 K3 | K7 B7 O7 J | O11 O12 O13")
    page.wait_for_function("document.querySelectorAll('#sets .set.invalid').length === 2")
    page.keyboard.press("Space")  # not legal: the turn goes on, and the page says why
    page.wait_for_function("document.getElementById('verdict').classList.contains('illegal')")
    assert page.locator("#current-player").inner_text() == "Ben"
    assert page.locator("#verdict-problems li").count() >= 2
    clock.advance(61)
    page.locator("#restore").wait_for()
    assert "Ben" in page.locator("#restore-text").inner_text()
    assert "3 tiles" in page.locator("#restore-text").inner_text()
    assert page.locator("#restore-sets .set").count() == 3
    page.wait_for_function("document.getElementById('snapshot-img').naturalWidth > 0")
    assert page.locator("#current-player").inner_text() == "Cid"
    live.set_table("R1 R2 R3 | K7 B7 O7 J | O11 O12 O13")  # put back: the banner goes by itself
    page.locator("#restore").wait_for(state="hidden")

    # Cid calls Rummikub!; the others' racks are typed and the hand is scored
    page.click("#rummikub")
    page.locator("#tally").wait_for()
    page.fill("input[data-player=Ann]", "R12 B1")
    live.set_table("R1 R2 R3 | K7 B7 O7 J | O11 O12 O13 | J")  # Ben lays his rack in view
    page.click(".tally-row:has-text('Ben') >> text=Read")
    page.wait_for_function("document.querySelector('input[data-player=Ben]').value === 'J'")
    assert page.input_value("input[data-player=Ann]") == "R12 B1"  # the refresh kept what Ann typed
    page.click("text=Confirm and score")
    page.wait_for_function("!document.getElementById('controls').hidden")
    page.screenshot(path=str(tmp_path / "table.png"), full_page=True)
    page.click("nav >> text=Scores")
    sheet = page.locator("#score-sheet")
    sheet.wait_for()
    text = sheet.inner_text()
    assert "Game 1" in text and "+43" in text and "-13" in text and "-30" in text
    page.screenshot(path=str(tmp_path / "scores.png"), full_page=True)
    assert (tmp_path / "table.png").stat().st_size > 10_000

    # on a phone the page still fits: no sideways scrolling
    phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, bypass_csp=True)
    phone.goto(url + "/")
    phone.locator("#sets .set").first.wait_for()
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert phone.locator("#end-turn").bounding_box()["height"] >= 48
    phone.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
    keep = os.environ.get("WEBUI_SCREENSHOTS")
    if keep:
        for name in ("table.png", "scores.png", "phone.png"):
            Path(keep).mkdir(parents=True, exist_ok=True)
            (Path(keep) / name).write_bytes((tmp_path / name).read_bytes())


def test_serve_on_the_sample_images(browser, tmp_path):
    port = free_port()
    proc = serve(port, tmp_path / "c.sqlite3", tmp_path, source=None)  # default: sample_images/
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        page.goto(f"http://127.0.0.1:{port}/")
        page.locator("#sets .set").first.wait_for(timeout=60_000)  # the model reads the first picture
        assert page.locator("#sets .tile").count() >= 3
        call(port, "/api/game", {"players": ["Ann", "Ben"]})
        page.reload()
        assert page.locator("#current-player").inner_text() == "Ann"
        assert re.fullmatch(r"[01]:\d\d", page.locator("#clock").inner_text())
        page.click("#end-turn")
        page.locator("#verdict-summary").wait_for()
        winner = page.locator("#current-player").inner_text()
        other = "Ben" if winner == "Ann" else "Ann"
        page.click("#rummikub")
        page.fill(f"input[data-player={other}]", "K13")
        page.click("text=Confirm and score")
        page.wait_for_function("!document.getElementById('controls').hidden")
        assert call(port, "/api/scores")["totals"] == {winner: 13, other: -13}
        page.screenshot(path=str(tmp_path / "sample.png"), full_page=True)
    finally:
        proc.kill()
        proc.wait(10)
