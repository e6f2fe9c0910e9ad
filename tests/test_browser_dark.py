"""The page in a phone's dark mode, in real headless Chromium (as tests/test_browser.py): the page is dark,
and in each state of an evening at the table every piece of text on the screen stands out from what lies
behind it (WCAG contrast)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

if not Path("/usr/bin/chromium").exists():
    pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)",
                allow_module_level=True)
pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")

from test_browser import save, served  # noqa: E402
from test_webui_db import call  # noqa: E402
from webui_fakes import FakeLive  # noqa: E402

TEXT_MIN = 4.5  # WCAG AA, normal text
LARGE_MIN = 3.0  # WCAG AA, 24 px or 18.66 px bold
DISABLED_MIN = 3.0  # WCAG exempts inactive controls: here they stay readable, only dimmed

# The contrast of every visible piece of text (an element's own text, a form field's value or placeholder,
# a ::before/::after label) against the colour actually painted behind it: the backgrounds of its ancestors
# composited from the page down, with each one's opacity; a gradient counts as each of its solid colours.
CONTRAST = r"""(need) => {
  const parse = (s) => {
    const p = s.slice(s.indexOf("(") + 1, s.indexOf(")")).split(/[\s,\/]+/).filter(Boolean).map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  };
  const over = (c, a, u) => ({r: c.r * a + u.r * (1 - a), g: c.g * a + u.g * (1 - a), b: c.b * a + u.b * (1 - a)});
  const lin = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  const lum = (c) => 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
  const ratio = (x, y) => {
    const [hi, lo] = [lum(x), lum(y)].sort((p, q) => q - p);
    return (hi + 0.05) / (lo + 0.05);
  };
  const layer = (style) => {
    const solid = (style.backgroundImage.match(/rgba?\([^)]*\)/g) || []).map(parse).filter((c) => c.a === 1);
    return {opacity: Number(style.opacity), paints: solid.length ? solid : [parse(style.backgroundColor)]};
  };
  // what the layers from i down paint over u; an opacity blends its whole subtree (text included) over u
  const paint = (layers, picks, i, u, text) => {
    if (i === layers.length) return text ? over(text, text.a, u) : u;
    const inner = paint(layers, picks, i + 1, over(picks[i], picks[i].a, u), text);
    return over(inner, layers[i].opacity, u);
  };
  const worst = (layers, text) => {
    let picks = [[]];
    for (const l of layers) picks = picks.flatMap((p) => l.paints.map((c) => [...p, c]));
    let low = null;
    for (const p of picks) {
      const white = {r: 255, g: 255, b: 255};
      const bg = paint(layers, p, 0, white, null), fg = paint(layers, p, 0, white, text);
      const r = ratio(fg, bg);
      if (!low || r < low.ratio) low = {ratio: r, fg, bg};
    }
    return low;
  };
  const hex = (c) => "#" + [c.r, c.g, c.b].map((v) => Math.round(v).toString(16).padStart(2, "0")).join("");
  const chain = (el) => {
    const out = [];
    for (let n = el; n; n = n.parentElement) out.unshift(layer(getComputedStyle(n)));
    return out;
  };
  const FIELDS = "textarea, select, input:not([type=checkbox]):not([type=radio]):not([type=hidden])";
  const found = [];
  const check = (el, style, layers, text, pseudo) => {
    const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
    const disabled = el.closest(":disabled") !== null;
    const low = worst(layers, parse(style.color));
    const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
      [...el.classList].map((c) => "." + c).join("") + (pseudo || "");
    found.push({ratio: Math.floor(low.ratio * 100) / 100, name, text: text.trim().slice(0, 40),
                need: disabled ? need.disabled : (size >= 24 || (size >= 18.66 && bold)) ? need.large : need.text,
                fg: hex(low.fg), bg: hex(low.bg)});
  };
  for (const el of document.querySelectorAll("body, body *")) {
    if (["SCRIPT", "STYLE", "OPTION", "OPTGROUP", "TEMPLATE", "BR", "IMG"].includes(el.tagName)) continue;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (style.visibility !== "visible" || !el.getClientRects().length || box.width < 2 || box.height < 2) continue;
    const layers = chain(el);
    if (el.matches(FIELDS)) {
      const value = el.tagName === "SELECT" ? (el.selectedOptions[0] || {}).text || "" : el.value;
      if (value) check(el, style, layers, value);
      else if (el.placeholder) {
        check(el, getComputedStyle(el, "::placeholder"), layers, el.placeholder, "::placeholder");
      }
      continue;
    }
    const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join("");
    if (own.trim()) check(el, style, layers, own);
    for (const pseudo of ["::before", "::after"]) {
      const ps = getComputedStyle(el, pseudo);
      if (["none", "normal", '""'].includes(ps.content) || ps.display === "none") continue;
      check(el, ps, [...layers, layer(ps)], ps.content.replace(/attr\(([^)]*)\)/g, (_, a) => el.getAttribute(a) || ""),
            pseudo);
    }
  }
  return {body: lum(parse(getComputedStyle(document.body).backgroundColor)), found};
}"""
NEED = {"text": TEXT_MIN, "large": LARGE_MIN, "disabled": DISABLED_MIN}


def phone(browser, scheme: str = "dark"):
    """A phone's page (390 px) in the given colour scheme."""
    return browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                            bypass_csp=True, color_scheme=scheme)


def readable(page, tmp_path: Path, state: str) -> float:
    """The page is dark and every visible text on it contrasts enough with its background; the screenshot is
    kept as dark-<state>.png.  Returns the lowest contrast ratio found."""
    page.wait_for_timeout(400)  # the clock's colour fades in .3 s
    save(page, tmp_path, f"dark-{state}.png")
    seen = page.evaluate(CONTRAST, NEED)
    assert seen["found"], f"{state}: no text found"
    low = [f"{f['ratio']}:1 < {f['need']}:1 {f['name']} {f['text']!r} ({f['fg']} on {f['bg']})"
           for f in seen["found"] if f["ratio"] < f["need"]]
    if seen["body"] >= 0.2:
        low.insert(0, f"the page is not dark (body luminance {seen['body']:.2f})")
    assert not low, f"{state}: hard to read in dark mode:\n" + "\n".join(low)
    return min(f["ratio"] for f in seen["found"])


TABLE = "R1 R2 R3 | K7 B7 O7 J"
MARKS = {"uncertain": [4], "inferred": [10], "status": ["valid", "valid", "invalid", "unsure", "rack"]}


@pytest.fixture
def server(tmp_path):
    """Every kind of set the camera shows: valid, not a set, unsure, a rack row; one tile read with low
    confidence, one read from its set, and a warning about the photo's colours."""
    yield from served(tmp_path, FakeLive(TABLE + " | R5 K5 | B9 B10 | K1 K4 O13",
                                         warnings=["the light is too yellow to tell orange from red"], **MARKS))


def test_every_state_of_an_evening_reads_in_dark_mode(browser, server, tmp_path):
    url, port, live, clock = server
    lowest = {}
    page = phone(browser)
    page.goto(url + "/")
    page.locator("#sets .set.rack").wait_for()
    page.locator("#colour-banner").wait_for()
    assert page.locator("#end-turn").is_disabled()  # no game yet
    lowest["no game"] = readable(page, tmp_path, "no-game")

    # Ann lays a pair and ends her turn: NOT LEGAL, then her time runs out and the table is put back
    live.set_table(TABLE)
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    page.wait_for_function("document.getElementById('current-player').textContent === 'Ann'")
    live.set_table(TABLE + " | R5 K5")
    page.locator("#sets .set.invalid").wait_for()
    page.click("#end-turn")
    page.wait_for_function("document.getElementById('verdict-word').textContent === 'NOT LEGAL'")
    lowest["turn refused"] = readable(page, tmp_path, "turn-refused")
    clock.advance(61)
    page.locator("#restore").wait_for()
    page.wait_for_function("document.getElementById('snapshot-img').naturalWidth > 0")
    lowest["time is up"] = readable(page, tmp_path, "time-is-up")
    live.set_table(TABLE)
    page.locator("#restore").wait_for(state="hidden")

    # the camera goes: the banner says so, and End turn asks what Ben's turn did
    live.camera_ok, live.camera_error = False, "camera 0 stopped sending frames"
    live.set_table("")
    page.locator("#camera-banner").wait_for()
    page.click("#camera-details summary")
    page.click("#end-turn")
    page.locator("#unseen").wait_for()
    lowest["camera out"] = readable(page, tmp_path, "camera-out")
    page.click("#unseen >> text=Back")
    page.locator("#unseen").wait_for(state="hidden")
    live.camera_ok, live.camera_error = True, None
    live.set_table(TABLE)
    page.locator("#camera-banner").wait_for(state="hidden")

    # Ben goes out: the racks are counted, and a tile mistyped on Ann's rack is refused
    call(port, "/api/rummikub", {"count_checked": True, "winner": "Ben"})
    page.locator("#tally").wait_for()
    page.fill("textarea[data-player=Ann]", "R5 x9")
    page.press("textarea[data-player=Ann]", "Enter")
    page.locator("#tally-error").wait_for()
    lowest["count"] = readable(page, tmp_path, "count")

    # the score sheet while the racks are counted: finishing the game waits, its button disabled
    sheet = phone(browser)
    sheet.goto(url + "/scores")
    sheet.click("#finish-details summary")
    sheet.locator("#finish-details", has_text="being counted").wait_for()
    assert sheet.locator("button.danger").is_disabled()
    lowest["finish while counting"] = readable(sheet, tmp_path, "finish-while-counting")

    # the count confirmed: the next hand waits for its deal, and the score sheet has its first hand
    page.fill("textarea[data-player=Ann]", "R5 K9")
    page.press("textarea[data-player=Ann]", "Enter")
    page.wait_for_function("document.querySelector('textarea[data-player=Ann]').value === 'R5 K9'")
    page.click("text=Confirm and score")
    page.locator("#dealing").wait_for()
    lowest["dealing"] = readable(page, tmp_path, "dealing")
    sheet.goto(url + "/scores")
    sheet.locator("#score-sheet td.neg").first.wait_for()
    lowest["score sheet"] = readable(sheet, tmp_path, "score-sheet")

    # a new game: the form, the earlier games, and a game of one player refused in words
    new = phone(browser)
    new.goto(url + "/new")
    new.locator("#games").wait_for()
    new.fill("textarea[name=players]", "Ann")
    new.once("dialog", lambda d: d.accept())  # it would replace the game on the table
    new.click("button:has-text('Start the game')")
    new.locator("#form-error").wait_for()
    lowest["new game"] = readable(new, tmp_path, "new-game")

    settings = phone(browser)
    settings.goto(url + "/settings")
    lowest["settings"] = readable(settings, tmp_path, "settings")
    print("lowest contrast by state:", {k: round(v, 2) for k, v in lowest.items()})


def test_control_edges_and_the_keyboard_focus_ring_show_on_the_dark_page(browser, server):
    """A button's and a field's edge, and the ring round the button the keyboard is on, stand out from the
    page behind them (3:1, as a control's edge must)."""
    url, port, live, clock = server
    call(port, "/api/game", {"players": ["Ann", "Ben"]})
    page = phone(browser)
    page.goto(url + "/")
    page.locator("#end-turn:enabled").wait_for()
    page.focus("#end-turn")
    page.keyboard.press("Tab")  # from the keyboard: the ring shows
    seen = page.evaluate("""() => {
      const parse = (s) => s.slice(s.indexOf("(") + 1, s.indexOf(")")).split(/[\\s,]+/).map(Number);
      const lin = (v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      const lum = (css) => {
        const [r, g, b] = parse(css);
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
      };
      const page = lum(getComputedStyle(document.body).backgroundColor);
      const ratio = (css) => { const l = lum(css); return (Math.max(l, page) + 0.05) / (Math.min(l, page) + 0.05); };
      const el = document.activeElement, s = getComputedStyle(el);
      return {focused: el.id, ring: s.outlineStyle, ringRatio: ratio(s.outlineColor),
              button: ratio(getComputedStyle(el).borderTopColor),
              field: ratio(getComputedStyle(document.getElementById("hint-rack")).borderTopColor)};
    }""")
    assert seen["focused"] == "pass" and seen["ring"] != "none", seen
    assert min(seen["ringRatio"], seen["button"], seen["field"]) >= 3, seen


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_page_follows_the_phones_colour_scheme(browser, server, scheme):
    url, port, live, clock = server
    page = phone(browser, scheme)
    page.goto(url + "/")
    page.locator("#sets .set").first.wait_for()
    body = page.evaluate(CONTRAST, NEED)["body"]
    assert body < 0.2 if scheme == "dark" else body > 0.8, (scheme, body)
    # the tiles keep their ivory face either way
    face = page.evaluate("getComputedStyle(document.querySelector('#sets .tile')).backgroundColor")
    assert face == "rgb(255, 253, 245)", face
