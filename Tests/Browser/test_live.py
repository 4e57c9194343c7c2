"""Live updates: a change made with the API shows in an open page; two pages agree; a
dropped stream shows offline, resumes with Last-Event-ID, and catches up."""

import time

from selenium.webdriver.common.by import By

from conftest import assert_clean, make_driver
from harness import API, Proxy
from pages import (css, open_session, server_state, shown_revision, visible_state, wait_for, wait_for_live,
                   wait_until_shows)

INBOX = {'screen': 'inbox', 'title': 'Inbox', 'params': {'messages': [{'id': 'a', 'from': 'Ada', 'subject': 'Hi'}]}}


def test_a_change_made_with_the_api_shows_within_a_second(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    for step, (operation, body) in enumerate([
        ('push', {'screen': 'detail', 'title': 'From curl', 'params': {'body': 'pushed outside the page'}}),
        ('present', {'style': 'sheet', 'screen': 'detail', 'title': 'A sheet from curl'}),
        ('dismiss', {'result': {'done': True}}),
    ]):
        tree = api.op(session, operation, body)
        expected = server_state(tree)
        wait_for(browser, lambda d: visible_state(d) == expected, timeout=1.0,
                 message=f'step {step}: {operation} did not show within a second')
    assert 'From curl' in css(browser, '.is-top .nav-title').text
    assert shown_revision(browser) == tree['revision']


def session_reads(driver, session):
    """The page's own reads of the session (`GET /v1/sessions/{id}`), from the browser's record
    of what it fetched."""
    return driver.execute_script(
        'return performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname)'
        '.filter((path) => path === arguments[0]).length', f'/v1/sessions/{session["id"]}')


def test_the_page_draws_changes_from_the_stream_without_reading_the_session(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    reads = session_reads(browser, session)
    assert reads >= 1, 'the page reads the session once when it opens it'
    api.op(session, 'push', {'screen': 'detail', 'title': 'Streamed', 'params': {}})
    api.op(session, 'set-state', {'state': 'loaded'})
    tree = wait_until_shows(browser, api, session, revision=3)
    assert tree['root']['path'][-1]['state'] == {'name': 'loaded', 'params': {}}
    assert 'Streamed' in css(browser, '.is-top .nav-title').text
    assert session_reads(browser, session) == reads, 'the page read the session again instead of taking it from the stream'


def test_two_pages_on_one_session_agree(browser, server, api):
    session = api.create(INBOX)
    other = make_driver()
    try:
        open_session(browser, server.url, session)
        open_session(other, server.url, session)
        # A tap in one page shows in the other.
        css(browser, '[data-message="a"]').click()
        tree = wait_until_shows(browser, api, session, revision=2)
        wait_until_shows(other, api, session)
        assert tree['root']['path'][-1]['screen'] == 'message'
        # And the other way round, with a presentation.
        wait_for(other, lambda d: [b for b in d.find_elements(By.CSS_SELECTOR, '.is-top .nav-trailing button') if b.text == 'More'])[0].click()
        tree = wait_until_shows(other, api, session, revision=3)
        assert tree['root']['presentation']['style'] == 'popover'
        wait_until_shows(browser, api, session)
        assert visible_state(browser) == visible_state(other) == server_state(tree)
        # Both logged the same events.
        def log(driver):
            return [item.get_attribute('data-revision') + item.get_attribute('data-type')
                    for item in driver.find_elements(By.CSS_SELECTOR, '#event-log .event[data-revision]')]
        wait_for(other, lambda d: log(d) == log(browser))
        assert_clean(other)
    finally:
        other.quit()


def test_a_dropped_stream_shows_offline_then_resumes_with_last_event_id(browser, server, api):
    session = api.create(INBOX)
    proxy = Proxy(server.port)
    try:
        open_session(browser, proxy.url, session)
        api.op(session, 'push', {'screen': 'detail', 'title': 'Before the drop'})
        wait_until_shows(browser, api, session)

        proxy.cut()
        wait_for(browser, lambda d: d.find_element(By.TAG_NAME, 'body').get_attribute('data-connection') in ('reconnecting', 'offline'),
                 message='the page did not notice the drop')
        assert css(browser, '#connection').text.startswith('Offline')
        assert css(browser, '.status-offline').is_displayed()
        # While it is offline, the session changes.
        tree = api.op(session, 'present', {'style': 'modal', 'screen': 'detail', 'title': 'While offline'})
        time.sleep(0.3)
        assert visible_state(browser) != server_state(tree)

        proxy.resume()
        wait_for_live(browser, timeout=10)
        wait_until_shows(browser, api, session)
        streams = [request for request in proxy.requests if '/events?' in request.split('\r\n', 1)[0]]
        resumed = [request for request in streams if 'last-event-id: 2' in request.lower()]
        assert resumed, f'no reconnect sent Last-Event-ID: 2; requests: {streams}'
        assert not css(browser, '.status-offline').is_displayed()
    finally:
        proxy.close()


def test_a_deleted_session_says_so(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.request('DELETE', f'/v1/sessions/{session["id"]}', token=session['token'])
    wait_for(browser, lambda d: 'deleted' in css(d, '#device-layers').text)
    assert css(browser, '#notice').is_displayed()


def connection_words(driver):
    return css(driver, 'body').get_attribute('data-connection'), css(driver, '#connection').text


def test_a_session_the_server_refuses_is_not_said_to_be_offline(browser, server, api):
    # The server answered each time: the session is not there (404 at open, or deleted while
    # followed), or this token is not its own (401). The page said "Offline", sending the
    # person to look at their network, and the device's status bar showed an Offline badge.
    session = api.create(INBOX)
    cases = [
        ('gone', 'Session gone', {'id': 'A' * 22, 'token': session['token']}, None),
        ('refused', 'Token refused', {'id': session['id'], 'token': 'B' * 43}, None),
        ('gone', 'Session gone', session,
         lambda: api.request('DELETE', f'/v1/sessions/{session["id"]}', token=session['token'])),
    ]
    for state, words, opened, then in cases:
        browser.get(f'{server.url}/#session={opened["id"]}&token={opened["token"]}')
        if then:
            wait_for_live(browser)
            then()
        wait_for(browser, lambda d: css(d, '#notice').is_displayed())
        try:
            wait_for(browser, lambda d: connection_words(d) == (state, words))
        except Exception:
            raise AssertionError(f'{opened["id"]}: the page says {connection_words(browser)}, not {(state, words)}') from None
        assert not css(browser, '.status-offline').is_displayed()


def test_the_token_never_reaches_the_log(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'push', {'screen': 'detail'})
    wait_until_shows(browser, api, session)
    events = f'/v1/sessions/{session["id"]}/events'
    # Request lines go out in batches, up to 100 ms after their request
    # (--access-log-flush-ms): wait for the stream's line before reading the log.
    deadline = time.monotonic() + 5
    while events not in server.log_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    log = server.log_text()
    assert events in log
    assert session['token'] not in log


def test_a_replaced_token_ends_the_stream_for_good(browser, server, api):
    session = api.create(INBOX)
    proxy = Proxy(server.port)
    try:
        open_session(browser, proxy.url, session)
        # Another client replaces the token, then changes the session: this page's stream
        # ends with `event: revoked` (docs/clients.md: stop, do not reconnect).
        token = api.request('POST', f'/v1/sessions/{session["id"]}/token', token=session['token'])['token']
        api.op({'id': session['id'], 'token': token}, 'push', {'screen': 'detail'})
        notice = wait_for(browser, lambda d: css(d, '#notice').is_displayed() and css(d, '#notice').text)
        time.sleep(3)  # past the stream's `retry: 2000`
        streams = [request for request in proxy.requests if '/events?' in request.split('\r\n', 1)[0]]
        assert len(streams) == 1, f'the page opened its stream {len(streams)} times, reconnecting with a revoked token'
        # The session is still there; only this page's token is not.
        assert 'token' in notice.lower() and 'gone' not in notice.lower(), notice
        assert 'does not exist' not in css(browser, '#device-layers').text
        assert css(browser, 'body').get_attribute('data-connection') == 'refused'
    finally:
        proxy.close()


def heap_used(driver):
    """The page's JavaScript heap in use after a full collection, in bytes."""
    driver.execute_cdp_cmd('HeapProfiler.enable', {})
    driver.execute_cdp_cmd('HeapProfiler.collectGarbage', {})
    return driver.execute_cdp_cmd('Runtime.getHeapUsage', {})['usedSize']


def test_events_gone_from_the_log_are_not_kept_in_memory(browser, server_with):
    # The log shows the last 200 events, but every event's JSON was kept for ever to tell a
    # repeat: a page left open on a busy session grew without bound, by each result's bytes.
    server = server_with()
    api = API(server.url)
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'present', {'style': 'sheet', 'screen': 'detail', 'title': 'Streams'})
    big = 'x' * 800_000
    for index in range(12):
        # One at a time, as the page draws them: a stream too far behind skips events.
        api.op(session, 'emit', {'result': {'n': index, 'text': big}})
        wait_for(browser, lambda d: shown_revision(d) == index + 3, timeout=10)
    # Small changes push the big results out of the log (it keeps 200); a small result in place
    # of the last big one first, so that each session the stream sends is small.
    api.op(session, 'dismiss', {'result': {'done': True}})
    for index in range(110):
        api.op(session, 'push', {'screen': 'detail', 'title': f'{index}'})
        api.op(session, 'pop', {})
    wait_until_shows(browser, api, session, revision=235, timeout=15)
    assert len(browser.find_elements(By.CSS_SELECTOR, '#event-log li')) == 200
    used = heap_used(browser)
    assert used < 5_000_000, f'{used} bytes of heap in use: the 9.6 MB of results gone from the log are still held'


def test_a_tap_made_while_offline_is_not_said_to_be_unreachable_once_the_page_is_live_again(browser, server, api):
    # A tap while the network is down is refused "The server cannot be reached."; when the
    # network comes back the stream reopens, the page catches up and says "Live", and the
    # notice went on saying, in the present, that the server cannot be reached.
    session = api.create(INBOX)
    proxy = Proxy(server.port)
    try:
        open_session(browser, proxy.url, session)
        proxy.cut()
        wait_for(browser, lambda d: d.find_element(By.TAG_NAME, 'body').get_attribute('data-connection') in ('reconnecting', 'offline'),
                 message='the page did not notice the drop')
        css(browser, '[data-message="a"]').click()
        text = wait_for(browser, lambda d: css(d, '#notice').is_displayed() and css(d, '#notice').text)
        assert 'cannot be reached' in text, text
        proxy.resume()
        wait_for_live(browser, timeout=10)
        wait_until_shows(browser, api, session, revision=1)
        wait_for(browser, lambda d: not (css(d, '#notice').is_displayed() and 'cannot be reached' in css(d, '#notice').text),
                 message=f'the page says "Live" and, beside it, "{css(browser, "#notice").text}"')
    finally:
        proxy.close()
