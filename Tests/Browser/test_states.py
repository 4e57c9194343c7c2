"""A screen that shows one of its children by state (`set-state`, after StateViewController):
the message screen switches between the message and its original text in place, keeping its
id and its back button, and follows a state set from elsewhere, with that change's transition."""

from selenium.webdriver.common.by import By

from harness import API, Proxy
from pages import click_text, css, open_session, top_screen, wait_for, wait_for_live, wait_until_shows
from test_presentations import DEMO_INBOX  # m1 from Ada Lovelace, "Notes on the engine"


def segments(driver):
    """The top screen's state switch: each segment's label and whether it shows as chosen."""
    return {button.text.strip(): button.get_attribute('aria-pressed')
            for button in top_screen(driver).find_elements(By.CSS_SELECTOR, '.segmented .segment')}


def test_the_message_switches_to_its_original_in_place_and_back(browser, server, api):
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    css(browser, '[data-message="m1"]').click()
    tree = wait_until_shows(browser, api, session, revision=2)
    message = tree['root']['path'][1]
    assert (message['screen'], message['state']) == ('message', None)
    assert segments(browser) == {'Message': 'true', 'Original': 'false'}

    click_text(browser, 'Original')
    tree = wait_until_shows(browser, api, session, revision=3)
    shown = tree['root']['path'][1]
    assert shown['id'] == message['id'], 'a change of state keeps the screen'
    assert shown['state'] == {'name': 'original', 'params': {}}
    screen = top_screen(browser)
    assert screen.get_attribute('data-screen') == message['id']
    assert screen.get_attribute('data-transition') == 'crossfade'
    source = css(browser, '#device-layers > .is-top .message-source').text
    assert source.startswith('From: Ada Lovelace\nDate: 09:12\nSubject: Notes on the engine')
    assert 'Note G has the program.' in source
    assert segments(browser) == {'Message': 'false', 'Original': 'true'}
    assert css(browser, '#device-layers > .is-top .back-button').get_attribute('aria-label') == 'Back to Inbox'

    click_text(browser, 'Message')
    tree = wait_until_shows(browser, api, session, revision=4)
    assert tree['root']['path'][1]['state'] == {'name': 'formatted', 'params': {}}
    wait_for(browser, lambda d: segments(d) == {'Message': 'true', 'Original': 'false'})
    assert not browser.find_elements(By.CSS_SELECTOR, '#device-layers > .is-top .message-source')
    events = api.events(session, after=2)
    assert [(event['type'], event['screen'], event['state']['name'], event['transition']) for event in events] == [
        ('state-set', message['id'], 'original', 'crossfade'), ('state-set', message['id'], 'formatted', 'crossfade')]


def test_a_state_set_elsewhere_under_a_sheet_shows_once_it_is_uncovered(browser, server, api):
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'push', {'screen': 'message', 'title': 'Notes', 'params': DEMO_INBOX['params']['messages'][0]})
    message = api.op(session, 'present', {'style': 'sheet', 'screen': 'compose', 'title': 'Reply', 'params': {}})
    wait_until_shows(browser, api, session, revision=3)
    message_id = message['root']['path'][1]['id']

    # Another client shows the original on the covered message, at once (`none`).
    api.op(session, 'set-state', {'screen': message_id, 'state': 'original', 'transition': 'none'})
    wait_until_shows(browser, api, session, revision=4)
    click_text(browser, 'Cancel')
    tree = wait_until_shows(browser, api, session, revision=5)
    assert tree['root']['path'][1]['state']['name'] == 'original'
    wait_for(browser, lambda d: segments(d) == {'Message': 'false', 'Original': 'true'},
             message='the uncovered message does not show its state')
    assert top_screen(browser).get_attribute('data-transition') == 'none'
    assert 'Ada Lovelace' in css(browser, '#device-layers > .is-top .message-source').text


def test_a_failed_tap_leaves_no_transition_for_a_change_the_page_learns_by_reading(browser, server_with):
    # One event kept: a stream down over two changes cannot resume, and the page reads the session.
    server = server_with('--events-kept', '1')
    api = API(server.url)
    session = api.create(DEMO_INBOX)
    api.op(session, 'push', {'screen': 'message', 'title': 'Notes', 'params': DEMO_INBOX['params']['messages'][0]})
    proxy = Proxy(server.port)
    try:
        open_session(browser, proxy.url, session)
        wait_until_shows(browser, api, session, revision=2)
        wait_for_live(browser)
        # The network goes: the tap on Original (a crossfade) fails, and changes nothing.
        proxy.cut()
        wait_for(browser, lambda d: css(d, 'body').get_attribute('data-connection') != 'live')
        click_text(browser, 'Original')
        wait_for(browser, lambda d: css(d, '#notice').is_displayed(), message='the failed tap was not reported')
        assert api.session(session)['revision'] == 2
        # Meanwhile another client shows the original at once (`none`), over another change.
        # The page learns of them by reading the session as it reconnects, not from their
        # events: how the state changed is not known, so it is shown the default way, not as
        # the failed tap asked.
        message = api.session(session)['top']['screen']
        api.op(session, 'set-state', {'screen': message, 'state': 'draft', 'transition': 'none'})
        api.op(session, 'set-state', {'screen': message, 'state': 'original', 'transition': 'none'})
        proxy.resume()
        wait_until_shows(browser, api, session, revision=4)
        wait_for(browser, lambda d: segments(d) == {'Message': 'false', 'Original': 'true'})
        assert top_screen(browser).get_attribute('data-transition') == 'automatic'
    finally:
        proxy.close()
