"""Params are any JSON a client sent (curl, another app): a screen whose params hold items of
another shape than the template expects is still drawn, and the page goes on following the session."""

from selenium.webdriver.common.by import By

from pages import css, open_session, wait_until_shows
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


def test_a_form_hands_back_each_field_by_its_own_name(browser, server, api):
    # Values were looked up by name in the form's elements: "0" found the first control and
    # "length" the count of them, and a field without a name threw, so nothing was sent.
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    fields = [{'name': 'a', 'label': 'A'}, {'name': '0', 'label': 'Zero'}, {'name': 'length', 'label': 'Length'}, {'label': 'No name'}]
    api.op(session, 'push', {'screen': 'form', 'title': 'Names', 'params': {'fields': fields}})
    wait_until_shows(browser, api, session, revision=2)
    for control, typed in zip(browser.find_elements(By.CSS_SELECTOR, '.is-top .screen:not(.is-leaving) .form-field input'), 'xyz'):
        control.send_keys(typed)
    css(browser, '.is-top .screen:not(.is-leaving) .form .button--primary').click()
    tree = wait_until_shows(browser, api, session, revision=3)
    assert tree['root']['path'][-1]['result']['value'] == {'a': 'x', '0': 'y', 'length': 'z'}


def test_a_form_field_without_a_name_is_left_out(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    fields = [{'label': 'No name'}, {'name': '', 'label': 'Empty'}, {'name': 'n', 'label': 'Name'}]
    api.op(session, 'push', {'screen': 'form', 'title': 'Odd', 'params': {'fields': fields}})
    wait_until_shows(browser, api, session, revision=2)
    assert texts(browser, '.form-field label') == ['Name']


def test_a_form_field_named_proto_hands_its_value_back(browser, server, api):
    # The values were gathered by assignment into a plain object: a field named "__proto__"
    # set the object's prototype instead (to a string, ignored), and its value was dropped.
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    fields = [{'name': '__proto__', 'label': 'Proto'}, {'name': 'b', 'label': 'B'}]
    api.op(session, 'push', {'screen': 'form', 'title': 'Names', 'params': {'fields': fields}})
    wait_until_shows(browser, api, session, revision=2)
    for control, typed in zip(browser.find_elements(By.CSS_SELECTOR, '.is-top .screen:not(.is-leaving) .form-field input'), 'xy'):
        control.send_keys(typed)
    css(browser, '.is-top .screen:not(.is-leaving) .form .button--primary').click()
    tree = wait_until_shows(browser, api, session, revision=3)
    assert tree['root']['path'][-1]['result']['value'] == {'__proto__': 'x', 'b': 'y'}


def test_an_empty_number_field_hands_back_null_not_zero(browser, server, api):
    # An empty number field handed back 0 (Number('') is 0): the presenter could not tell a
    # field left empty from one where 0 was typed.
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    fields = [{'name': 'empty', 'label': 'Empty', 'type': 'number'}, {'name': 'zero', 'label': 'Zero', 'type': 'number'},
              {'name': 'n', 'label': 'N', 'type': 'number'}]
    api.op(session, 'push', {'screen': 'form', 'title': 'Numbers', 'params': {'fields': fields}})
    wait_until_shows(browser, api, session, revision=2)
    controls = browser.find_elements(By.CSS_SELECTOR, '.is-top .screen:not(.is-leaving) .form-field input')
    controls[1].send_keys('0')
    controls[2].send_keys('42')
    css(browser, '.is-top .screen:not(.is-leaving) .form .button--primary').click()
    tree = wait_until_shows(browser, api, session, revision=3)
    assert tree['root']['path'][-1]['result']['value'] == {'empty': None, 'zero': 0, 'n': 42}


def test_a_number_field_takes_a_fraction(browser, server, api):
    # A number input's step is 1 unless set: the browser refused to submit 1.5 ("Please enter
    # a valid value"), and the Done did nothing a person could see past the bubble.
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    fields = [{'name': 'amount', 'label': 'Amount', 'type': 'number'}]
    api.op(session, 'push', {'screen': 'form', 'title': 'Amount', 'params': {'fields': fields}})
    wait_until_shows(browser, api, session, revision=2)
    css(browser, '.is-top .screen:not(.is-leaving) .form-field input').send_keys('1.5')
    css(browser, '.is-top .screen:not(.is-leaving) .form .button--primary').click()
    tree = wait_until_shows(browser, api, session, revision=3)
    assert tree['root']['path'][-1]['result']['value'] == {'amount': 1.5}
