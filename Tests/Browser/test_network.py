"""What a person sees when the server misbehaves: one that stops answering but keeps its
connections open, a stream that fell behind the kept history."""

import os
import signal
import threading

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from harness import API, Proxy
from pages import css, open_session, shown_revision, visible_state, wait_for, wait_until_shows
from test_errors import send
from test_live import INBOX


def notice(driver, timeout):
    return wait_for(driver, lambda d: css(d, '#notice').is_displayed() and css(d, '#notice').text, timeout,
                    'the page never said anything was wrong')


class Frozen:
    """The server stopped (SIGSTOP): its connections stay open, nothing answers. Always
    continued (SIGCONT) on leaving, so that the fixture can stop it."""

    def __init__(self, server):
        self.pid = server.process.pid

    def __enter__(self):
        os.kill(self.pid, signal.SIGSTOP)
        return self

    def __exit__(self, *exc):
        os.kill(self.pid, signal.SIGCONT)


def test_a_server_that_stops_answering_is_reported_and_the_page_recovers(browser, server_with):
    server = server_with()
    api = API(server.url)
    session = api.create(INBOX)
    # Two seconds instead of the page's usual twelve, so that the test need not wait.
    open_session(browser, server.url, session, query='request-timeout=2')
    before = visible_state(browser)
    with Frozen(server):
        css(browser, '[data-message="a"]').click()
        text = notice(browser, timeout=10)
        assert 'did not answer within 2 s' in text, text
        # Nothing was drawn that the server did not say.
        assert visible_state(browser) == before
        # The inspector's send gives up too, and says so, instead of "Sending…" for ever.
        css(browser, '#operation-form button[type="submit"]').click()
        wait_for(browser, lambda d: css(d, '#operation-outcome').get_attribute('data-kind') == 'error', 10,
                 'the inspector still waits for the frozen server')
        assert 'did not answer' in css(browser, '#operation-outcome').text
    # Once the server answers again, the page shows what it holds and works as before. The
    # requests it gave up on may be made after all, one after the other, as the server reads
    # them: the tree to wait for is the one the server holds once it has stopped moving.
    tree = None
    for _ in range(3):
        revision = api.session(session)['revision']
        try:
            tree = wait_until_shows(browser, api, session, revision=revision, timeout=10)
        except AssertionError:
            if api.session(session)['revision'] == revision:
                raise
            continue
        if api.session(session)['revision'] == revision:
            break
    assert tree is not None and api.session(session)['revision'] == tree['revision'], 'the server never settled'
    css(browser, '#operation-form button[type="submit"]').click()
    wait_for(browser, lambda d: css(d, '#operation-outcome').get_attribute('data-kind') == 'ok', 10)
    wait_until_shows(browser, api, session, revision=tree['revision'] + 1)
    assert not css(browser, '#notice').is_displayed()


class ResetWatchingProxy(Proxy):
    """Passes everything, and notes when the server sent a stream's `event: reset`.

    Only bytes after an event stream's header count: the page's own scripts, served over the
    same proxy, mention `event: reset` in their comments."""

    def __init__(self, target_port):
        super().__init__(target_port)
        self.reset_sent = threading.Event()
        self._tails = {}  # socket from the server: its last bytes, and whether a stream began

    def _passes(self, source, destination, data, from_client):
        if not from_client:
            with self._lock:
                tail, streaming = self._tails.get(source, (b'', False))
                seen = tail + data
                if not streaming and b'text/event-stream' in seen:
                    streaming = True
                    seen = seen[seen.index(b'text/event-stream'):]
                self._tails[source] = (seen[-32:], streaming)
            if streaming and b'event: reset\n' in seen:
                self.reset_sent.set()
        return True


def test_a_reset_from_the_server_shows_in_the_event_log(browser, server_with):
    # One event kept: a stream that falls behind by a single revision gets `event: reset`.
    server = server_with('--events-kept', '1')
    api = API(server.url)
    session = api.create(INBOX)
    proxy = ResetWatchingProxy(server.port)
    try:
        open_session(browser, proxy.url, session)
        # Changes landing together: the server's notice of one reaches the stream after the
        # next landed, and the stream is told to reset. Bursts until the server has sent one.
        for burst in range(200):
            writers = [threading.Thread(target=api.op, args=(session, 'set-state', {'state': f's{burst}-{n}'}))
                       for n in range(16)]
            for writer in writers:
                writer.start()
            for writer in writers:
                writer.join()
            if proxy.reset_sent.wait(0.05):
                break
        assert proxy.reset_sent.is_set(), 'the server never sent event: reset (cannot test the page)'
        wait_until_shows(browser, api, session)
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '#event-log .event[data-type="reset"]'),
                 message='the page did not log the reset')
        entry = css(browser, '#event-log .event[data-type="reset"]')
        assert 'skipped' in entry.text and entry.get_attribute('data-revision')
        assert css(browser, 'body').get_attribute('data-connection') == 'live'
    finally:
        proxy.close()


COUNT_WRITES = '''
    window.__writes = [];
    const send = window.fetch;
    window.fetch = (input, init) => {
      if (init && init.method === 'POST') window.__writes.push(new URL(String(input), location.href).pathname);
      return send(input, init);
    };'''


def test_a_double_click_on_the_device_sends_one_write(browser, server_with):
    server = server_with()
    api = API(server.url)
    session = api.create(INBOX)
    api.op(session, 'push', {'screen': 'message', 'title': 'Hi', 'params': {'from': 'Ada', 'subject': 'Hi', 'body': 'Hello'}})
    open_session(browser, server.url, session)
    wait_until_shows(browser, api, session, revision=2)
    browser.execute_script(COUNT_WRITES)
    # Frozen, the first click's answer cannot come between the two clicks: what a double
    # click on a slow network does. A click's handler sends its request before it returns.
    # One pointer double click at the button's place, as a person makes it: two clicks of the
    # element found once failed as stale whenever anything redrew between them (a loaded CI
    # machine), where a person's second click lands on whatever is drawn there.
    original = [b for b in browser.find_elements(By.CSS_SELECTOR, '.is-top .segment') if b.text == 'Original'][0]
    with Frozen(server):
        ActionChains(browser).double_click(original).perform()
        writes = browser.execute_script('return window.__writes')
    assert writes == [f'/v1/sessions/{session["id"]}/set-state'], writes
    wait_until_shows(browser, api, session, revision=3)
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '.is-top .message[data-state="original"]'))
    assert not css(browser, '#notice').is_displayed()
    # The device takes taps again once the answer came.
    [b for b in browser.find_elements(By.CSS_SELECTOR, '.is-top .segment') if b.text == 'Message'][0].click()
    wait_until_shows(browser, api, session, revision=4)
    assert [event['type'] for event in api.events(session, after=2)] == ['state-set', 'state-set']


def test_a_double_click_on_send_in_the_inspector_sends_one_write(browser, server_with):
    server = server_with()
    api = API(server.url)
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    browser.execute_script(COUNT_WRITES)
    send = css(browser, '#operation-form button[type="submit"]')
    with Frozen(server):
        send.click()
        send.click()
        writes = browser.execute_script('return window.__writes')
    assert writes == [f'/v1/sessions/{session["id"]}/present'], writes
    wait_for(browser, lambda d: css(d, '#operation-outcome').get_attribute('data-kind') == 'ok')
    assert css(browser, '#operation-outcome').text.endswith('revision 2')
    wait_until_shows(browser, api, session, revision=2)
    # And it sends again once answered.
    send.click()
    wait_until_shows(browser, api, session, revision=3)


def test_a_token_replaced_while_offline_is_not_taken_for_a_gone_session(browser, server, api):
    session = api.create(INBOX)
    proxy = Proxy(server.port)
    try:
        open_session(browser, proxy.url, session)
        proxy.cut()
        wait_for(browser, lambda d: css(d, 'body').get_attribute('data-connection') in ('reconnecting', 'offline'))
        # Meanwhile another client replaces the token: this page's is refused (401) on return,
        # and it never hears `event: revoked`.
        api.request('POST', f'/v1/sessions/{session["id"]}/token', token=session['token'])
        proxy.resume()
        text = notice(browser, timeout=15)
        assert 'token' in text.lower() and 'gone' not in text.lower(), text
        assert 'does not exist' not in css(browser, '#device-layers').text
        assert css(browser, 'body').get_attribute('data-connection') == 'refused'
    finally:
        proxy.close()


def test_a_request_failing_after_the_page_left_its_session_is_not_reported_on_the_next(browser, server_with):
    server = server_with()
    api = API(server.url)
    session = api.create(INBOX)
    open_session(browser, server.url, session, query='request-timeout=1')
    browser.execute_script('''
        window.__settled = 0;
        const send = window.fetch;
        window.fetch = (input, init) => send(input, init).finally(() => { window.__settled += 1; });''')
    with Frozen(server):
        css(browser, '[data-message="a"]').click()
        # Leaving asks the server nothing; the tap's request is still on its way.
        css(browser, '#leave').click()
        wait_for(browser, lambda d: 'No session open' in css(d, '#device-layers').text)
        wait_for(browser, lambda d: d.execute_script('return window.__settled') >= 1, 10, 'the request never ended')
        # Its failure belongs to a session the page no longer shows.
        assert not css(browser, '#notice').is_displayed(), css(browser, '#notice').text


# Holds the page's writes to one session until `window.__release()`; `window.__settled`
# counts the held ones whose answer the page has read, a task after it did (so anything the
# page does with the answer, in the promises that follow, is done by then).
HOLD_WRITES_TO = '''
    const held = arguments[0];
    window.__waiting = [];
    window.__settled = 0;
    const send = window.fetch;
    window.fetch = (input, init) => {
      if (!(init && init.method === 'POST' && new URL(String(input), location.href).pathname.startsWith(held))) return send(input, init);
      return new Promise((go) => window.__waiting.push(go)).then(() => send(input, init)).then((response) => {
        const read = response.text.bind(response);
        response.text = () => read().finally(() => setTimeout(() => { window.__settled += 1; }));
        return response;
      });
    };
    window.__release = () => window.__waiting.splice(0).forEach((go) => go());'''


def switch_to(driver, session):
    """Opens another session in the same page (the fragment changes; no reload)."""
    driver.execute_script('location.hash = arguments[0]', f'#session={session["id"]}&token={session["token"]}')
    wait_for(driver, lambda d: css(d, '#session-label').text == session['id'] and shown_revision(d) is not None
             and css(d, 'body').get_attribute('data-connection') == 'live')


@pytest.mark.parametrize('operation, body, revision', [
    ('push', '{"screen": "detail"}', 2),  # made: 200
    ('present', '{"style": "sideways", "screen": "x"}', 1),  # refused: 422
])
def test_an_inspector_send_answered_after_the_page_switched_sessions_is_not_shown_on_the_next(
        browser, server, api, operation, body, revision):
    first, second = api.create(INBOX), api.create(INBOX)
    open_session(browser, server.url, first)
    browser.execute_script(HOLD_WRITES_TO, f'/v1/sessions/{first["id"]}/')
    send(browser, operation, body)
    wait_for(browser, lambda d: css(d, '#operation-outcome').get_attribute('data-kind') == 'pending')
    switch_to(browser, second)
    assert css(browser, '#operation-outcome').text == ''
    browser.execute_script('window.__release()')
    wait_for(browser, lambda d: d.execute_script('return window.__settled') == 1, message='the held send never ended')
    # The first session's answer: not news about the second.
    assert css(browser, '#operation-outcome').text == ''
    assert api.session(first)['revision'] == revision


def test_the_inspector_sends_for_the_next_session_while_the_last_ones_send_is_on_its_way(browser, server, api):
    first, second = api.create(INBOX), api.create(INBOX)
    open_session(browser, server.url, first)
    browser.execute_script(HOLD_WRITES_TO, f'/v1/sessions/{first["id"]}/')
    send(browser, 'push', '{"screen": "detail"}')
    wait_for(browser, lambda d: css(d, '#operation-outcome').get_attribute('data-kind') == 'pending')
    switch_to(browser, second)
    assert css(browser, '#operation-form').get_attribute('aria-busy') is None
    send(browser, 'push', '{"screen": "detail"}')
    wait_for(browser, lambda d: css(d, '#operation-outcome').get_attribute('data-kind') == 'ok',
             message='the Send for this session was dropped while the last session\'s was on its way')
    wait_until_shows(browser, api, second, revision=2)
    browser.execute_script('window.__release()')
    wait_for(browser, lambda d: d.execute_script('return window.__settled') == 1)
    assert css(browser, '#operation-outcome').text == '200 OK · push · revision 2'
    assert api.session(first)['revision'] == 2


def test_a_tap_refused_401_after_the_token_was_replaced_stops_following_the_session(browser, server, api):
    # The token was replaced and nothing changed since, so no `event: revoked` came: the tap
    # is what learns that this page's token is refused. It was reported as any refusal and
    # the page went on showing "Live" and a tree whose every tap is refused again.
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.request('POST', f'/v1/sessions/{session["id"]}/token', token=session['token'])
    css(browser, '[data-message="a"]').click()
    text = notice(browser, timeout=10)
    assert '401' in text and 'token' in text.lower() and 'gone' not in text.lower(), text
    wait_for(browser, lambda d: 'token' in css(d, '#device-layers').text,
             message='the page still shows a tree its token cannot change')
    assert not browser.find_elements(By.CSS_SELECTOR, '#device-layers button')
    assert css(browser, 'body').get_attribute('data-connection') == 'refused'
