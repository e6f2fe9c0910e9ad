"""The protections seen from real headless Chromium: the page's own writes work under its CSP,
and a page on another site cannot change the game (form, text/plain or JSON)."""

from __future__ import annotations

import errno
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


def waitress_loop(srv) -> None:
    """waitress's loop until the test closes the server from its own thread: the loop may then
    poll a socket already closed (EBADF) instead of finding nothing left to serve."""
    try:
        srv.run()
    except OSError as exc:
        if exc.errno != errno.EBADF:
            raise


@pytest.fixture
def server(tmp_path):
    """The app behind waitress (as ``serve`` runs it) on a free loopback port."""
    live = FakeLive("R1 R2 R3 | K7 B7 O7 J")
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": live, "NOW": FakeClock()})
    srv = waitress.create_server(app, host="127.0.0.1", port=0, threads=8)
    thread = threading.Thread(target=waitress_loop, args=(srv,), daemon=True)
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
    page.goto(url + "/settings")  # the rules, before the game (a change during one waits for the next hand)
    page.select_option("select[name=direction]", "counterclockwise")
    page.click("form:has(select[name=direction]) button[type=submit]")
    assert wait_until(lambda: api_state(url)["options"]["direction"] == "counterclockwise")
    live.set_table("")  # a new game starts from an empty table (one with tiles asks first)
    page.goto(url + "/new")
    page.fill("textarea[name=players]", "Ann\nBen")
    page.click("button:has-text('Start the game')")
    page.wait_for_url(url + "/")
    page.locator("#current-player", has_text="Ann").wait_for()
    live.set_table("R1 R2 R3 | K7 B7 O7 J | O11 O12 O13")
    page.locator("#sets .set").nth(2).wait_for()
    page.click("#end-turn")  # a fetch() JSON post
    page.locator("#current-player", has_text="Ben").wait_for()
    assert api_state(url)["game"]["current"] == "Ben"
    assert violations == []



def test_another_site_cannot_change_the_game(browser, server, tmp_path):
    url, _ = server
    res = urllib.request.urlopen(urllib.request.Request(
        url + "/api/game", data=json.dumps({"players": ["Ann", "Ben"]}).encode(),
        headers={"Content-Type": "application/json"}), timeout=5)
    assert res.status == 201
    before = api_state(url)["game"]
    site = tmp_path / "evil"
    site.mkdir()
    (site / "index.html").write_text(EVIL_PAGE.format(target=url))
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a: None
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)  # another port: another origin
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        page = browser.new_page()
        refused = []
        page.on("response", lambda r: r.url.startswith(url) and r.request.method == "POST"
                and refused.append(r.status))
        page.goto(f"http://127.0.0.1:{evil.server_address[1]}/index.html")
        page.wait_for_url(url + "/new", timeout=5000)  # the auto-submitted form lands on our refusal
        assert "another site" in page.content()
        assert refused and set(refused) == {403}
    finally:
        evil.shutdown()
    after = api_state(url)["game"]
    assert after == before
    assert [p["name"] for p in after["players"]] == ["Ann", "Ben"]


def test_the_host_page_shows_the_pin_and_a_qr_code_under_its_csp(browser, tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "c.sqlite3"), "LIVE": FakeLive("R1 R2 R3"), "NOW": FakeClock(),
                      "TABLE_PIN": "246810", "PHONE_URLS": ["http://192.168.1.5:5000"]})
    srv = waitress.create_server(app, host="127.0.0.1", port=0, threads=4)
    threading.Thread(target=waitress_loop, args=(srv,), daemon=True).start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        violations = []
        page.on("console", lambda m: "Content Security Policy" in m.text and violations.append(m.text))
        page.goto(f"http://127.0.0.1:{srv.effective_port}/")
        box = page.locator("#table-pin")
        assert "246810" in box.inner_text() and "http://192.168.1.5:5000/pin" in box.inner_text()
        qr = box.locator("img.qr")
        assert qr.evaluate("img => img.complete && img.naturalWidth > 0")  # the data: picture is allowed
        assert violations == []
    finally:
        srv.close()
        app.extensions["companion"].stop()
