"""Refusals are shown, not swallowed: 412 and 409 from the inspector, a stale tap on the
device, and a body the server refuses."""

import re

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.select import Select

from harness import API
from pages import css, open_session, visible_state, wait_for, wait_until_shows
from test_live import INBOX


def send(driver, operation, body, if_match=''):
    Select(css(driver, '#operation')).select_by_value(operation)
    area = css(driver, '#operation-body')
    area.clear()
    area.send_keys(body)
    field = css(driver, '#if-match')
    field.clear()
    if if_match:
        field.send_keys(if_match)
    css(driver, '#operation-form button[type="submit"]').click()


def outcome(driver, kind):
    return wait_for(driver, lambda d: css(d, '#operation-outcome').get_attribute('data-kind') == kind and css(d, '#operation-outcome').text)


def test_a_stale_if_match_shows_412_and_changes_nothing(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'push', {'screen': 'detail'})
    before = wait_until_shows(browser, api, session)
    send(browser, 'push', '{"screen": "detail"}', if_match='1')
    text = outcome(browser, 'error')
    assert text.startswith('412') and 'revision_mismatch' in text and 'current revision 2' in text
    notice = css(browser, '#notice')
    assert notice.is_displayed() and '412' in notice.text
    assert api.session(session)['revision'] == before['revision']
    # With the current revision it goes through.
    css(browser, '#use-revision').click()
    css(browser, '#operation-form button[type="submit"]').click()
    assert outcome(browser, 'ok').startswith('200 OK')
    assert api.session(session)['revision'] == before['revision'] + 1


def test_a_conflict_shows_409(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    send(browser, 'pop', '{}')
    text = outcome(browser, 'error')
    assert text.startswith('409') and 'cannot_pop_root' in text
    assert 'cannot_pop_root' in css(browser, '#notice').text


def test_a_stale_tap_on_the_device_is_refused_with_409_and_the_page_catches_up(browser, server, api):
    session = api.create(INBOX)
    # The page's event stream is blocked, so it cannot hear about the change below.
    api.op(session, 'push', {'screen': 'message', 'title': 'Old', 'params': {}})
    browser.execute_cdp_cmd('Network.enable', {})
    browser.execute_cdp_cmd('Network.setBlockedURLs', {'urls': ['*/events?*']})
    try:
        browser.get(f'{server.url}/#session={session["id"]}&token={session["token"]}')
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '.back-button'))
        api.op(session, 'pop', {})
        # The page still shows the pushed screen; its back button names it as `from`.
        css(browser, '.back-button').click()
        notice = wait_for(browser, lambda d: css(d, '#notice').is_displayed() and css(d, '#notice').text)
        assert notice.startswith('409') and 'top_changed' in notice
        # It refetched the tree, though its stream is still down.
        wait_until_shows(browser, api, session, revision=3)
        assert len(visible_state(browser)) == 1
    finally:
        browser.execute_cdp_cmd('Network.setBlockedURLs', {'urls': []})


def test_a_refused_body_shows_the_problem(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    send(browser, 'present', '{"style": "sideways", "screen": "x"}')
    text = outcome(browser, 'error')
    assert text.startswith('422') and 'invalid_field' in text and '/style' in text
    send(browser, 'push', '{"screen": ')
    assert outcome(browser, 'error').startswith('The body is not JSON')


def test_a_start_past_the_creation_rate_says_how_long_to_wait(browser, server_with):
    limited = server_with('--create-rate-per-ip', '1')
    browser.get(limited.url + '/')
    wait_for(browser, lambda d: 'No session open' in css(d, '#device-layers').text)
    css(browser, '#start-demo').click()
    wait_for(browser, lambda d: '#session=' in d.current_url)
    first = browser.current_url
    browser.get(limited.url + '/')
    wait_for(browser, lambda d: 'No session open' in css(d, '#device-layers').text)
    css(browser, '#start-demo').click()
    notice = wait_for(browser, lambda d: css(d, '#notice').is_displayed() and css(d, '#notice').text)
    assert 'Cannot create a session' in notice and '429' in notice and 'rate_limited' in notice
    # The server's wait: a minute less the time since the first creation refilled, which on a
    # loaded machine passes a second (CI read "retry in 59 s" once).
    waited = re.search(r'retry in (\d+) s', notice)
    assert waited and 45 <= int(waited.group(1)) <= 60, notice
    # Nothing opened: the page still offers to start, and the first session is still there.
    assert '#session=' not in browser.current_url
    assert css(browser, '#start-demo').is_enabled()
    browser.get(first)
    wait_for(browser, lambda d: 'Inbox' in css(d, '#device-layers').text)


def answer(driver):
    """The inspector's outcome once its Send was answered, whichever way."""
    return wait_for(driver, lambda d: css(d, '#operation-outcome').get_attribute('data-kind') in ('ok', 'error')
                    and css(d, '#operation-outcome').text)


def test_the_if_match_field_takes_what_docs_api_md_says_if_match_takes(browser, server, api):
    # docs/api.md: `If-Match: "<revision>"` (or `*`). The field is named after the header, so a
    # person types either what the docs show or a bare revision; each must reach the server as
    # a tag it reads, not as a header it refuses (400 invalid_header).
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    send(browser, 'push', '{"screen": "detail"}', if_match='*')
    assert answer(browser) == '200 OK · push · revision 2'
    send(browser, 'push', '{"screen": "detail"}', if_match='"2"')
    assert answer(browser) == '200 OK · push · revision 3'
    send(browser, 'push', '{"screen": "detail"}', if_match='3')
    assert answer(browser) == '200 OK · push · revision 4'
    # A stale tag, quoted, is still a stale tag: 412, not 400.
    send(browser, 'push', '{"screen": "detail"}', if_match='"1"')
    text = answer(browser)
    assert text.startswith('412') and 'revision_mismatch' in text, text
    assert api.session(session)['revision'] == 4


def test_a_start_refused_503_says_when_to_retry(browser, server_with):
    # 503 too_many_sessions comes with Retry-After (docs/api.md), which only the header says.
    full = server_with('--max-sessions', '1')
    API(full.url).create(INBOX)
    browser.get(full.url + '/')
    wait_for(browser, lambda d: 'No session open' in css(d, '#device-layers').text)
    css(browser, '#start-demo').click()
    notice = wait_for(browser, lambda d: css(d, '#notice').is_displayed() and css(d, '#notice').text)
    assert '503' in notice and 'too_many_sessions' in notice, notice
    assert 'retry in 60 s' in notice, notice
    assert '#session=' not in browser.current_url


def test_dismissing_the_notice_from_the_keyboard_returns_the_focus(browser, server, api):
    """The notice's × hides the notice, and the focus on it fell to the page's body: a keyboard
    or screen reader user who dismissed a refusal was left nowhere. It goes back to what had the
    focus when the notice came (here Send, whose 409 it reports)."""
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    send(browser, 'pop', '{}')
    outcome(browser, 'error')
    send_button = css(browser, '#operation-form button[type="submit"]')
    assert browser.switch_to.active_element == send_button
    close = css(browser, '#notice-close')
    browser.execute_script('arguments[0].focus()', close)
    close.send_keys(Keys.ENTER)
    wait_for(browser, lambda d: not css(d, '#notice').is_displayed())
    active = browser.switch_to.active_element
    assert active == send_button, f'the focus is on {active.tag_name} {active.get_attribute("id")}, not on Send'

    # Nothing had the focus when the notice came (a session that cannot be opened): the focus
    # goes to the page's main content, not to its body.
    browser.get(f'{server.url}/#session={session["id"]}&token={"B" * 43}')
    wait_for(browser, lambda d: css(d, '#notice').is_displayed())
    close = css(browser, '#notice-close')
    browser.execute_script('arguments[0].focus()', close)
    close.send_keys(Keys.ENTER)
    wait_for(browser, lambda d: not css(d, '#notice').is_displayed())
    assert browser.execute_script('return document.activeElement !== document.body'), 'the focus fell to the page\'s body'


def test_dismissing_the_notice_of_a_session_that_ended_returns_the_focus_to_the_device(browser, server, api):
    """The session ended under the focus (deleted elsewhere while a row had it): the focus went
    to the device's message (test_focus.py). Dismissing the notice that says so gives it back
    there, not to the page's main content: the row it was on when the notice came is gone."""
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    browser.execute_script('document.querySelector(\'[data-message="a"]\').focus()')
    api.request('DELETE', f'/v1/sessions/{session["id"]}', token=session['token'])
    wait_for(browser, lambda d: 'deleted' in css(d, '#device-layers').text)
    close = css(browser, '#notice-close')
    browser.execute_script('arguments[0].focus()', close)
    close.send_keys(Keys.ENTER)
    wait_for(browser, lambda d: not css(d, '#notice').is_displayed())
    assert browser.execute_script('return document.querySelector("#device-layers").contains(document.activeElement)'), \
        browser.execute_script('return document.activeElement.outerHTML.slice(0, 80)')
