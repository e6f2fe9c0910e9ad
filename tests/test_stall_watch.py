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


TESTS = Path(__file__).resolve().parent
SPINS = '''
import pytest
pytestmark = pytest.mark.browser
RUNS = []

def test_spins(browser):
    RUNS.append(1)
    page = browser.new_page()
    if len(RUNS) <= {spins}:
        page.evaluate("() => {{ for (;;) {{}} }}")
    assert page.evaluate("() => 6 * 7") == 42

def test_the_next_test(browser):
    assert browser.new_page().evaluate("() => 1") == 1
'''


def session_of(pytester, monkeypatch, spins: int):
    """A test session of its own, with this suite's conftest, whose first test's page spins ``spins`` times."""
    pytester.makeconftest((TESTS / "conftest.py").read_text())
    pytester.makepyfile(stall_watch=(TESTS / "stall_watch.py").read_text(), test_spins=SPINS.format(spins=spins))
    monkeypatch.setenv("BROWSER_STALL_S", "3")
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-o", "markers=browser")


def test_a_test_chromium_stopped_answering_for_once_runs_again_and_its_report_stays(pytester, monkeypatch):
    result = session_of(pytester, monkeypatch, spins=1)
    result.assert_outcomes(passed=2)
    out = result.stdout.str()
    assert "test_spins.py::test_spins: Chromium stopped answering; run once more" in out
    assert "Chromium has not answered for 3 s; ending it." in out and "page.evaluate(" in out


def test_a_test_chromium_stops_answering_for_twice_fails(pytester, monkeypatch):
    result = session_of(pytester, monkeypatch, spins=2)
    result.assert_outcomes(passed=1, failed=1, errors=1)  # the call, and the watch's word at its teardown
    assert "Chromium stopped answering for 3.0 s and was ended" in result.stdout.str()
