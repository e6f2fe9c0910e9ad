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

from test_browser import count_on_two_phones, lose_posts, posts_arrive_again, save, served  # noqa: E402
from test_game_closed_preview import ROYAL  # noqa: E402
from test_webui_db import call  # noqa: E402
from webui_fakes import FakeLive  # noqa: E402

FOURTEEN = "K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 B1"
NARROW = "document.documentElement.scrollWidth <= 390"
REFUSAL_S = 10  # how long the page keeps a refusal in view (app.js REFUSAL_MS)


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


# a rack still being typed on one phone while another presses Confirm (webui.rack_typing, the page's saves)

def counting_three(server, browser, saved=None):
    """Ann went out; Cid's rack K2 is saved (and ``saved``: Ben's); Ben's and Cid's phones on the count."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Ann", "Ben", "Cid"]})
    call(port, "/api/rummikub", {"count_checked": True, "winner": "Ann"})
    call(port, "/api/tally/rack", {"player": "Cid", "rack": "K2"})
    if saved:
        call(port, "/api/tally/rack", {"player": "Ben", "rack": saved})
    return count_on_two_phones(browser, url, "#tally")


BOX = "textarea[data-player=Ben]"


def test_a_rack_is_saved_while_its_box_still_has_the_focus_and_the_other_phone_scores_it(browser, server, tmp_path):
    """Ben types his rack and never leaves the box: it is saved a moment after the typing stops, shown on
    Cid's phone, and Cid's Confirm scores it (it used to be saved only when the box was left)."""
    ben, cid = counting_three(server, browser)
    port = server[1]
    ben.click(BOX)
    ben.keyboard.type("r5 k7")
    cid.wait_for_function(f"document.querySelector('{BOX}').value === 'R5 K7'")
    assert ben.evaluate("document.activeElement.dataset.player") == "Ben"  # still in the box
    assert ben.input_value(BOX) == "r5 k7" and call(port, "/api/state")["game"]["tally"]["racks"]["Ben"] == "R5 K7"
    assert ben.locator("[data-unsaved=Ben]").is_hidden() and cid.locator("[data-typing=Ben]").is_hidden()
    cid.click("text=Confirm and score")
    for page in (ben, cid):
        page.locator("#dealing").wait_for()
        assert "hand 1 scored: Ann +14, Ben -12, Cid -2" in page.locator("#last-turn-text").inner_text()
    assert ben.locator("#refusal").is_hidden()  # nothing typed on Ben's phone was lost
    assert ben.evaluate(NARROW)


def test_the_being_typed_line_goes_with_the_save_even_when_the_typing_word_arrives_late(browser, server, tmp_path):
    """Ben's phone says he is typing at his first key, but that word is slow to arrive: the save waits for
    it, so the mark it sets is cleared by the save, and Cid's phone does not go on showing Ben typing (it
    used to, until the mark lapsed 20 s later)."""
    port = server[1]
    ben, cid = counting_three(server, browser)
    lose_posts(ben, "/api/tally/typing", delay_ms=1500)
    ben.click(BOX)
    ben.keyboard.type("r5 k7")
    cid.wait_for_function(f"document.querySelector('{BOX}').value === 'R5 K7'")
    ben.wait_for_timeout(1500)  # the late word has arrived long since
    assert call(port, "/api/state")["game"]["tally"]["typing"] == {}
    assert cid.locator("[data-typing=Ben]").is_hidden()


def test_confirm_asks_while_a_rack_is_typed_elsewhere_and_the_typing_phone_says_what_the_score_used(
        browser, server, tmp_path):
    """Ben's rack was R5; Ben is typing a correction that cannot be saved as it stands (half a code): Cid's
    phone shows it being typed, and its Confirm asks.  Not now: Ben's rack is still R5.  Yes: scored with
    R5, and Ben's phone says so instead of dropping what was typed without a word."""
    ben, cid = counting_three(server, browser, saved="R5")
    ben.fill(BOX, "R5 K")  # ... 7 still to come; the save on its own is refused (K is no tile) quietly
    cid.locator("[data-typing=Ben]", has_text="being typed on another phone…").wait_for()
    assert ben.locator("[data-typing=Ben]").is_hidden() and ben.locator("#tally-error").is_hidden()
    assert cid.evaluate(NARROW)
    save(cid, tmp_path, "phone-tally-typed-elsewhere.png")
    asked = []
    cid.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    cid.click("text=Confirm and score")
    cid.locator("#tally-error").wait_for()
    assert asked == ["Ben's rack is still being typed on another phone (saved so far: Ben R5). Score the hand "
                     "without waiting?"]
    assert cid.locator("#tally-error").inner_text().startswith("Ben's rack is being typed on another phone")
    cid.wait_for_timeout(500)  # not a double tap
    cid.once("dialog", lambda d: d.accept())  # the players will not wait
    cid.click("text=Confirm and score")
    cid.locator("#dealing").wait_for()
    notice = ben.locator("#refusal-text")
    notice.wait_for()
    assert notice.inner_text() == ("Hand 1 was confirmed on another phone before your rack for Ben was saved; the "
                                   "score used R5 for Ben (typed here: R5 K). If it is wrong, press Take back this "
                                   "hand and correct it.")
    assert ben.locator("#dealing").is_visible() and ben.locator("#undo-hand").is_visible()
    assert ben.evaluate(NARROW)
    save(ben, tmp_path, "phone-tally-overtaken.png")


def test_a_confirm_refused_for_a_rack_being_typed_is_taken_back_once_the_rack_is_saved(browser, server):
    """Cid's Confirm, answered "not now" while Ben types, says to wait for Ben's rack; once Ben saves it,
    Cid's phone no longer says so (it stayed beside the rack saved, as if still waited for)."""
    ben, cid = counting_three(server, browser, saved="R5")
    ben.fill(BOX, "R5 K")
    cid.locator("[data-typing=Ben]", has_text="being typed on another phone…").wait_for()
    cid.once("dialog", lambda d: d.dismiss())
    cid.click("text=Confirm and score")
    refusal = cid.locator("#tally-error", has_text="Ben's rack is being typed on another phone and not saved yet")
    refusal.wait_for()
    ben.fill(BOX, "R5 K7")
    ben.press(BOX, "Enter")  # saved
    cid.locator("[data-points=Ben]", has_text="2 tiles").wait_for()
    refusal.wait_for(state="hidden")
    assert cid.locator("[data-typing=Ben]").is_hidden()


def test_a_rack_that_never_reached_the_companion_is_not_lost_without_a_word(browser, server, tmp_path):
    """Ben's phone loses the companion as he types (its writes do not arrive, not even the word that he is
    typing): Cid's Confirm scores Ben's rack as saved, and Ben's phone says what the score used."""
    ben, cid = counting_three(server, browser, saved="R5")
    lose_posts(ben, "/api/tally/")
    ben.fill(BOX, "R5 K7")
    ben.locator("[data-unsaved=Ben]", has_text="not saved").wait_for()
    cid.click("text=Confirm and score")  # nothing said Ben was typing: no question
    cid.locator("#dealing").wait_for()
    ben.locator("#dealing").wait_for()
    notice = ben.locator("#refusal-text")
    notice.wait_for()
    assert notice.inner_text().startswith("Hand 1 was confirmed on another phone before your rack for Ben was saved; "
                                          "the score used R5 for Ben (typed here: R5 K7).")
    posts_arrive_again(ben)
    ben.wait_for_timeout(REFUSAL_S * 1000 + 500)  # longer than a refusal stays: this one stays until read
    assert notice.is_visible()
    ben.click("#refusal-close")
    notice.wait_for(state="hidden")


def test_back_to_the_game_elsewhere_says_what_typed_here_is_not_kept_and_ones_own_says_nothing_more(
        browser, server, tmp_path):
    url, port, live, clock = server
    ben, cid = counting_three(server, browser, saved="R5")
    lose_posts(ben, "/api/tally/")
    ben.fill(BOX, "R5 K7")
    ben.locator("[data-unsaved=Ben]", has_text="not saved").wait_for()
    cid.once("dialog", lambda d: d.accept())  # "Back to the game? This count is thrown away with ..."
    cid.click("[data-action=cancel-tally]")
    ben.locator("#tally").wait_for(state="hidden")
    ben.locator("#refusal-text").wait_for()
    assert ben.locator("#refusal-text").inner_text() == (
        "The count of hand 1 was left on another phone (Back to the game) before your rack for Ben (R5 K7) was "
        "saved: what was typed here is not kept.")
    posts_arrive_again(ben)
    ben.click("#refusal-close")
    clock.advance(2)  # not a late press for the turn
    call(port, "/api/rummikub", {"count_checked": True, "winner": "Ann"})
    ben.locator("#tally").wait_for()
    ben.fill(BOX, "R5 K")  # typed here, not saved (half a code) ...
    asked = []
    ben.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    ben.click("[data-action=cancel-tally]")  # ... and thrown away by this phone's own press, which asked first
    ben.locator("#tally").wait_for(state="hidden")
    assert asked and asked[0].startswith("Back to the game? This count is thrown away with the rack entered for Ben")
    ben.wait_for_timeout(500)
    assert "another phone" not in ben.locator("#refusal-text").inner_text()  # leaving the box said why it was refused


def test_a_closed_hand_is_saved_while_its_box_still_has_the_focus(browser, server, tmp_path):
    """International: Ann types her Closed win's 14 tiles and stays in the box; Ben's phone shows the hand
    and scores it (a closed hand left unsaved is said as a rack is, when a count closes elsewhere)."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Ann", "Ben"], "rules": "international"})
    call(port, "/api/rummikub", {"count_checked": True, "discard": "K13"})  # Ann starts with 15 tiles
    call(port, "/api/tally/rack", {"player": "Ben", "rack": "K5"})
    ann, ben = count_on_two_phones(browser, url, "#tally-intl")
    ann.select_option("#win", "closed")
    ann.click("#closed-hand")
    ann.keyboard.type(ROYAL.lower())
    ben.wait_for_function(f"document.querySelector('#closed-hand').value === '{ROYAL}'")
    assert ann.evaluate("document.activeElement.id") == "closed-hand" and ann.locator("#tally-error").is_hidden()
    ben.wait_for_function("document.querySelector('[data-winner=Ann]').textContent.includes('Royal')")
    ben.click("text=Confirm and score")
    ann.locator("#dealing").wait_for()
    assert ann.locator("#refusal").is_hidden()  # what Ann typed was scored
    assert call(port, "/api/scores")["hands"][0]["details"]["closed_hand"]["name"] == "Royal"


def test_a_rack_box_is_described_by_its_points_or_what_is_wrong_with_it(browser, server, tmp_path):
    """A screen reader in a rack's box hears its points, or why it cannot be scored (an unknown tile code),
    with the box: the line under it is tied to it, and a wrong rack is marked invalid. A rack of other than
    the tiles the count says has the count's number beside its points."""
    ben, _cid = counting_three(server, browser)
    box = ben.locator(BOX)
    said = box.get_attribute("aria-describedby").split()
    assert len(said) == 2 and all(ben.locator(f"#{i}").count() == 1 for i in said)
    box.fill("r5 x9")  # at once: typed key by key, "r" alone is refused first
    ben.wait_for_function(f"document.getElementById('{said[0]}').textContent.includes(\"'x9' is not a tile\")")
    assert box.get_attribute("aria-invalid") == "true"
    box.fill("r5 k7")
    ben.wait_for_function(f"document.getElementById('{said[0]}').textContent.includes('12 points')")
    assert box.get_attribute("aria-invalid") is None
    # fewer tiles than the count says (a row forgotten): the count's number beside them, not a question
    assert ben.locator(f"#{said[0]}").inner_text().endswith("(by the count Ben holds 14)")
    box.fill("K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13 B1")
    ben.wait_for_function(f"document.getElementById('{said[0]}').textContent.startsWith('14 tiles')")
    assert "by the count" not in ben.locator(f"#{said[0]}").inner_text()


def test_a_rack_typed_while_the_companion_is_away_shows_its_points_once_it_is_back(browser, server, tmp_path):
    """Ben types his rack while his phone cannot reach the companion: once it can again, the rack is saved
    and its line gives its points while he is still in the box (it said "not given yet")."""
    ben, cid = counting_three(server, browser)
    ben.evaluate("""() => {
      const real = window.realFetch || (window.realFetch = window.fetch);
      window.fetch = (url, opts) => String(url).includes("/api/") ? Promise.reject(new TypeError("Failed to fetch"))
                                                                  : real(url, opts);
    }""")
    ben.click(BOX)
    ben.keyboard.type("r5 k7")
    ben.locator("#offline-banner").wait_for()
    assert ben.locator("[data-points=Ben]").inner_text() == "not given yet"
    posts_arrive_again(ben)
    cid.wait_for_function(f"document.querySelector('{BOX}').value === 'R5 K7'")  # saved once back
    ben.wait_for_function("document.querySelector('[data-points=Ben]').textContent.includes('12 points')")
    assert ben.evaluate("document.activeElement.dataset.player") == "Ben"  # still in the box


def test_a_rack_saved_here_and_changed_on_another_phone_is_said_before_the_box_is_left(browser, server, tmp_path):
    """Ben's rack typed on his phone and saved while he stays in the box; Cid's phone then saves another
    one for him: Ben's phone says so under the box (the last save wins, and leaving the box shows it),
    rather than swap his text silently."""
    ben, cid = counting_three(server, browser)
    port = server[1]
    ben.click(BOX)
    ben.keyboard.type("r5 k7")
    cid.wait_for_function(f"document.querySelector('{BOX}').value === 'R5 K7'")
    cid.wait_for_timeout(500)
    cid.fill(BOX, "K1")
    cid.locator(BOX).blur()
    ben.locator("[data-unsaved=Ben]", has_text="changed on another phone to K1: leave the box to see it").wait_for()
    assert ben.input_value(BOX) == "r5 k7" and call(port, "/api/state")["game"]["tally"]["racks"]["Ben"] == "K1"
    ben.locator(BOX).blur()
    ben.wait_for_function(f"document.querySelector('{BOX}').value === 'K1'")
    ben.locator("[data-unsaved=Ben]").wait_for(state="hidden")
