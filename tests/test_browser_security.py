"""The protections seen from real headless Chromium: the page's own writes work under its CSP,
and a page on another site cannot change the game (form, text/plain or JSON)."""

from __future__ import annotations

import functools
import http.server
import json
import threading
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

if not Path("/usr/bin/chromium").exists():
    pytest.skip("Debian's chromium is not installed at /usr/bin/chromium", allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")
waitress = pytest.importorskip("waitress")

from test_browser import browser  # noqa: E402,F401  (the shared headless Chromium)
from test_capture import wait_until  # noqa: E402
from webui.app import create_app  # noqa: E402
from webui_fakes import FakeClock, FakeLive  # noqa: E402

EVIL_PAGE = """<!doctype html><html><body><h1>cute cats</h1>
<form id="f" method="post" action="{target}/new"><input name="players" value="Eve
Mal"></form>
<iframe id="frame" src="{target}/"></iframe>
<script>
fetch("{target}/api/pass", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body: "{{}}"}});
fetch("{target}/api/settings", {{method: "POST", mode: "no-cors", body: new FormData()}});
fetch("{target}/api/game", {{method: "POST", headers: {{"Content-Type": "application/json"}},
      body: JSON.stringify({{players: ["Eve", "Mal"]}})}}).catch(() => {{ document.title = "json refused"; }});
setTimeout(() => document.getElementById("f").submit(), 400);
</script></body></html>"""


@pytest.fixture
def server(tmp_path):
    """The app behind waitress (as ``serve`` runs it) on a free loopback port."""
    live = FakeLive("R1 R2 R3 | K7 B7 O7 J")
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": live, "NOW": FakeClock()})
    srv = waitress.create_server(app, host="127.0.0.1", port=0, threads=8)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.effective_port}", live
    srv.close()
    app.extensions["companion"].stop()


def api_state(url):
    with urllib.request.urlopen(url + "/api/state", timeout=5) as res:
        return json.load(res)


def test_the_page_plays_under_its_csp(browser, server):
    url, live = server
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    violations = []
    page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
    page.goto(url + "/new")
    page.fill("textarea[name=players]", "Ann\nBen")
    page.click("button:has-text('Start the game')")  # a form post
    page.wait_for_url(url + "/")
    page.locator("#current-player", has_text="Ann").wait_for()
    live.set_table("R1 R2 R3 | K7 B7 O7 J | O11 O12 O13")
    page.locator("#sets .set").nth(2).wait_for()
    page.click("#end-turn")  # a fetch() JSON post
    page.locator("#current-player", has_text="Ben").wait_for()
    assert api_state(url)["game"]["current"] == "Ben"
    page.goto(url + "/settings")
    page.select_option("select[name=direction]", "counterclockwise")
    page.click("form:has(select[name=direction]) button[type=submit]")
    assert wait_until(lambda: api_state(url)["options"]["direction"] == "counterclockwise")
    assert violations == []

