"""A result that is a stream of values (`emit`): a `choices` screen emits each choice as it
is made and stays open; the screen under it follows along, whoever made the choice."""

import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from pages import active_inside, click_text, css, open_session, wait_for, wait_until_shows
from test_presentations import DEMO_INBOX  # m1 unread, m2 read, neither with an attachment


def shown_messages(driver):
    return [row.get_attribute('data-message') for row in driver.find_elements(By.CSS_SELECTOR, '[data-layer="root"] .message-row')]


def pressed(driver, pid):
    """Each choice of the presentation by its title, and whether it shows as the chosen one."""
    return {button.text.strip(): button.get_attribute('aria-pressed')
            for button in driver.find_elements(By.CSS_SELECTOR, f'[data-layer="{pid}"] button.choice')}


def filter_button(driver):
    return css(driver, '[data-layer="root"] .inbox .button-row button').text


def test_the_inbox_filter_follows_each_choice_while_the_popover_stays_open(browser, server, api):
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    assert shown_messages(browser) == ['m1', 'm2']
    click_text(browser, 'Show: All')
    tree = wait_until_shows(browser, api, session, revision=2)
    pid = tree['root']['presentation']['id']
    assert tree['root']['presentation']['style'] == 'popover'
    assert pressed(browser, pid) == {'All': 'true', 'Unread': 'false', 'With attachments': 'false'}

    click_text(browser, 'Unread')
    tree = wait_until_shows(browser, api, session, revision=3)
    assert tree['root']['path'][0]['result'] == {'from': pid, 'value': {'show': 'unread'}, 'revision': 3}
    assert api.presentation(session, pid)['status'] == 'presented'
    wait_for(browser, lambda d: shown_messages(d) == ['m1'], message='the inbox did not follow the choice')
    assert filter_button(browser) == 'Show: Unread'
    assert pressed(browser, pid)['Unread'] == 'true'

    # A value emitted elsewhere (curl, another device) shows here too, on both screens.
    api.op(session, 'emit', {'result': {'show': 'attachments'}})
    wait_until_shows(browser, api, session, revision=4)
    wait_for(browser, lambda d: pressed(d, pid)['With attachments'] == 'true', message='the menu did not show the new choice')
    wait_for(browser, lambda d: shown_messages(d) == [], message='the inbox did not follow the emitted value')
    assert 'No messages.' in css(browser, '[data-layer="root"] .inbox').text

    # Escape closes it without a last value: cancelled, and the last choice stays.
    wait_for(browser, lambda d: active_inside(d, f'[data-layer="{pid}"]'))
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    tree = wait_until_shows(browser, api, session, revision=5)
    status = api.presentation(session, pid)
    assert (status['status'], status['result']) == ('cancelled', None)
    assert tree['root']['path'][0]['result']['value'] == {'show': 'attachments'}
    assert filter_button(browser) == 'Show: With attachments'
    assert [event['type'] for event in api.events(session, after=2)] == ['result', 'result', 'cancelled']


def test_done_on_a_choices_sheet_hands_back_the_current_choice(browser, server, api):
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    pid = api.op(session, 'present', {'style': 'sheet', 'screen': 'choices', 'title': 'Sort', 'params': {
        'options': [{'title': 'Newest first', 'value': 'newest'}, {'title': 'Oldest first', 'value': 'oldest'}],
        'selected': 'newest'}})['presentation']
    wait_until_shows(browser, api, session, revision=2)
    assert pressed(browser, pid) == {'Newest first': 'true', 'Oldest first': 'false'}
    click_text(browser, 'Oldest first')
    tree = wait_until_shows(browser, api, session, revision=3)
    assert tree['root']['path'][0]['result']['value'] == 'oldest'
    wait_for(browser, lambda d: pressed(d, pid)['Oldest first'] == 'true')
    click_text(browser, 'Done')
    wait_until_shows(browser, api, session, revision=4)
    status = api.presentation(session, pid)
    assert (status['status'], status['result']) == ('dismissed', 'oldest')


def test_choices_outside_a_presentation_are_not_offered_as_taps(browser, server, api):
    # A choice is emitted by the presentation it is in; pushed on the root stack there is none,
    # and every tap was refused 409 nothing_presented, with a notice, as if it were the person's fault.
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'push', {'screen': 'choices', 'title': 'Colour', 'params': {'options': [{'title': 'Red', 'value': 'red'}]}})
    wait_until_shows(browser, api, session, revision=2)
    button = css(browser, '.is-top .screen:not(.is-leaving) button.choice')
    assert button.get_attribute('aria-disabled') == 'true'
    button.click()
    time.sleep(0.5)
    assert api.session(session)['revision'] == 2
    assert not browser.find_elements(By.CSS_SELECTOR, '#notice:not([hidden])')


def test_a_choice_whose_value_is_null_is_not_offered_as_a_tap(browser, server, api):
    # `emit` refuses a null result (docs/api.md: required and not null), so such an option
    # can never be chosen; it was drawn as a button like the others, and a tap on it sent
    # nothing and said nothing.
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    pid = api.op(session, 'present', {'style': 'sheet', 'screen': 'choices', 'title': 'Colour', 'params': {
        'options': [{'title': 'None', 'value': None}, {'title': 'No value'}, {'title': 'Red', 'value': 'red'}]}})['presentation']
    wait_until_shows(browser, api, session, revision=2)
    buttons = {b.text.strip(): b for b in browser.find_elements(By.CSS_SELECTOR, f'[data-layer="{pid}"] button.choice')}
    assert [buttons[t].get_attribute('aria-disabled') for t in ('None', 'No value', 'Red')] == ['true', 'true', None]
    buttons['None'].click()
    click_text(browser, 'Red')
    tree = wait_until_shows(browser, api, session, revision=3)
    assert tree['root']['path'][0]['result']['value'] == 'red'
