"""Reading and driving the page the way a person would, and comparing what it shows with
what the server holds."""

import time

from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 5


def wait_for(driver, condition, timeout=WAIT, message=''):
    """Polls `condition(driver)` until it is truthy; answers its value."""
    return WebDriverWait(driver, timeout, poll_frequency=0.02, ignored_exceptions=(StaleElementReferenceException,)).until(
        condition, message)


def open_session(driver, base_url, session, query=''):
    """Loads the page on a session (by its fragment) and waits until its stream is live.
    `query`: the page's own settings, such as `request-timeout=2`."""
    driver.get(f'{base_url}/{"?" + query if query else ""}#session={session["id"]}&token={session["token"]}')
    wait_for_live(driver)


def wait_for_live(driver, timeout=WAIT):
    wait_for(driver, lambda d: d.find_element(By.TAG_NAME, 'body').get_attribute('data-connection') == 'live', timeout,
             'the page never showed "Live"')


def css(driver, selector):
    return driver.find_element(By.CSS_SELECTOR, selector)


def visible_state(driver):
    """What the device shows: for each layer bottom to top, its key, style and top screen id
    (None for an alert)."""
    return driver.execute_script('''
        return [...document.querySelectorAll('#device-layers > [data-layer]:not(.is-leaving)')].map((layer) => {
          const screen = layer.querySelector('.stack > .screen:not(.is-leaving)');
          return [layer.dataset.layer, layer.dataset.style || 'root', screen ? screen.dataset.screen : null];
        });''')


def server_state(session):
    """The same shape, from the server's tree (docs/api.md)."""
    state = [['root', 'root', session['root']['path'][-1]['id']]]
    stack = session['root']
    while stack and stack.get('presentation'):
        presentation = stack['presentation']
        stack = presentation.get('stack')
        state.append([presentation['id'], presentation['style'], stack['path'][-1]['id'] if stack else None])
    return state


def wait_until_shows(driver, api, session, revision=None, timeout=WAIT):
    """Waits until the server is at `revision` (when given: a tap's request may still be on
    its way) and the page shows exactly the server's tree, at rest; answers that tree."""
    tree = api.session(session)
    deadline = time.monotonic() + timeout
    while revision is not None and tree['revision'] < revision and time.monotonic() < deadline:
        time.sleep(0.02)
        tree = api.session(session)
    assert revision is None or tree['revision'] == revision, f'the server is at revision {tree["revision"]}, not {revision}'
    expected = server_state(tree)
    seen = []

    def shows(d):
        seen[:] = [visible_state(d), shown_revision(d)]
        return seen == [expected, tree['revision']]
    try:
        wait_for(driver, shows, timeout)
    except TimeoutException:
        raise AssertionError(f'the page shows {seen[0]} at revision {seen[1]}, not {expected} at {tree["revision"]}') from None
    wait_for(driver, lambda d: not moving(d), timeout, 'an animation never finished')
    return tree


def moving(driver):
    """True while a screen or presentation is animating in or out (a tap then could miss)."""
    return driver.execute_script('return document.querySelectorAll("#device-layers [class*=anim-], #device-layers .is-leaving").length > 0')


def shown_revision(driver):
    value = driver.execute_script('return document.querySelector("#session-summary [data-revision]")?.dataset.revision')
    return int(value) if value else None


def top_layer(driver):
    return css(driver, '#device-layers > [data-layer].is-top:not(.is-leaving)')


def top_screen(driver):
    return css(driver, '#device-layers > [data-layer].is-top:not(.is-leaving) .stack > .screen:not(.is-leaving)')


def click_text(driver, text, scope='#device-layers > .is-top'):
    """Clicks the button in the top layer whose visible text is `text`."""
    def find(d):
        for button in d.find_elements(By.CSS_SELECTOR, f'{scope} button'):
            if button.text.strip() == text and button.is_displayed():
                return button
        return None
    wait_for(driver, find, message=f'no button "{text}"').click()


def active_inside(driver, selector):
    """True when keyboard focus is inside the element `selector` matches."""
    return driver.execute_script('const e = document.querySelector(arguments[0]); return !!e && e.contains(document.activeElement) && document.activeElement !== document.body', selector)


def settle(driver, seconds=0.45):
    """Lets an animation finish before a screenshot (the CSS runs under this)."""
    time.sleep(seconds)
