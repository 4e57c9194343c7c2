"""Params are any JSON a client sent (curl, another app): a screen whose params hold items of
another shape than the template expects is still drawn, and the page goes on following the session."""

from selenium.webdriver.common.by import By

from pages import open_session, wait_until_shows
from test_live import INBOX


def texts(driver, selector):
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, f'.is-top .screen:not(.is-leaving) {selector}')]


def test_a_list_of_plain_strings_is_drawn(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'push', {'screen': 'list', 'title': 'Plain', 'params': {'items': ['One', 'Two', 3]}})
    wait_until_shows(browser, api, session, revision=2)
    assert texts(browser, '.row-title') == ['One', 'Two', '3']


def test_an_inbox_with_a_null_message_is_drawn(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'push', {'screen': 'inbox', 'title': 'Odd', 'params': {'messages': [None, {'id': 'b', 'from': 'Bob', 'subject': 'Yo'}]}})
    wait_until_shows(browser, api, session, revision=2)
    assert texts(browser, '.message-row .row-title') == ['Bob']


def test_a_form_with_a_null_field_is_drawn(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'push', {'screen': 'form', 'title': 'Odd', 'params': {'fields': [None, {'name': 'n', 'label': 'Name'}]}})
    wait_until_shows(browser, api, session, revision=2)
    assert texts(browser, '.form-field label') == ['Name']


def test_a_form_field_of_a_type_that_takes_no_typed_value_is_drawn_as_text(browser, server, api):
    # A file input refuses a value set by script: drawing this one threw, and the page stayed
    # on the revision before it.
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    fields = [{'name': 'doc', 'label': 'Document', 'type': 'file', 'value': 'notes.txt'},
              {'name': 'go', 'label': 'Go', 'type': 'submit', 'value': 'Now'}]
    api.op(session, 'push', {'screen': 'form', 'title': 'Odd', 'params': {'fields': fields}})
    wait_until_shows(browser, api, session, revision=2)
    inputs = browser.find_elements(By.CSS_SELECTOR, '.is-top .screen:not(.is-leaving) .form-field input')
    assert [(e.get_attribute('type'), e.get_attribute('value')) for e in inputs] == [('text', 'notes.txt'), ('text', 'Now')]
