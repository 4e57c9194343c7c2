"""Keyboard focus belongs to the person: a change made on another device moves it into the
device only when it was there (or nowhere) already; after Back it returns to what pushed
the screen."""

from selenium.webdriver.common.keys import Keys

from pages import click_text, css, open_session, wait_for, wait_until_shows
from test_live import INBOX
from test_presentations import DEMO_INBOX


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


# --- Back: the focus returns to what pushed the screen -------------------------------------

def test_back_gives_the_focus_to_the_row_that_pushed_the_screen(browser, server, api):
    """As VoiceOver does on iOS: after Back, the person is where they left the list, not at
    the top of the inbox (its title) to walk down the rows again."""
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    css(browser, '[data-message="m2"]').send_keys(Keys.ENTER)  # the keyboard, not the mouse
    wait_until_shows(browser, api, session, revision=2)
    css(browser, '#device-layers > .is-top .screen:not(.is-leaving) .back-button').send_keys(Keys.ENTER)
    wait_until_shows(browser, api, session, revision=3)
    # A new row (the inbox is drawn anew), the same message.
    wait_for(browser, lambda d: d.execute_script('return document.activeElement.dataset.message') == 'm2',
             message=f'the focus is on {focused(browser)}, not on the row that pushed the message')


def test_a_pop_inside_a_sheet_gives_the_focus_to_the_control_that_pushed(browser, server, api):
    """Compose's Contacts pushes the list; a contact picked pops it with a result, and the
    focus is on Contacts again (still there, drawn anew with the result), not on the title."""
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    pid = api.op(session, 'present', {'style': 'sheet', 'screen': 'compose', 'title': 'New Message'})['presentation']
    wait_until_shows(browser, api, session, revision=2)
    css(browser, f'[data-layer="{pid}"] [aria-label="Choose a recipient"]').send_keys(Keys.ENTER)
    wait_until_shows(browser, api, session, revision=3)
    click_text(browser, 'Grace Hopper\ngrace@example.com')
    wait_until_shows(browser, api, session, revision=4)
    wait_for(browser, lambda d: d.switch_to.active_element.get_attribute('aria-label') == 'Choose a recipient',
             message=f'the focus is on {focused(browser)}, not on Contacts')
    assert css(browser, f'[data-layer="{pid}"] [name="to"]').get_attribute('value') == 'grace@example.com'


def test_a_pop_without_the_pushing_control_focuses_the_title(browser, server, api):
    """The screen shown again no longer has the control (here the pushed screen came from the
    API, with the focus in the device on nothing): the title, as before."""
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    browser.execute_script('document.activeElement.blur()')
    api.op(session, 'push', {'screen': 'detail', 'title': 'Pushed elsewhere'})
    wait_until_shows(browser, api, session, revision=2)
    css(browser, '#device-layers > .is-top .screen:not(.is-leaving) .back-button').send_keys(Keys.ENTER)
    wait_until_shows(browser, api, session, revision=3)
    wait_for(browser, lambda d: 'nav-title' in (d.switch_to.active_element.get_attribute('class') or ''),
             message=f'the focus is on {focused(browser)}, not on the inbox\'s title')
    assert browser.switch_to.active_element.text == 'Inbox'


def test_a_sheet_dismissed_elsewhere_leaves_the_focus_on_the_title_not_lost(browser, server, api):
    """The focus was nowhere (the page just opened) when a sheet came from elsewhere: it moved
    into the sheet. When the sheet goes, it returns to the device (the title of the screen
    shown again), not to the page's body, where a keyboard or screen reader user is lost."""
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    browser.execute_script('document.activeElement.blur()')
    pid = api.op(session, 'present', {'style': 'sheet', 'screen': 'detail', 'title': 'From elsewhere'})['presentation']
    wait_until_shows(browser, api, session, revision=2)
    wait_for(browser, lambda d: d.execute_script(f'return document.querySelector(\'[data-layer="{pid}"]\').contains(document.activeElement)'),
             message=f'the focus is on {focused(browser)}, not in the sheet')
    api.op(session, 'dismiss', {'presentation': pid})
    wait_until_shows(browser, api, session, revision=3)
    wait_for(browser, lambda d: 'nav-title' in (d.switch_to.active_element.get_attribute('class') or ''),
             message=f'the focus is on {focused(browser)}, not on the inbox\'s title')
    assert browser.switch_to.active_element.text == 'Inbox'


# --- The session ends under the focus ---------------------------------------------------------

def focus_in_device(driver):
    return driver.execute_script('return document.querySelector("#device-layers").contains(document.activeElement)')


def test_a_session_that_ends_under_the_focus_leaves_it_on_what_the_device_says(browser, server, api):
    """A keyboard user pressed a row, and the tap learnt that the page's token was replaced
    (401); or the session was deleted by another client while the focus was on that row. The
    device drops the tree for a message, and the focus fell with it to the page's body: a
    screen reader user was left nowhere. It goes to the message that takes the tree's place."""
    refused = api.create(INBOX)
    open_session(browser, server.url, refused)
    api.request('POST', f'/v1/sessions/{refused["id"]}/token', token=refused['token'])
    css(browser, '[data-message="a"]').send_keys(Keys.ENTER)
    wait_for(browser, lambda d: 'token' in css(d, '#device-layers').text)
    assert focus_in_device(browser), f'after a tap refused 401 the focus is on {focused(browser)}'
    assert 'token' in browser.switch_to.active_element.text

    deleted = api.create(INBOX)
    open_session(browser, server.url, deleted)
    browser.execute_script('document.querySelector(\'[data-message="a"]\').focus()')
    api.request('DELETE', f'/v1/sessions/{deleted["id"]}', token=deleted['token'])
    wait_for(browser, lambda d: 'deleted' in css(d, '#device-layers').text)
    assert focus_in_device(browser), f'after the session was deleted the focus is on {focused(browser)}'
    assert 'deleted' in browser.switch_to.active_element.text


def test_a_session_ending_leaves_focus_elsewhere_where_it_was(browser, server, api):
    """The focus in the inspector stays there when the session ends: only focus the device
    was holding is moved."""
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    area = css(browser, '#operation-body')
    area.click()
    api.request('DELETE', f'/v1/sessions/{session["id"]}', token=session['token'])
    wait_for(browser, lambda d: 'deleted' in css(d, '#device-layers').text)
    assert focused(browser) == 'operation-body'
