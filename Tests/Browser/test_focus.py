"""Keyboard focus belongs to the person: a change made on another device moves it into the
device only when it was there (or nowhere) already."""

from pages import css, open_session, wait_until_shows
from test_live import INBOX


def focused(driver):
    return driver.execute_script('return document.activeElement.id || document.activeElement.outerHTML.slice(0, 120)')


def test_a_change_from_elsewhere_leaves_the_focus_in_the_inspector(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    area = css(browser, '#operation-body')
    area.clear()
    area.send_keys('{"screen": "det')
    assert focused(browser) == 'operation-body'
    pid = api.op(session, 'present', {'style': 'sheet', 'screen': 'detail', 'title': 'From elsewhere'})['presentation']
    wait_until_shows(browser, api, session, revision=2)
    assert focused(browser) == 'operation-body', 'a sheet presented elsewhere took the focus from the inspector'
    api.op(session, 'dismiss', {'presentation': pid})
    wait_until_shows(browser, api, session, revision=3)
    assert focused(browser) == 'operation-body', 'a sheet dismissed elsewhere took the focus from the inspector'
