"""A row drawn from params (a message, an attachment, a list item) asks, when tapped, for a
screen the server takes, whatever those params hold: a title too long for a screen's, one that
is not a string, params that are not an object."""

from selenium.webdriver.common.by import By

from pages import click_text, css, open_session, top_screen, wait_until_shows

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
