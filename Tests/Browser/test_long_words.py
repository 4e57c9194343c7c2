"""A word longer than the device is wide (a title, a param, an alert's text that a client sent
without a space) breaks where it must: nothing runs out of the device or of the page, and an
alert keeps every action in sight."""

from pages import css, open_session, wait_for, wait_until_shows
from test_live import INBOX

LONG = 'W' * 300


def outside(driver, container, selector):
    """The elements under `container` matching `selector` that reach past its left or right edge
    (an element drawn with no box of its own, `display: contents`, is not drawn anywhere)."""
    return driver.execute_script('''
        const box = document.querySelector(arguments[0]).getBoundingClientRect();
        return [...document.querySelectorAll(arguments[0] + ' ' + arguments[1])]
          .filter((e) => getComputedStyle(e).display !== 'contents')
          .filter((e) => { const r = e.getBoundingClientRect(); return r.left < box.left - 0.5 || r.right > box.right + 0.5; })
          .map((e) => e.className || e.tagName);''', container, selector)


def test_an_alert_with_a_long_title_keeps_its_actions_in_sight(browser, server, api):
    # The actions' column took the title's width: Cancel sat centred far past the alert's
    # right edge, out of sight, and only the other action could be seen and tapped.
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'present', {'style': 'alert', 'alert': {
        'title': LONG, 'message': LONG * 3,
        'actions': [{'id': 'go', 'title': 'Delete all', 'role': 'destructive'}, {'id': 'cancel', 'title': 'Cancel', 'role': 'cancel'}]}})
    wait_until_shows(browser, api, session, revision=2)
    assert outside(browser, '.is-top .alert', '*') == []
    # Nor past the device's bottom (focus on Cancel then scrolled the whole device up, out of
    # reach): the text, more than a screen of it, scrolls instead.
    assert browser.execute_script('''
        const device = document.querySelector('.device-screen').getBoundingClientRect();
        const alert = document.querySelector('.is-top .alert').getBoundingClientRect();
        return alert.top >= device.top && alert.bottom <= device.bottom;''')
    assert tappable(browser, '.is-top .alert [data-action="cancel"]')
    assert tappable(browser, '.is-top .alert [data-action="go"]')


def test_an_alert_with_long_actions_keeps_them_within_it(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'present', {'style': 'alert', 'alert': {
        'title': 'Sure?', 'actions': [{'id': 'go', 'title': LONG}, {'id': 'cancel', 'title': LONG, 'role': 'cancel'}]}})
    wait_until_shows(browser, api, session, revision=2)
    assert outside(browser, '.is-top .alert', '*') == []
    # Two actions taller than half the device scroll; the cancel one has focus, and is in sight.
    assert tappable(browser, '.is-top .alert [data-action="cancel"]')


def tappable(driver, selector):
    """True when a tap at the element's centre lands on it: it is in sight, inside the device."""
    return driver.execute_script('''
        const element = document.querySelector(arguments[0]);
        const r = element.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return r.height > 0 && !!hit && element.contains(hit);''', selector)


def test_a_screen_of_long_words_stays_within_the_device(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'push', {'screen': 'list', 'title': 'List', 'params': {'items': [{'title': LONG, 'subtitle': LONG, 'result': 1}]}})
    wait_until_shows(browser, api, session, revision=2)
    assert outside(browser, '.is-top .screen:not(.is-leaving)', '.screen-body *') == []
    api.op(session, 'push', {'screen': 'detail', 'title': 'Detail', 'params': {'heading': LONG, 'body': LONG, LONG: LONG}})
    wait_until_shows(browser, api, session, revision=3)
    assert outside(browser, '.is-top .screen:not(.is-leaving)', '.screen-body *') == []


def test_a_long_session_id_in_the_url_stays_within_the_page(browser, server):
    browser.get(f'{server.url}/#session={LONG}&token=t')
    wait_for(browser, lambda d: 'Cannot open session' in css(d, '#notice').text)
    assert outside(browser, 'body', '.topbar *, .notice *') == []
