"""A row drawn from params (a message, an attachment, a list item) asks, when tapped, for a
screen the server takes, whatever those params hold: a title too long for a screen's, one that
is not a string, params that are not an object."""

from selenium.webdriver.common.by import By

from pages import click_text, css, open_session, top_screen, wait_until_shows
from test_live import INBOX

LONG_SUBJECT = 'Über ' * 120  # 720 bytes of UTF-8: past the 512 a screen's title may hold


def test_a_message_with_a_subject_longer_than_a_title_opens(browser, server, api):
    # The subject went whole as the pushed screen's title: 422, and the tap showed an error.
    session = api.create({'screen': 'inbox', 'title': 'Inbox', 'params': {'messages': [
        {'id': 'long', 'from': 'Ada', 'subject': LONG_SUBJECT, 'attachment': {'name': LONG_SUBJECT}}]}})
    open_session(browser, server.url, session)
    css(browser, '[data-message="long"]').click()
    tree = wait_until_shows(browser, api, session, revision=2)
    title = tree['root']['path'][-1]['title']
    assert title.endswith('…') and LONG_SUBJECT.startswith(title[:-1]) and len(title.encode()) <= 512
    assert top_screen(browser).find_element(By.CSS_SELECTOR, '.message-subject').text == LONG_SUBJECT.strip()
    css(browser, '.is-top .attachment').click()
    tree = wait_until_shows(browser, api, session, revision=3)
    assert tree['root']['presentation']['stack']['path'][0]['title'] == title


def test_a_list_item_with_a_number_for_title_and_text_for_params_opens(browser, server, api):
    # Both went as they were: 422, a title must be a string and params an object.
    session = api.create({'screen': 'list', 'title': 'Odd', 'params': {'items': [{'title': 42, 'screen': 'detail', 'params': 'none'}]}})
    open_session(browser, server.url, session)
    click_text(browser, '42')
    tree = wait_until_shows(browser, api, session, revision=2)
    pushed = tree['root']['path'][-1]
    assert (pushed['screen'], pushed['title'], pushed['params']) == ('detail', '42', {})
    assert not css(browser, '#notice').is_displayed()


def test_a_root_screen_offers_no_tap_that_hands_back_to_nobody(browser, server, api):
    # The root screen of the root stack has no one to hand a value back to: a list row with a
    # `result`, a form's Done and a choices screen's Done were buttons all the same, and a tap
    # on them sent nothing and said nothing.
    for root in ({'screen': 'list', 'title': 'Root list', 'params': {'items': [{'title': 'Pick', 'result': {'x': 1}}]}},
                 {'screen': 'form', 'title': 'Root form', 'params': {'fields': [{'name': 'n', 'label': 'Name'}]}},
                 {'screen': 'choices', 'title': 'Root choices', 'params': {'options': [{'title': 'One', 'value': 1}]}}):
        session = api.create(root)
        open_session(browser, server.url, session)
        wait_until_shows(browser, api, session, revision=1)
        buttons = [b.text for b in top_screen(browser).find_elements(By.CSS_SELECTOR, 'button, [type=submit]')]
        assert 'Pick' not in buttons and 'Done' not in buttons, (root['screen'], buttons)
    # The same screens one step into a stack hand back with a pop, and keep their buttons.
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'push', {'screen': 'list', 'title': 'Pushed list', 'params': {'items': [{'title': 'Pick', 'result': {'x': 1}}]}})
    wait_until_shows(browser, api, session, revision=2)
    click_text(browser, 'Pick')
    tree = wait_until_shows(browser, api, session, revision=3)
    assert tree['root']['path'][-1]['result']['value'] == {'x': 1}
