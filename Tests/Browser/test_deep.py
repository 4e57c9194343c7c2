"""A session as deep as the server allows (`--max-presentation-depth 1000`) is followed like
any other: the page draws it and each change to it without freezing."""

import json
import time
import urllib.request

from harness import API
from pages import css, open_session, shown_revision, wait_for
from test_live import INBOX


def raw_session(server, session):
    """The session's JSON as text: Python's json module recurses, and this tree nests past its limit."""
    request = urllib.request.Request(f'{server.url}/v1/sessions/{session["id"]}',
                                     headers={'Authorization': f'Bearer {session["token"]}'})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read().decode()


def test_a_session_1000_presentations_deep_is_shown_without_quadratic_json(browser, server_with):
    # The inspector wrote the tree with JSON.stringify(session, null, 2): two more spaces at
    # every level, and this tree nests about 2,000 of them. Its text was 38 MB for a 400 KB
    # session, and every change froze the page for 5 to 45 s while it was written and laid out.
    server = server_with('--max-presentation-depth', '1000')
    api = API(server.url)
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    for batch in range(10):
        api.request('POST', f'/v1/sessions/{session["id"]}/batch', token=session['token'],
                    headers={'Prefer': 'return=minimal'},
                    body={'operations': [{'op': 'present', 'style': 'sheet', 'screen': 'detail', 'title': f'Sheet {batch}-{n}'}
                                         for n in range(100)]})
    wait_for(browser, lambda d: shown_revision(d) == 11, 180, 'the page never showed the deep session')
    assert len(browser.find_elements('css selector', '#device-layers > [data-layer]:not(.is-leaving)')) == 1001
    text = raw_session(server, session)
    same, shown, compact = browser.execute_script(
        'const tree = document.querySelector("#session-tree").textContent;'
        'const server = JSON.stringify(JSON.parse(arguments[0]));'
        'return [JSON.stringify(JSON.parse(tree)) === server, tree.length, server.length];', text)
    assert same, 'the inspector\'s tree is not the server\'s session'
    assert shown < 10 * compact, f'the tree is {shown} characters of JSON for a session of {compact}'
    # And a change to it shows in the time a person waits for one.
    started = time.monotonic()
    api.request('POST', f'/v1/sessions/{session["id"]}/set-state', token=session['token'],
                headers={'Prefer': 'return=minimal'}, body={'state': 'loaded'})
    wait_for(browser, lambda d: shown_revision(d) == 12, 60)
    assert time.monotonic() - started < 5, f'a change took {time.monotonic() - started:.1f} s to show'
    assert 'Sheet 9-99' in css(browser, '.is-top .nav-title').text
