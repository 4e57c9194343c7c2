"""The messages demo clicked through as a person would, with animations on; after every
step the page must show exactly what the server holds."""

from selenium.webdriver.common.by import By

from pages import (active_inside, click_text, css, server_state, top_screen, visible_state, wait_for, wait_for_live,
                   wait_until_shows)


def session_from_url(driver):
    fragment = dict(part.split('=', 1) for part in driver.current_url.split('#', 1)[1].split('&'))
    return {'id': fragment['session'], 'token': fragment['token']}


def test_the_messages_demo_end_to_end(moving_browser, server, api):
    driver = moving_browser
    driver.get(server.url + '/')
    wait_for(driver, lambda d: 'No session open' in css(d, '#device-layers').text)

    # Start: a new session whose root is the inbox; the fragment names it.
    css(driver, '#start-demo').click()
    wait_for(driver, lambda d: '#session=' in d.current_url)
    session = session_from_url(driver)
    wait_for_live(driver)
    tree = wait_until_shows(driver, api, session)
    assert tree['root']['path'][0]['screen'] == 'inbox'
    rows = driver.find_elements(By.CSS_SELECTOR, '.message-row')
    assert [row.get_attribute('data-message') for row in rows] == ['m1', 'm2', 'm3']
    assert css(driver, '.nav-title').text == 'Inbox'
    assert driver.find_elements(By.CSS_SELECTOR, '.back-button') == []

    # Tap a message: it is pushed, with a back button naming the inbox.
    css(driver, '[data-message="m2"]').click()
    tree = wait_until_shows(driver, api, session, revision=2)
    assert [screen['screen'] for screen in tree['root']['path']] == ['inbox', 'message']
    assert top_screen(driver).find_element(By.CSS_SELECTOR, '.nav-title').text == 'A moth in relay 70'
    assert top_screen(driver).find_element(By.CSS_SELECTOR, '.back-button').get_attribute('aria-label') == 'Back to Inbox'
    assert 'relay 70' in top_screen(driver).find_element(By.CSS_SELECTOR, '.message').text

    # Back pops it.
    css(driver, '.back-button').click()
    tree = wait_until_shows(driver, api, session, revision=3)
    assert [screen['screen'] for screen in tree['root']['path']] == ['inbox']

    # Compose: a sheet with its own navigation; focus moves into it.
    click_text(driver, 'Compose')
    tree = wait_until_shows(driver, api, session, revision=4)
    sheet = tree['root']['presentation']
    assert sheet['style'] == 'sheet' and sheet['navigation'] is True
    assert sheet['stack']['path'][0]['screen'] == 'compose'
    assert css(driver, f'[data-layer="{sheet["id"]}"] .panel').get_attribute('role') == 'dialog'
    wait_for(driver, lambda d: active_inside(d, f'[data-layer="{sheet["id"]}"]'), message='focus did not move into the sheet')
    assert css(driver, '#device-layers > [data-layer="root"]').get_dom_attribute('inert') is not None

    # Inside the sheet: push the contacts list, pick one; the pop hands it back to compose.
    css(driver, '[aria-label="Choose a recipient"]').click()
    tree = wait_until_shows(driver, api, session, revision=5)
    assert [screen['screen'] for screen in tree['root']['presentation']['stack']['path']] == ['compose', 'list']
    click_text(driver, 'Grace Hopper\ngrace@example.com')
    tree = wait_until_shows(driver, api, session, revision=6)
    compose = tree['root']['presentation']['stack']['path'][0]
    assert compose['result']['value'] == {'to': 'grace@example.com'}
    wait_for(driver, lambda d: css(d, '[name="to"]').get_attribute('value') == 'grace@example.com')

    # A draft, then Cancel: the discard alert asks first, and Keep Editing keeps the draft.
    css(driver, '[name="subject"]').send_keys('Found it')
    css(driver, '[name="body"]').send_keys('The moth is in the log book.')
    click_text(driver, 'Cancel')
    tree = wait_until_shows(driver, api, session, revision=7)
    alert = tree['root']['presentation']['stack']['presentation']
    assert alert['style'] == 'alert' and alert['alert']['title'] == 'Discard draft?'
    dialog = css(driver, f'[data-layer="{alert["id"]}"] [role="alertdialog"]')
    assert 'Discard draft?' in dialog.text
    wait_for(driver, lambda d: active_inside(d, f'[data-layer="{alert["id"]}"]'), message='focus did not move into the alert')
    css(driver, '[data-action="keep"]').click()
    tree = wait_until_shows(driver, api, session, revision=8)
    assert tree['root']['presentation']['stack']['path'][0]['result']['value'] == {'action': 'keep'}
    assert api.presentation(session, alert['id'])['status'] == 'dismissed'
    assert css(driver, '[name="subject"]').get_attribute('value') == 'Found it'
    assert css(driver, '[name="to"]').get_attribute('value') == 'grace@example.com'

    # Send: the sheet is dismissed with the values; the inbox shows the result.
    click_text(driver, 'Send')
    tree = wait_until_shows(driver, api, session, revision=9)
    assert tree['root']['presentation'] is None
    result = tree['root']['path'][0]['result']
    assert result['from'] == sheet['id']
    assert result['value'] == {'sent': True, 'to': 'grace@example.com', 'subject': 'Found it', 'body': 'The moth is in the log book.'}
    assert api.presentation(session, sheet['id'])['status'] == 'dismissed'
    banner = css(driver, '.result-banner')
    assert banner.text == 'Sent to grace@example.com: “Found it”'

    # Compose again, type, Cancel, Discard: the alert is answered and the sheet cancelled,
    # in one revision.
    click_text(driver, 'Compose')
    tree = wait_until_shows(driver, api, session, revision=10)
    second = tree['root']['presentation']['id']
    wait_for(driver, lambda d: active_inside(d, f'[data-layer="{second}"]'))
    css(driver, '[name="subject"]').send_keys('Never mind')
    click_text(driver, 'Cancel')
    tree = wait_until_shows(driver, api, session, revision=11)
    question = tree['root']['presentation']['stack']['presentation']['id']
    before = tree['revision']
    css(driver, '[data-action="discard"]').click()
    tree = wait_until_shows(driver, api, session, revision=12)
    assert tree['revision'] == before + 1
    assert tree['root']['presentation'] is None
    assert api.presentation(session, question)['result'] == {'action': 'discard'}
    assert api.presentation(session, second)['status'] == 'cancelled'
    types = [(event['type'], event.get('presentation')) for event in api.events(session, before)]
    assert ('dismissed', question) in types and ('cancelled', second) in types

    # The inspector logged every revision the server made.
    logged = {int(item.get_attribute('data-revision')) for item in driver.find_elements(By.CSS_SELECTOR, '#event-log .event[data-revision]')}
    assert logged == set(range(1, tree['revision'] + 1))
    assert visible_state(driver) == server_state(tree)


def test_a_draft_is_kept_while_a_recipient_is_chosen(browser, server, api):
    # Type a message, then pick its recipient: Contacts is pushed over the compose screen and
    # popped with the choice. The compose screen came back drawn anew, empty but for the
    # recipient: what had been typed into it was gone.
    browser.get(server.url + '/')
    css(browser, '#start-demo').click()
    wait_for(browser, lambda d: '#session=' in d.current_url)
    session = session_from_url(browser)
    wait_for_live(browser)
    click_text(browser, 'Compose')
    wait_until_shows(browser, api, session, revision=2)
    css(browser, '[name="subject"]').send_keys('Found it')
    css(browser, '[name="body"]').send_keys('The moth is in the log book.')
    css(browser, '[aria-label="Choose a recipient"]').click()
    wait_until_shows(browser, api, session, revision=3)
    click_text(browser, 'Grace Hopper\ngrace@example.com')
    wait_until_shows(browser, api, session, revision=4)
    values = [css(browser, f'.is-top [name="{name}"]').get_attribute('value') for name in ('to', 'subject', 'body')]
    assert values == ['grace@example.com', 'Found it', 'The moth is in the log book.']
