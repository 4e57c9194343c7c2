"""Accessibility. axe-core over the page in each of its main states, each reached through the
real server and the page as a person would reach it: no serious or critical violation
anywhere (moderate and minor ones are listed in test-artifacts/accessibility.txt). Then what
axe cannot see: what a screen reader is told, what the live region says, where the keyboard's
focus goes."""

import os

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import axe
from conftest import SCREENSHOTS
from harness import Proxy
from pages import click_text, css, open_session, wait_for, wait_for_live, wait_until_shows
from test_demo_flow import session_from_url
from test_errors import outcome, send
from test_live import INBOX

REPORT = os.path.join(os.path.dirname(SCREENSHOTS), 'accessibility.txt')


@pytest.fixture(scope='module', autouse=True)
def fresh_report():
    """The report lists this run's findings, not an earlier run's too."""
    if os.path.exists(REPORT):
        os.remove(REPORT)


def start_demo(driver, base_url, api, query=''):
    """The page with no session, then Start the messages demo: the inbox, live. `query`: the
    page's own settings, such as `stream-idle=1`."""
    driver.get(f'{base_url}/{"?" + query if query else ""}')
    wait_for(driver, lambda d: 'No session open' in css(d, '#device-layers').text)
    css(driver, '#start-demo').click()
    wait_for(driver, lambda d: '#session=' in d.current_url)
    session = session_from_url(driver)
    wait_for_live(driver)
    wait_until_shows(driver, api, session)
    return session


def tap(driver, api, session, selector_or_text, revision):
    """A tap on the device (a CSS selector, or a button's text in the top layer), then the
    page at rest on the server's new tree."""
    if selector_or_text.startswith(('.', '[', '#')):
        css(driver, selector_or_text).click()
    else:
        click_text(driver, selector_or_text)
    return wait_until_shows(driver, api, session, revision=revision)


def no_session(driver, base_url, api):
    driver.get(base_url + '/')
    wait_for(driver, lambda d: 'No session open' in css(d, '#device-layers').text)


def inbox(driver, base_url, api):
    start_demo(driver, base_url, api)


def message(driver, base_url, api):
    session = start_demo(driver, base_url, api)
    tap(driver, api, session, '[data-message="m1"]', 2)


def sheet(driver, base_url, api):
    session = start_demo(driver, base_url, api)
    tap(driver, api, session, 'Compose', 2)
    assert css(driver, '.is-top').get_attribute('data-style') == 'sheet'


def full_screen(driver, base_url, api):
    session = start_demo(driver, base_url, api)
    tap(driver, api, session, '[data-message="m1"]', 2)
    tap(driver, api, session, '.is-top .attachment', 3)
    assert css(driver, '.is-top').get_attribute('data-style') == 'fullScreen'


def popover(driver, base_url, api):
    session = start_demo(driver, base_url, api)
    tap(driver, api, session, '[data-message="m1"]', 2)
    tap(driver, api, session, '.is-top [aria-label="More actions"]', 3)
    assert css(driver, '.is-top').get_attribute('data-style') == 'popover'


def alert_with_a_field(driver, base_url, api):
    """The inspector's alert preset (a text field, Save and Cancel), sent from the page."""
    session = start_demo(driver, base_url, api)
    css(driver, '[data-preset="alert"]').click()
    css(driver, '#operation-form button[type="submit"]').click()
    wait_until_shows(driver, api, session, revision=2)
    assert css(driver, '.is-top').get_attribute('data-style') == 'alert'
    assert css(driver, '.is-top input').is_displayed()


def discard_alert(driver, base_url, api):
    """The demo's own alert: Cancel on a draft asks "Discard draft?" (a destructive action)."""
    session = start_demo(driver, base_url, api)
    tap(driver, api, session, 'Compose', 2)
    css(driver, '.is-top input[name="subject"]').send_keys('Draft')
    tap(driver, api, session, 'Cancel', 3)
    assert css(driver, '.is-top').get_attribute('data-style') == 'alert'
    assert css(driver, '.is-top .alert-action--destructive').is_displayed()


def form(driver, base_url, api):
    session = start_demo(driver, base_url, api)
    tap(driver, api, session, 'Settings', 2)
    assert css(driver, '.is-top .screen').get_attribute('data-kind') == 'form'


def refusal(driver, base_url, api):
    """A pop of the root sent from the inspector: 409, shown in the notice and the outcome."""
    start_demo(driver, base_url, api)
    send(driver, 'pop', '{}')
    assert outcome(driver, 'error').startswith('409')
    assert css(driver, '#notice').is_displayed()


STATES = {
    'no session': no_session,
    'demo inbox': inbox,
    'pushed message': message,
    'sheet': sheet,
    'full-screen cover': full_screen,
    'popover': popover,
    'alert with a text field': alert_with_a_field,
    'discard-draft alert': discard_alert,
    'form screen': form,
    'refusal in the inspector': refusal,
}


def check(driver, state):
    violations = axe.run(driver)
    others = [violation for violation in violations if violation not in axe.failing(violations)]
    if others:
        os.makedirs(os.path.dirname(REPORT), exist_ok=True)
        with open(REPORT, 'a', encoding='utf-8') as report:
            report.write(f'## {state}\n{axe.describe(others)}\n')
    serious = axe.failing(violations)
    assert serious == [], f'axe in state "{state}":\n{axe.describe(serious)}'


@pytest.mark.parametrize('state', STATES)
def test_axe_finds_nothing_serious(browser, server, api, state):
    STATES[state](browser, server.url, api)
    check(browser, state)


def test_an_alert_is_a_dialog_that_takes_its_role_and_enter_still_answers_it(browser, server, api):
    """A <form> may not take role=alertdialog (axe's aria-allowed-role, a minor finding):
    the dialog is an element of its own around the form, and Enter in its field still
    answers with its first action that is not a cancel."""
    alert_with_a_field(browser, server.url, api)
    violations = [violation for violation in axe.run(browser) if violation['id'] == 'aria-allowed-role']
    assert violations == [], axe.describe(violations)
    dialog = css(browser, '.is-top [role="alertdialog"]')
    assert dialog.tag_name == 'div' and accessible_names(browser, '.is-top [role="alertdialog"]') != ['']
    field = css(browser, '.is-top [role="alertdialog"] input')
    field.send_keys('Ada', Keys.ENTER)
    wait_for(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, '[data-style="alert"]'), message='Enter did not answer the alert')


def test_axe_finds_nothing_serious_offline(browser, server, api):
    """The demo behind a proxy that is then cut: the page says Offline and keeps retrying."""
    proxy = Proxy(server.port)
    try:
        start_demo(browser, proxy.url, api)
        proxy.cut()
        wait_for(browser, lambda d: css(d, 'body').get_attribute('data-connection') in ('reconnecting', 'offline'),
                 message='the page did not notice the drop')
        assert css(browser, '.status-offline').is_displayed()
        check(browser, 'offline')
    finally:
        proxy.close()


def test_axe_is_injected_and_runs_within_the_page_policy(browser, server):
    """The script comes in through WebDriver, not the page: the page's strict policy still
    holds (the fixture fails the test on any violation it reports) and axe still runs."""
    browser.get(server.url + '/')
    assert 'script-src \'self\'' in browser.execute_script(
        'return fetch("/").then((r) => r.headers.get("content-security-policy"))')
    axe.run(browser)
    assert browser.execute_script('return axe.version') == '4.4.3'
    assert browser.execute_script('return window.__cspViolations') == []


# --- What a screen reader is told -------------------------------------------------------

def accessible_names(driver, selector):
    """Chromium's computed accessible name of each element `selector` matches (what a screen
    reader reads for it), from its accessibility tree."""
    document = driver.execute_cdp_cmd('DOM.getDocument', {'depth': 0})
    ids = driver.execute_cdp_cmd('DOM.querySelectorAll', {'nodeId': document['root']['nodeId'], 'selector': selector})['nodeIds']
    names = []
    for node_id in ids:
        node = driver.execute_cdp_cmd('Accessibility.getPartialAXTree', {'nodeId': node_id, 'fetchRelatives': False})['nodes'][0]
        names.append(node.get('name', {}).get('value', ''))
    return names


def test_an_unread_message_is_named_unread_not_only_drawn_with_a_dot(browser, server, api):
    session = api.create({'screen': 'inbox', 'title': 'Inbox', 'params': {'messages': [
        {'id': 'new', 'from': 'Ada', 'subject': 'Fresh', 'unread': True},
        {'id': 'old', 'from': 'Grace', 'subject': 'Seen'}]}})
    open_session(browser, server.url, session)
    new, old = accessible_names(browser, '.message-row')
    assert new.startswith('Unread') and 'Ada' in new and 'Fresh' in new, new
    assert 'Unread' not in old and 'Grace' in old, old
    # The eye still reads the dot: the word is for the screen reader only, clipped to nothing.
    word = css(browser, '[data-message="new"] .visually-hidden')
    assert word.get_attribute('textContent').startswith('Unread') and word.size['width'] <= 1


def test_a_chosen_option_is_pressed_and_its_tick_is_not_read_as_part_of_its_name(browser, server, api):
    session = start_demo(browser, server.url, api)
    tap(browser, api, session, 'Show: All', 2)
    buttons = browser.find_elements(By.CSS_SELECTOR, '.is-top .choice')
    assert [button.get_attribute('aria-pressed') for button in buttons] == ['true', 'false', 'false']
    assert accessible_names(browser, '.is-top .choice') == ['All', 'Unread', 'With attachments']
    # The tick is still drawn.
    tick = browser.execute_script('return getComputedStyle(arguments[0], "::after").content', buttons[0])
    assert '✓' in tick


# --- The connection's live region ---------------------------------------------------------

def watch_connection_region(driver):
    """Records each text #connection (a polite live region) is given from now on: each one is
    read out by a screen reader, even the same words again."""
    driver.execute_script('''
        window.__said = [];
        const region = document.querySelector('#connection');
        new MutationObserver(() => window.__said.push(region.textContent))
          .observe(region, {childList: true, characterData: true, subtree: true});''')


def test_the_connection_status_says_nothing_while_the_stream_is_quietly_live(browser, server, api):
    """The check of a silent stream (here every second, instead of 25 s) is not news."""
    start_demo(browser, server.url, api, query='stream-idle=1')
    watch_connection_region(browser)
    checks = 'return performance.getEntriesByType("resource").filter((e) => /\\/events\\?after=/.test(e.name)).length'
    wait_for(browser, lambda d: d.execute_script(checks) >= 3, timeout=10, message='the silent stream was not checked')
    assert browser.execute_script('return window.__said') == []
    assert css(browser, '#connection').text == 'Live'


def test_the_connection_status_is_said_once_per_change_not_at_every_retry(browser, server, api):
    """While the network is down the browser retries the stream every 2 s (the server's
    `retry:`), and each failed retry reports "reconnecting" to the page: it must not be
    written into the live region again each time."""
    proxy = Proxy(server.port)
    # Counts the page's event streams' errors: one per failed attempt to connect.
    browser.execute_cdp_cmd('Page.addScriptToEvaluateOnNewDocument', {'source': (
        'window.__streamErrors = 0;'
        'window.EventSource = class extends EventSource {'
        '  constructor(...args) { super(...args); this.addEventListener("error", () => { window.__streamErrors += 1; }); }'
        '};'
    )})
    try:
        start_demo(browser, proxy.url, api)
        watch_connection_region(browser)
        proxy.cut()
        # The drop, then two retries that fail too.
        wait_for(browser, lambda d: d.execute_script('return window.__streamErrors') >= 3, timeout=15,
                 message='the page did not retry the stream')
        assert browser.execute_script('return window.__said') == ['Offline · reconnecting…']
        proxy.resume()
        wait_for_live(browser, timeout=15)
        assert browser.execute_script('return window.__said') == ['Offline · reconnecting…', 'Live']
    finally:
        proxy.close()


# --- The device's announcer -------------------------------------------------------------------

def watch_announcer(driver):
    """Records each text #device-announcer (a status region, always in the page) is given from
    now on, empty ones left out: each one is read out by a screen reader."""
    driver.execute_script('''
        window.__announced = [];
        const region = document.querySelector('#device-announcer');
        new MutationObserver(() => region.textContent && window.__announced.push(region.textContent))
          .observe(region, {childList: true, characterData: true, subtree: true});''')


def announced(driver):
    return driver.execute_script('return window.__announced')


def test_a_result_is_said_once_by_the_announcer_and_not_at_each_redraw(browser, server, api):
    """A result banner is drawn with its words already in it, and a live region inserted so
    is not read out: the words go to one region that is always there, once per result."""
    session = api.create(INBOX)
    open_session(browser, server.url, session, query='stream-idle=1')
    region = css(browser, '#device-announcer')
    assert region.get_attribute('role') == 'status' and region.text == ''
    watch_announcer(browser)
    # A result handed back: its banner's words, said once.
    api.op(session, 'present', {'style': 'sheet', 'screen': 'detail', 'title': 'Settings'})
    api.op(session, 'dismiss', {'result': {'saved': True}})
    wait_until_shows(browser, api, session, revision=3)
    banner = css(browser, '#device-layers > .is-top .result-banner')
    assert banner.text == 'Settings saved.'
    # Not a live region of its own, or the words could be said twice where a reader does
    # notice a region inserted with its text.
    assert banner.get_attribute('role') is None and banner.get_attribute('aria-live') is None
    wait_for(browser, lambda d: announced(d) == ['Settings saved.'], message=f'the announcer said {announced(browser)}')
    assert region.get_attribute('textContent') == 'Settings saved.'
    # A redraw with the same result (a change of state redraws the inbox and its banner), and
    # the stream's quiet checks (every second here): nothing more is said.
    checks = 'return performance.getEntriesByType("resource").filter((e) => /\\/events\\?after=/.test(e.name)).length'
    api.op(session, 'set-state', {'state': 'refreshed', 'transition': 'none'})
    wait_until_shows(browser, api, session, revision=4)
    done = browser.execute_script(checks)
    wait_for(browser, lambda d: d.execute_script(checks) > done, timeout=15, message='the silent stream was not checked')
    assert css(browser, '#device-layers > .is-top .result-banner').text == 'Settings saved.'
    assert announced(browser) == ['Settings saved.']
    # The same words again for a second result: said again.
    api.op(session, 'present', {'style': 'sheet', 'screen': 'detail', 'title': 'Settings'})
    api.op(session, 'dismiss', {'result': {'saved': True}})
    wait_until_shows(browser, api, session, revision=6)
    wait_for(browser, lambda d: announced(d) == ['Settings saved.'] * 2, message=f'the announcer said {announced(browser)}')
    # A page opened on the session later shows the banner, and says nothing: not news.
    open_session(browser, server.url, session)
    wait_until_shows(browser, api, session, revision=6)
    assert css(browser, '#device-layers > .is-top .result-banner').is_displayed()
    assert css(browser, '#device-announcer').get_attribute('textContent') == ''


# --- The keyboard ---------------------------------------------------------------------------

def test_start_pressed_from_the_keyboard_keeps_the_focus(browser, server, api):
    """The Start button is unusable while its session is being made, but keeps the focus the
    person gave it: a button that disables itself drops the focus to the page's body."""
    browser.get(server.url + '/')
    start = css(browser, '#start-demo')
    # Its request is held up, so the button stays busy while the focus is checked.
    browser.execute_cdp_cmd('Network.enable', {})
    browser.execute_cdp_cmd('Network.setBlockedURLs', {'urls': ['*/v1/sessions']})
    try:
        browser.execute_script('arguments[0].focus()', start)
        browser.switch_to.active_element.send_keys(Keys.ENTER)
        wait_for(browser, lambda d: css(d, '#notice').is_displayed(), message='the blocked start was not reported')
        assert browser.switch_to.active_element == start
    finally:
        browser.execute_cdp_cmd('Network.setBlockedURLs', {'urls': []})
    # Pressed again, it works: the demo opens, and the focus is still on Start.
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    wait_for(browser, lambda d: '#session=' in d.current_url)
    session = session_from_url(browser)
    wait_for_live(browser)
    wait_until_shows(browser, api, session)
    assert browser.switch_to.active_element == start


def test_opening_a_session_from_the_keyboard_leaves_the_focus_on_open_a_session(browser, server, api):
    session = api.create(INBOX)
    browser.get(server.url + '/')
    summary = css(browser, '.open-session summary')
    browser.execute_script('arguments[0].focus()', summary)
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    assert css(browser, '#open-id').is_displayed()
    browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.switch_to.active_element == css(browser, '#open-id')
    browser.switch_to.active_element.send_keys(session['id'], Keys.TAB, session['token'], Keys.ENTER)
    wait_for_live(browser)
    wait_until_shows(browser, api, session)
    assert not css(browser, '#open-id').is_displayed()
    assert browser.switch_to.active_element == summary, 'the focus fell to the page\'s body with the closed form'


def test_a_long_event_log_can_be_scrolled_from_the_keyboard(browser, server, api):
    """The log holds its events in a box of its own height; when they overflow it, the box
    takes the focus (by its tabindex, not only by Chromium's choice: WebKit leaves a scroller
    without one out of the tab order) and the arrows or End scroll it. Its name says what it is."""
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    for index in range(20):
        api.op(session, 'set-state', {'state': f'step {index}', 'transition': 'none'})
    wait_until_shows(browser, api, session, revision=21)
    log = css(browser, '#event-log')
    assert browser.execute_script('return arguments[0].scrollHeight > arguments[0].clientHeight', log), 'the log does not overflow'
    assert log.get_attribute('tabindex') == '0'
    assert accessible_names(browser, '#event-log') == ['Events, newest first']
    violations = [violation for violation in axe.run(browser) if violation['id'] == 'scrollable-region-focusable']
    assert violations == [], axe.describe(violations)
    # From Send (the output beside it takes no focus), Tab reaches the log; End scrolls it.
    browser.execute_script('arguments[0].focus()', css(browser, '#operation-form button[type="submit"]'))
    browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.switch_to.active_element == log
    log.send_keys(Keys.END)
    wait_for(browser, lambda d: d.execute_script('return arguments[0].scrollTop', log) > 0, message='End did not scroll the log')


def test_the_json_tree_says_what_it_is_when_it_takes_the_focus(browser, server, api):
    """The tree takes the focus so that a long one can be scrolled from the keyboard; focused,
    a screen reader says its name, and a bare <pre> had none."""
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    tree = css(browser, '#session-tree')
    assert tree.get_attribute('tabindex') == '0'
    assert accessible_names(browser, '#session-tree') == ['The session as JSON']
