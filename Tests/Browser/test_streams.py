"""A result that is a stream of values: the inbox's filter sheet emits each choice as it is
made and stays open; the inbox follows along, whoever made the choice."""

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from pages import active_inside, click_text, css, open_session, wait_for, wait_until_shows
from test_presentations import DEMO_INBOX  # m1 unread, m2 read, neither with an attachment


def shown_messages(driver):
    return [row.get_attribute('data-message') for row in driver.find_elements(By.CSS_SELECTOR, '[data-layer="root"] .message-row')]


def pressed(driver, pid):
    """Each choice of the sheet by its title, and whether it shows as the chosen one."""
    return {button.text.strip(): button.get_attribute('aria-pressed')
            for button in driver.find_elements(By.CSS_SELECTOR, f'[data-layer="{pid}"] button.choice')}


def open_filter(browser, api, session):
    click_text(browser, 'Show: All')
    tree = wait_until_shows(browser, api, session, revision=2)
    pid = tree['root']['presentation']['id']
    assert tree['root']['presentation']['style'] == 'sheet'
    assert pressed(browser, pid) == {'All': 'true', 'Unread': 'false', 'With attachments': 'false'}
    return pid


def test_each_choice_reaches_the_inbox_while_the_sheet_stays_open(browser, server, api):
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    assert shown_messages(browser) == ['m1', 'm2']
    pid = open_filter(browser, api, session)

    click_text(browser, 'Unread')
    tree = wait_until_shows(browser, api, session, revision=3)
    assert tree['root']['path'][0]['result'] == {'from': pid, 'value': {'show': 'unread'}, 'revision': 3}
    assert api.presentation(session, pid)['status'] == 'presented'
    wait_for(browser, lambda d: shown_messages(d) == ['m1'], message='the inbox did not follow the choice')
    assert pressed(browser, pid)['Unread'] == 'true'

    # A value emitted elsewhere (curl, another device) shows here too, on both screens.
    api.op(session, 'emit', {'result': {'show': 'attachments'}})
    wait_until_shows(browser, api, session, revision=4)
    wait_for(browser, lambda d: pressed(d, pid)['With attachments'] == 'true', message='the sheet did not show the new choice')
    wait_for(browser, lambda d: shown_messages(d) == [], message='the inbox did not follow the emitted value')
    assert 'No messages.' in css(browser, '[data-layer="root"] .inbox').text

    # Done ends the stream with the current choice as its last value.
    click_text(browser, 'Done')
    wait_until_shows(browser, api, session, revision=5)
    status = api.presentation(session, pid)
    assert (status['status'], status['result']) == ('dismissed', {'show': 'attachments'})
    assert css(browser, '[data-layer="root"] .result-banner').text == 'Showing messages with attachments.'
    assert [event['type'] for event in api.events(session, after=2)] == ['result', 'result', 'dismissed', 'result']


def test_escape_cancels_the_sheet_and_the_last_choice_stays(browser, server, api):
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    pid = open_filter(browser, api, session)
    click_text(browser, 'Unread')
    wait_until_shows(browser, api, session, revision=3)
    wait_for(browser, lambda d: active_inside(d, f'[data-layer="{pid}"]'))
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    tree = wait_until_shows(browser, api, session, revision=4)
    assert api.presentation(session, pid)['status'] == 'cancelled'
    assert tree['root']['path'][0]['result']['value'] == {'show': 'unread'}
    assert shown_messages(browser) == ['m1']
    assert css(browser, '[data-layer="root"] .button-row button').text == 'Show: Unread'
