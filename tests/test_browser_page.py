"""The page as players see it, in real headless Chromium at a phone's 390x844 and a tablet's 820x1180
(test_browser.py's set-up: a fake camera laid out in tile notation, a clock moved by hand).

What is checked is what a player reads: no layout offered for the very table just refused, the discard
kept after a refusal, the words of the camera notices, and that no page scrolls sideways whatever the
names.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

if not Path("/usr/bin/chromium").exists():
    pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)",
                allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")

from test_browser import current_is, save, served  # noqa: E402
from test_webui_db import call  # noqa: E402
from webui_fakes import FakeLive, jpeg  # noqa: E402

VIEWS = {"phone": (390, 844), "tablet": (820, 1180)}


@pytest.fixture
def server(tmp_path):
    """An empty table: (url, port, live, clock)."""
    yield from served(tmp_path, FakeLive(""))


@pytest.fixture(params=list(VIEWS))
def view(request):
    return request.param


def open_page(browser, url: str, view: str, path: str = "/"):
    width, height = VIEWS[view]
    page = browser.new_page(viewport={"width": width, "height": height}, is_mobile=view == "phone",
                            has_touch=True, bypass_csp=True)
    page.goto(url + path)
    return page


def no_sideways_scroll(page) -> None:
    """The page is no wider than the screen: nothing sticks out to scroll it sideways."""
    width = page.evaluate("document.documentElement.scrollWidth")
    shown = page.evaluate("document.documentElement.clientWidth")
    wide = page.evaluate("""() => [...document.querySelectorAll('body *')].filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width && r.right > document.documentElement.clientWidth + 1 && !e.closest('.table-scroll');
      }).slice(0, 5).map((e) => `${e.tagName}#${e.id}.${e.className}: ${Math.round(e.getBoundingClientRect().right)}`)""")
    assert width <= shown, (page.url, width, shown, wide)


def test_a_refusal_with_every_set_valid_offers_no_layout(browser, server, tmp_path, view):
    url, port, live, _ = server
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    call(port, "/api/settings", {"hint": True})
    page = open_page(browser, url, view)
    current_is(page, "Ann")
    live.set_table("K9 B9 O9")  # 27 points: the first meld needs 30
    page.wait_for_function("document.querySelectorAll('#sets .set').length === 1")
    page.click("#end-turn")
    page.wait_for_function("document.getElementById('verdict-word').textContent === 'NOT LEGAL'")
    page.locator("#sets-fine").wait_for()
    assert page.locator("#sets-fine").inner_text() == (
        "The sets are all valid: the turn is refused for a first meld short of its points, "
        "not for how the tiles are laid out.")
    assert page.locator("#suggestion").is_hidden()
    save(page, tmp_path, f"sets-fine-{view}.png")
    # a broken set is another matter: the layout is offered, and the line goes
    live.set_table("K9 B9 | O9 R9")
    page.locator("#suggestion").wait_for()
    assert page.locator("#sets-fine").is_hidden()


def test_the_discard_typed_stays_after_a_refused_end_turn(browser, server, tmp_path, view):
    url, port, live, _ = server
    call(port, "/api/game", {"players": ["Ann", "Ben"], "rules": "american"})
    page = open_page(browser, url, view)
    current_is(page, "Ann")
    page.click("text=Drew from the pool")
    page.locator("#discard-field").wait_for()
    live.set_table("K9 B9")  # no set: the turn is refused
    page.wait_for_function("document.querySelectorAll('#sets .set.invalid').length === 1")
    page.fill("#discard", "K33")  # refused by the server (no such tile): the box keeps it to correct
    page.click("#end-turn")
    page.locator("#refusal").wait_for()
    assert page.locator("#discard").input_value() == "K33"
    page.fill("#discard", "K3")
    page.wait_for_timeout(500)  # not a double tap
    page.click("#end-turn")
    page.wait_for_function("document.getElementById('verdict-word').textContent === 'NOT LEGAL'")
    assert page.locator("#discard").input_value() == "K3"  # not to be typed again
    save(page, tmp_path, f"discard-kept-{view}.png")
    live.set_table("")  # the tiles go back to the rack: the same discard ends the turn
    page.wait_for_function("document.querySelectorAll('#sets .set').length === 0")
    page.wait_for_timeout(500)  # not a double tap
    page.click("#end-turn")
    current_is(page, "Ben")
    assert page.locator("#discard").input_value() == ""  # used: the next turn starts with an empty box
    assert "discarded" in page.locator("#last-turn-text").inner_text()


def test_a_lost_camera_and_a_time_out_in_players_words(browser, server, tmp_path, view):
    url, port, live, clock = server
    live.set_table("R1 R2 R3 R4")
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    page = open_page(browser, url, view)
    current_is(page, "Ann")
    # Ann splits the run and runs out of time: no tile was played, so none is taken back
    live.set_table("R1 R2 | R3 R4")
    page.wait_for_function("document.querySelectorAll('#sets .set.invalid').length === 2")
    clock.advance(61)
    page.locator("#restore").wait_for()
    assert page.locator("#restore-text").inner_text().startswith(
        "Ann ran out of time with the table not legal: Ann draws 3. Lay the table out as it was")
    assert " his " not in page.locator("body").inner_text()
    live.set_table("R1 R2 R3 R4")
    page.locator("#restore").wait_for(state="hidden")
    # the camera goes: the banner says so in players' words, the file and the retry folded away
    live.camera_ok, live.camera_error = False, "the video /srv/club/table.mp4 is gone; retrying in 2.0 s"
    live.set_table("")
    page.locator("#camera-banner").wait_for()
    text = page.locator("#camera-banner").inner_text()
    assert text.startswith("The camera sends no pictures (it stopped, or never started).") and text.endswith("details")
    assert "/srv" not in text and "retrying" not in text
    page.click("#camera-details summary")
    assert page.locator("#camera-why").inner_text() == "The video /srv/club/table.mp4 is gone."
    no_sideways_scroll(page)
    save(page, tmp_path, f"camera-lost-{view}.png")
    live.camera_ok, live.camera_error = True, None
    live.set_table("R1 R2 R3 R4")
    page.locator("#camera-banner").wait_for(state="hidden")


class CountingLive(FakeLive):
    """A camera whose picture draws the racks laid out for the count (purple) only while it is told of a
    count, as vision.live draws them."""

    def state(self):
        ts = super().state()
        if getattr(self, "counting", None) is None:
            return ts
        return replace(ts, annotated_jpeg=jpeg((160, 40, 120)))


def picture_colour(page) -> list:
    """The camera picture's middle pixel (BGR order is the fake's: read back as RGB)."""
    return page.evaluate("""() => {
        const img = document.getElementById('camera');
        const c = document.createElement('canvas');
        c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d'); g.drawImage(img, 0, 0);
        return [...g.getImageData(c.width >> 1, c.height >> 1, 1, 1).data.slice(0, 3)];
      }""")


def test_the_camera_picture_and_the_header_follow_the_count_ending(browser, tmp_path, view):
    """The picture drawn for the count (a rack laid out, purple) goes once the hand is scored: its address
    used to stay the same while the table did not change, so a phone kept the count's picture while the
    table card judged the same tiles as a set."""
    for url, port, live, _ in served(tmp_path, CountingLive("")):
        call(port, "/api/game", {"players": ["Ann", "Ben"]})
        page = open_page(browser, url, view)
        current_is(page, "Ann")
        call(port, "/api/rummikub", {"count_checked": True})
        page.locator("#tally").wait_for()
        shows_count_picture(page, True)  # purple: the count's picture
        call(port, "/api/tally/confirm", {"racks": {"Ben": "K5"}})
        page.locator("#dealing").wait_for()
        shows_count_picture(page, False)  # the camera's own picture again, as the table card judges it
        # hand 2 plays the rules hand 1 did: the header does not name them as if they were news
        assert "this hand" not in page.locator("#turn-info").inner_text()
        page.close()


def shows_count_picture(page, purple: bool) -> None:
    for _ in range(50):
        if page.evaluate("document.getElementById('camera').complete") and (picture_colour(page)[2] > 90) == purple:
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"the camera picture is {picture_colour(page)}, not {'purple' if purple else 'green'}")


# six players (the most a box seats: XP) of the longest names allowed (40 characters), some with no space
LONG_NAMES = ["Wolfeschlegelsteinhausenbergerdorffvoral", "Zoë O'Brien-Łukasiewicz the Third of Ely",
              "Maximiliana Featherstonehaugh-Cholmondel", "Bartholomew Aloysius Fitzwilliam Smythes",
              "Anastasiya Vasilyevna Kuznetsova-Orlovas", "Hubert Blaine Wolfeschlegelsteinhausenbe"]


def totals_in_view(page, players: int) -> None:
    """Every player's total on the score sheet is on the screen, whole: not past the screen's right edge,
    nor scrolled away in the sheet's own box."""
    out = page.evaluate("""() => [...document.querySelectorAll('#score-sheet tr.total td')].map((e) => {
        const r = e.getBoundingClientRect(), box = e.closest('.table-scroll').getBoundingClientRect();
        return [e.textContent, r.left >= box.left && r.right <= Math.min(box.right, innerWidth) && r.width > 0];
      })""")
    assert len(out) == players and all(ok for _, ok in out), out


def test_no_page_scrolls_sideways_with_six_long_names(browser, server, tmp_path, view):
    url, port, live, clock = server
    assert all(len(n) == 40 for n in LONG_NAMES)
    call(port, "/api/game", {"players": LONG_NAMES, "rules": "xp", "options": {"turn_time_limit": 30}})
    page = open_page(browser, url, view)
    current_is(page, LONG_NAMES[0])
    no_sideways_scroll(page)
    save(page, tmp_path, f"long-names-table-{view}.png")
    live.set_table("K9 B9")
    page.wait_for_function("document.querySelectorAll('#sets .set.invalid').length === 1")
    page.click("#end-turn")
    page.wait_for_function("document.getElementById('verdict-word').textContent === 'NOT LEGAL'")
    no_sideways_scroll(page)
    live.set_table("")
    call(port, "/api/rummikub", {"count_checked": True})
    page.locator("#tally").wait_for()
    no_sideways_scroll(page)
    save(page, tmp_path, f"long-names-count-{view}.png")
    racks = dict(zip(LONG_NAMES[1:], ["K5", "R13 J", "B1 B2", "O7", "K12 K13"]))
    call(port, "/api/tally/confirm", {"racks": racks})
    page.locator("#dealing").wait_for()
    no_sideways_scroll(page)
    save(page, tmp_path, f"long-names-dealing-{view}.png")
    for path in ("/scores", "/settings", "/new"):
        page.goto(url + path)
        no_sideways_scroll(page)
        save(page, tmp_path, f"long-names-{path[1:]}-{view}.png")
        if path == "/scores":
            totals_in_view(page, len(LONG_NAMES))
    call(port, "/api/game/finish", {})
    for path in ("/", "/scores"):
        page.goto(url + path)
        page.wait_for_timeout(300)
        no_sideways_scroll(page)
        save(page, tmp_path, f"long-names-over{path.replace('/', '-')}-{view}.png")


def options_cut_off(page, select: str) -> list:
    """The options of ``select`` whose words are wider than the select shows (a select cannot wrap)."""
    return page.evaluate("""(sel) => {
        const s = document.querySelector(sel), style = getComputedStyle(s);
        const g = document.createElement('canvas').getContext('2d');
        g.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room = s.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;
        return [...s.options].filter((o) => g.measureText(o.text).width > room).map((o) => o.text);
      }""", select)


def test_the_rulebook_the_length_box_and_a_stopped_clock_read_well(browser, server, tmp_path, view):
    url, port, live, _ = server
    page = open_page(browser, url, view, "/settings")
    assert options_cut_off(page, "#variant-form select[name=rules]") == []  # "...today's boxe"
    about = page.locator("#variant-form [data-book-about]")
    assert about.inner_text() == "Sabra: the rule leaflet in today's boxes"  # the book in full, under it
    page.select_option("#variant-form select[name=rules]", "international")
    assert about.inner_text() == "International: the Official Rummikub Book (1978)"
    page.goto(url + "/new")
    assert options_cut_off(page, "#new-game select[name=rules]") == []
    assert page.locator("#new-game [data-book-about]").inner_text() == "Sabra rules, 30-point first meld"
    # "As many rounds as players": the box beside its words, not centred in a 12em-wide box
    box = page.locator("input[data-named-for=rounds]").bounding_box()
    label = page.locator("label:has(input[data-named-for=rounds])").bounding_box()
    assert box["width"] <= 26 and box["x"] - label["x"] <= 4, (box, label)
    no_sideways_scroll(page)
    save(page, tmp_path, f"new-game-{view}.png")
    # a clock with no time to show is a plain dash, not "--:--" in big digits
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    call(port, "/api/game/finish", {})
    page.goto(url + "/")
    page.locator("#finished").wait_for()
    assert page.locator("#clock").inner_text() == "—"
    assert page.locator("#clock-caption").inner_text().lower() == "game over"


def test_four_players_totals_all_show_on_a_phone_score_sheet(browser, server, tmp_path):
    """The sheet was wider than a phone: the fourth column, the leader's, was cut off (scrolled away in its
    box with nothing to say so)."""
    url, port, live, _ = server
    names = ["Ann", "Zoë O'Brien-Łukasiewicz the Third", "<b>Bo</b>", "Dan"]
    call(port, "/api/game", {"players": names, "first": 3})
    call(port, "/api/rummikub", {"count_checked": True})
    call(port, "/api/tally/confirm", {"racks": {"Ann": "K2 K5 O8 J", "Zoë O'Brien-Łukasiewicz the Third": "K1 K2 R13 O5",
                                                "<b>Bo</b>": "B3 B3 R7 R8"}})
    page = open_page(browser, url, "phone", "/scores")
    totals_in_view(page, 4)
    no_sideways_scroll(page)
    assert page.locator("#score-sheet thead th").nth(2).get_attribute("title") == names[1]  # in full on a long press
    save(page, tmp_path, "scores-four-phone.png")


def test_at_twice_the_text_size_scores_racks_and_the_score_column_stay_readable(browser, server, tmp_path):
    """A player who reads at 200%: on a phone the score sheet keeps each score on one line (it scrolls in
    its own box) and Export CSV stays on the card; the Players card shows Score without scrolling; on a
    tablet a rack box of the count keeps room to type in (it was squeezed to 22 px)."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Anna", "Bjørn", "Chloé", "Dov"], "rules": "international"})
    call(port, "/api/rummikub", {"count_checked": True, "discard": "K13"})
    tablet = browser.new_page(viewport={"width": 820, "height": 1180}, bypass_csp=True)
    tablet.goto(url + "/")
    tablet.locator("#tally-rows textarea").first.wait_for()
    tablet.evaluate("document.documentElement.style.fontSize = '32px'")
    widths = tablet.evaluate("[...document.querySelectorAll('#tally-rows textarea')].map((t) => t.clientWidth)")
    assert len(widths) == 3 and min(widths) >= 200, widths
    save(tablet, tmp_path, "tablet-count-200.png")
    call(port, "/api/tally/confirm", {"racks": {"Bjørn": "R10 R11 R12 K13", "Chloé": "B1", "Dov": "O9 O9"},
                                      "count_checked": True})
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True)
    page.goto(url + "/scores")
    page.evaluate("document.documentElement.style.fontSize = '32px'")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    lines = page.evaluate("[...document.querySelectorAll('#score-sheet td')].filter((td) => td.textContent.trim())"
                          ".map((td) => { const r = document.createRange(); r.selectNodeContents(td); "
                          "return new Set([...r.getClientRects()].map((q) => Math.round(q.top))).size; })")
    assert lines and max(lines) == 1, lines  # each score on one line, not a digit a line
    export = page.locator("#export-csv").bounding_box()
    card = page.locator("section.card").first.bounding_box()
    assert export["x"] + export["width"] <= card["x"] + card["width"] + 0.5
    save(page, tmp_path, "phone-scores-200.png")
    page.goto(url + "/")
    page.locator("#dealing").wait_for()
    page.evaluate("document.documentElement.style.fontSize = '32px'")
    score = page.locator("#players-table th", has_text="Score").bounding_box()
    assert score["x"] + score["width"] <= 390, score
    save(page, tmp_path, "phone-players-200.png")
