"""Each presentation style drawn and photographed; Escape, alert actions, nesting and
keyboard focus, each checked against what the server says."""

import os

import pytest

from selenium.webdriver.common.by import By
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.keys import Keys

from pages import (active_inside, click_text, css, open_session, settle, top_layer, visible_state, wait_for,
                   wait_until_shows)
from test_live import INBOX

DEMO_INBOX = {'screen': 'inbox', 'title': 'Inbox', 'params': {'messages': [
    {'id': 'm1', 'from': 'Ada Lovelace', 'date': '09:12', 'unread': True, 'subject': 'Notes on the engine',
     'preview': 'I have annotated the translation.', 'body': 'Note G has the program.'},
    {'id': 'm2', 'from': 'Grace Hopper', 'date': 'Yesterday', 'subject': 'A moth in relay 70',
     'preview': 'First actual case of bug being found.', 'body': 'Taped into the log book.'},
]}}

STYLES = {
    'modal': {'style': 'modal', 'screen': 'form', 'title': 'Settings', 'params': {
        'fields': [{'name': 'signature', 'label': 'Signature', 'value': 'Sent from my phone'},
                   {'name': 'notify', 'label': 'Notify me', 'type': 'checkbox', 'value': True}], 'submit': 'Save'}},
    'sheet': {'style': 'sheet', 'screen': 'compose', 'title': 'New Message', 'params': {'to': 'ada@example.com'}},
    'fullScreen': {'style': 'fullScreen', 'screen': 'detail', 'title': 'note-g.pdf', 'params': {
        'heading': 'Note G', 'body': 'A table of operations for the Bernoulli numbers.', 'size': '2.4 MB', 'pages': 3}},
    'popover': {'style': 'popover', 'screen': 'list', 'title': 'Actions', 'navigation': False, 'params': {'items': [
        {'title': 'Mark as unread', 'result': {'action': 'unread'}}, {'title': 'Flag', 'result': {'action': 'flag'}}]}},
    'alert': {'style': 'alert', 'alert': {'title': 'Rename mailbox', 'message': 'Enter a new name for “Inbox”.',
                                          'actions': [{'id': 'cancel', 'title': 'Cancel', 'role': 'cancel'}, {'id': 'save', 'title': 'Save'}],
                                          'fields': [{'id': 'name', 'placeholder': 'Name'}]}},
}


def test_each_presentation_style_is_drawn_and_photographed(browser, server, api, screenshots):
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    device = css(browser, '.device')
    device.screenshot(os.path.join(screenshots, 'root-inbox.png'))
    for style, body in STYLES.items():
        tree = api.op(session, 'present', body)
        pid = tree['presentation']
        wait_until_shows(browser, api, session)
        layer = css(browser, f'[data-layer="{pid}"]')
        assert layer.get_attribute('data-style') == style
        assert 'presentation--' + style in layer.get_attribute('class')
        role = 'alertdialog' if style == 'alert' else 'dialog'
        dialog = layer.find_element(By.CSS_SELECTOR, f'[role="{role}"]')
        # Modal to the device (the layers below are inert, asserted below), not to the page:
        # no aria-modal, which would hide the inspector from a screen reader (see the test below).
        assert dialog.get_attribute('aria-modal') is None
        assert dialog.is_displayed()
        wait_for(browser, lambda d: active_inside(d, f'[data-layer="{pid}"]'), message=f'focus did not move into the {style}')
        # The layers below cannot be reached while it is up.
        assert css(browser, '[data-layer="root"]').get_dom_attribute('inert') is not None
        settle(browser)
        path = os.path.join(screenshots, f'{style}.png')
        device.screenshot(path)
        assert os.path.getsize(path) > 10_000
        api.op(session, 'dismiss', {})
        wait_until_shows(browser, api, session)
    browser.save_screenshot(os.path.join(screenshots, 'page.png'))


def test_escape_on_a_sheet_cancels_it_and_focus_returns(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    compose = [b for b in browser.find_elements(By.CSS_SELECTOR, '.nav-trailing button') if b.text == 'Compose'][0]
    compose.send_keys(Keys.ENTER)  # the keyboard, not the mouse
    tree = wait_until_shows(browser, api, session, revision=2)
    sheet = tree['root']['presentation']['id']
    wait_for(browser, lambda d: active_inside(d, f'[data-layer="{sheet}"]'), message='focus did not move into the sheet')
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    tree = wait_until_shows(browser, api, session, revision=3)
    assert tree['root']['presentation'] is None
    status = api.presentation(session, sheet)
    assert status['status'] == 'cancelled' and status['result'] is None
    wait_for(browser, lambda d: d.switch_to.active_element.text == 'Compose', message='focus did not return to Compose')


def test_escape_on_a_popover_cancels_it(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    tree = api.op(session, 'present', STYLES['popover'])
    wait_until_shows(browser, api, session)
    wait_for(browser, lambda d: active_inside(d, f'[data-layer="{tree["presentation"]}"]'))
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until_shows(browser, api, session, revision=3)
    assert api.presentation(session, tree['presentation'])['status'] == 'cancelled'


def test_a_popover_row_hands_its_value_back(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    pid = api.op(session, 'present', STYLES['popover'])['presentation']
    wait_until_shows(browser, api, session)
    click_text(browser, 'Flag')
    tree = wait_until_shows(browser, api, session, revision=3)
    status = api.presentation(session, pid)
    assert (status['status'], status['result']) == ('dismissed', {'action': 'flag'})
    assert tree['root']['path'][0]['result']['value'] == {'action': 'flag'}


def test_an_alert_answers_with_its_action_and_fields(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    pid = api.op(session, 'present', STYLES['alert'])['presentation']
    wait_until_shows(browser, api, session)
    field = css(browser, f'[data-layer="{pid}"] input[name="name"]')
    wait_for(browser, lambda d: d.switch_to.active_element == field, message='focus is not in the alert field')
    field.send_keys('Archive')
    css(browser, f'[data-layer="{pid}"] [data-action="save"]').click()
    wait_until_shows(browser, api, session, revision=3)
    status = api.presentation(session, pid)
    assert status['status'] == 'dismissed'
    assert status['result'] == {'action': 'save', 'fields': {'name': 'Archive'}}


def test_escape_on_an_alert_chooses_its_cancel_action(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    pid = api.op(session, 'present', STYLES['alert'])['presentation']
    wait_until_shows(browser, api, session)
    wait_for(browser, lambda d: active_inside(d, f'[data-layer="{pid}"]'))
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_until_shows(browser, api, session, revision=3)
    assert api.presentation(session, pid)['result'] == {'action': 'cancel', 'fields': {'name': ''}}


def test_nested_presentations_stack_in_order(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'present', STYLES['modal'])
    api.op(session, 'push', {'screen': 'detail', 'title': 'Inside the modal'})
    api.op(session, 'present', STYLES['sheet'])
    tree = api.op(session, 'present', STYLES['alert'])
    wait_until_shows(browser, api, session)
    styles = [style for _, style, _ in visible_state(browser)]
    assert styles == ['root', 'modal', 'sheet', 'alert']
    layers = browser.find_elements(By.CSS_SELECTOR, '#device-layers > [data-layer]')
    assert [layer.get_dom_attribute('inert') is not None for layer in layers] == [True, True, True, False]
    # The modal's stack shows its pushed screen with a back button; the sheet dims it.
    modal = layers[1]
    assert modal.find_element(By.CSS_SELECTOR, '.screen .nav-title').get_attribute('textContent') == 'Inside the modal'
    assert modal.get_attribute('data-covered-by') == 'sheet'
    assert top_layer(browser).get_attribute('data-layer') == tree['presentation']
    # Dismissing the modal takes everything above it too, in one revision.
    modal_id = tree['root']['presentation']['id']
    api.op(session, 'dismiss', {'presentation': modal_id})
    wait_until_shows(browser, api, session)
    assert [style for _, style, _ in visible_state(browser)] == ['root']


def test_reduced_motion_leaves_no_animation_behind(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    css(browser, '[data-message="a"]').click()
    wait_until_shows(browser, api, session, revision=2)
    animated = browser.execute_script('return document.querySelectorAll("[class*=anim-], .is-leaving").length')
    assert animated == 0


def pointer(browser, kind):
    """Actions with a mouse, or with a finger on a touch screen (a phone's swipe)."""
    if kind == 'mouse':
        return ActionChains(browser)
    return ActionChains(browser, devices=[PointerInput(interaction.POINTER_TOUCH, 'finger')])


@pytest.mark.parametrize('kind', ['mouse', 'touch'])
def test_dragging_a_sheet_down_cancels_it(browser, server, api, kind):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    pid = api.op(session, 'present', STYLES['sheet'])['presentation']
    wait_until_shows(browser, api, session)
    title = css(browser, f'[data-layer="{pid}"] .nav-title')
    pointer(browser, kind).click_and_hold(title).move_by_offset(0, 120).move_by_offset(0, 200).release().perform()
    wait_until_shows(browser, api, session, revision=3)
    status = api.presentation(session, pid)
    assert (status['status'], status['result']) == ('cancelled', None)


@pytest.mark.parametrize('kind', ['mouse', 'touch'])
def test_a_short_drag_does_not_dismiss(browser, server, api, kind):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    pid = api.op(session, 'present', STYLES['sheet'])['presentation']
    wait_until_shows(browser, api, session)
    title = css(browser, f'[data-layer="{pid}"] .nav-title')
    pointer(browser, kind).click_and_hold(title).move_by_offset(0, 40).release().perform()
    settle(browser)
    assert api.presentation(session, pid)['status'] == 'presented'
    assert api.session(session)['revision'] == 2


def test_a_form_hands_its_values_back_when_submitted(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    pid = api.op(session, 'present', STYLES['modal'])['presentation']
    wait_until_shows(browser, api, session)
    signature = css(browser, f'[data-layer="{pid}"] input[name="signature"]')
    signature.clear()
    signature.send_keys('Sent from the test')
    css(browser, f'[data-layer="{pid}"] input[name="notify"]').click()
    css(browser, f'[data-layer="{pid}"] .screen-body button[type="submit"]').click()
    wait_until_shows(browser, api, session, revision=3)
    status = api.presentation(session, pid)
    assert status['status'] == 'dismissed'
    assert status['result'] == {'signature': 'Sent from the test', 'notify': False}


def test_a_popover_points_at_the_button_that_opened_it(browser, server, api, screenshots):
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    css(browser, '[data-message="m1"]').click()
    wait_until_shows(browser, api, session, revision=2)
    more = css(browser, '.is-top [aria-label="More actions"]')
    more.click()
    tree = wait_until_shows(browser, api, session, revision=3)
    pid = tree['root']['presentation']['id']
    assert tree['root']['presentation']['style'] == 'popover'
    arrow = css(browser, f'[data-layer="{pid}"] .popover-arrow').rect
    button = more.rect
    arrow_center = arrow['x'] + arrow['width'] / 2
    assert button['x'] <= arrow_center <= button['x'] + button['width']
    assert css(browser, f'[data-layer="{pid}"] .panel').rect['y'] >= button['y'] + button['height']
    settle(browser)
    css(browser, '.device').screenshot(os.path.join(screenshots, 'popover-from-more.png'))


def test_a_drag_whose_dismiss_fails_puts_the_sheet_back(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    pid = api.op(session, 'present', STYLES['sheet'])['presentation']
    wait_until_shows(browser, api, session, revision=2)
    # The dismiss the drag sends does not get through.
    browser.execute_cdp_cmd('Network.enable', {})
    browser.execute_cdp_cmd('Network.setBlockedURLs', {'urls': ['*/dismiss']})
    try:
        title = css(browser, f'[data-layer="{pid}"] .nav-title')
        ActionChains(browser).click_and_hold(title).move_by_offset(0, 120).move_by_offset(0, 200).release().perform()
        notice = wait_for(browser, lambda d: css(d, '#notice').is_displayed() and css(d, '#notice').text)
        assert 'cannot be reached' in notice
        assert api.presentation(session, pid)['status'] == 'presented'
        drag = browser.execute_script('return document.querySelector(arguments[0]).style.getPropertyValue("--drag")',
                                      f'[data-layer="{pid}"] > .panel')
        assert drag in ('', '0px'), f'the sheet is still presented but stays dragged down by {drag}'
    finally:
        browser.execute_cdp_cmd('Network.setBlockedURLs', {'urls': []})


def test_a_dialog_is_modal_to_the_device_only_and_says_so(browser, server, api):
    """A sheet makes the device below it inert, and leaves the inspector beside it usable on
    purpose: the keyboard goes on from the sheet to the inspector. So it does not say
    aria-modal, which would tell a screen reader (VoiceOver hides what is outside) that the
    inspector cannot be used; it is a dialog with a name, and what is below it is inert."""
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    compose = [b for b in browser.find_elements(By.CSS_SELECTOR, '.nav-trailing button') if b.text == 'Compose'][0]
    compose.send_keys(Keys.ENTER)
    pid = wait_until_shows(browser, api, session, revision=2)['root']['presentation']['id']
    wait_for(browser, lambda d: active_inside(d, f'[data-layer="{pid}"]'), message='focus did not move into the sheet')
    dialog = css(browser, f'[data-layer="{pid}"] [role="dialog"]')
    assert dialog.get_attribute('aria-modal') is None
    assert dialog.get_attribute('aria-labelledby')
    assert css(browser, '[data-layer="root"]').get_dom_attribute('inert') is not None
    for _ in range(20):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        if active_inside(browser, '#inspector'):
            break
        assert active_inside(browser, f'[data-layer="{pid}"]'), 'Tab left the sheet for somewhere other than the inspector'
    assert active_inside(browser, '#inspector'), 'Tab never reached the inspector from the sheet'
