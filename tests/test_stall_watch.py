"""The browser tests' stall watch (tests/stall_watch.py): a page Chromium no longer answers for ends the
waiting call with a report, instead of holding the run up, and the module's next test gets a new Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from stall_watch import StallWatch

pytestmark = pytest.mark.browser

if not Path("/usr/bin/chromium").exists():
    pytest.skip("Debian's chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)",
                allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright's Python package is not installed")


def test_a_page_that_never_answers_is_ended_with_what_the_test_waited_for(chromium, capfd):
    browser = chromium.get()
    page = browser.new_page()
    with StallWatch(2, "the spinning page") as watch:
        with pytest.raises(sync_api.Error):
            page.evaluate("() => { for (;;) {} }")  # evaluate has no timeout: this would wait for ever
    assert watch.fired
    report = capfd.readouterr().err
    assert "the spinning page: Chromium has not answered for 2 s; ending it." in report
    assert "test_a_page_that_never_answers" in report and "page.evaluate(" in report  # where it waited
    assert "--type=renderer" in report  # and what Chromium's processes were doing
    again = chromium.get()
    assert again is not browser and again.new_page().evaluate("() => 6 * 7") == 42


def test_a_test_that_ends_in_time_is_left_alone(chromium):
    browser = chromium.get()
    with StallWatch(30, "a quick test") as watch:
        assert browser.new_page().evaluate("() => 6 * 7") == 42
    assert not watch.fired and browser.is_connected()
