"""Text a client wrote (a state's name, a result's values, a screen's kind, a message's
sender, the session id in the URL, a `from` the server's refusal quotes) that the page sets
inside one of its own sentences reorders only itself: a right-to-left override in it (U+202E)
does not turn the page's words after it around. Each such piece sits in an element that
isolates it, and the page's next word is drawn to its right."""

import urllib.parse

from selenium.webdriver.support.select import Select

from pages import css, open_session, wait_for, wait_until_shows
from test_accessibility import accessible_names
from test_live import INBOX

RLO = '\u202e'


def piece(driver, root, needle):
    """Where the first `needle` in the text under `root` (a selector) is drawn: its left and
    right edges, and whether an element between it and `root` isolates it (`unicode-bidi:
    isolate`, as a `bdi` has). The needle may span text nodes."""
    return driver.execute_script('''
        const root = document.querySelector(arguments[0]);
        const nodes = [];
        let text = '';
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        while (walker.nextNode()) { nodes.push([walker.currentNode, text.length]); text += walker.currentNode.data; }
        const start = text.indexOf(arguments[1]);
        if (start < 0) return null;
        const end = start + arguments[1].length;
        const inside = nodes.filter(([node, from]) => from < end && from + node.data.length > start);
        const range = document.createRange();
        const [first, firstFrom] = inside[0];
        const [last, lastFrom] = inside[inside.length - 1];
        range.setStart(first, start - firstFrom);
        range.setEnd(last, end - lastFrom);
        const box = range.getBoundingClientRect();
        const isolates = (node) => {
          for (let element = node.parentElement; element && element !== root; element = element.parentElement) {
            if (['isolate', 'isolate-override', 'plaintext'].includes(getComputedStyle(element).unicodeBidi)) return true;
          }
          return false;
        };
        return { left: box.left, right: box.right, isolated: inside.every(([node]) => isolates(node)) };''', root, needle)


def assert_reads_on(driver, root, client, following):
    """`client` (text holding an override) is isolated within `root`, and the page's `following`
    word, which comes after it, is drawn to its right, as in any left-to-right sentence."""
    shown = wait_for(driver, lambda d: piece(d, root, client), message=f'{client!r} is not shown in {root}')
    after = piece(driver, root, following)
    assert after is not None, f'{following!r} is not shown in {root}'
    assert shown['isolated'], f'{client!r} is not isolated from the sentence in {root}'
    assert after['left'] >= shown['right'] - 0.5, f'{following!r} is drawn left of {client!r} in {root}: {after} {shown}'


def test_a_state_name_in_the_event_log_leaves_the_transition_after_it(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    screen = api.session(session)['root']['path'][0]['id']
    api.op(session, 'set-state', {'state': f'{RLO}loaded', 'transition': 'crossfade'})
    line = '#event-log .event[data-type="state-set"] .event-text'
    wait_for(browser, lambda d: d.find_elements('css selector', line), message='no state-set in the log')
    # The sentence reads the same: only how it is drawn changes.
    assert css(browser, line).get_attribute('textContent') == f'{screen} shows {RLO}loaded (crossfade)'
    assert_reads_on(browser, line, f'{RLO}loaded', '(crossfade)')


def test_a_session_id_from_the_url_leaves_the_notice_after_it(browser, server):
    browser.get(f'{server.url}/#session={urllib.parse.quote(RLO + "abc")}&token=t')
    wait_for(browser, lambda d: 'Cannot open session' in css(d, '#notice').get_attribute('textContent'))
    text = css(browser, '#notice-text').get_attribute('textContent')
    assert text.startswith(f'Cannot open session {RLO}abc: 404 ')
    assert_reads_on(browser, '#notice-text', f'{RLO}abc', '404')


def test_a_refusal_quoting_the_client_leaves_the_page_words_after_it(browser, server, api):
    # The server's detail quotes the `from` it was sent ("the top is s2, not …"); the page's
    # own advice follows it in the notice. The server writes the override it quotes as a code
    # point (docs/api.md, "Errors"), so none reaches the page; the advice still reads after it.
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    Select(css(browser, '#operation')).select_by_value('pop-to-root')
    area = css(browser, '#operation-body')
    area.clear()
    area.send_keys('{"from": "' + RLO + 'gone"}')
    css(browser, '#operation-form button[type="submit"]').click()
    wait_for(browser, lambda d: 'Another change came first' in css(d, '#notice-text').get_attribute('textContent'))
    assert RLO not in css(browser, '#notice-text').get_attribute('textContent')
    assert_reads_on(browser, '#notice-text', '<U+202E>gone', 'Another')


def test_a_result_banner_leaves_its_words_after_a_recipient(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'present', {'style': 'sheet', 'screen': 'compose', 'title': 'New Message'})
    api.op(session, 'dismiss', {'result': {'sent': True, 'to': f'{RLO}ada@example.com', 'subject': 'Notes'}})
    wait_until_shows(browser, api, session, revision=3)
    banner = '#device-layers > .is-top .result-banner'
    assert css(browser, banner).get_attribute('textContent') == f'Sent to {RLO}ada@example.com: “Notes”'
    assert_reads_on(browser, banner, f'{RLO}ada@example.com', 'Notes')


def test_a_screen_kind_leaves_its_closing_quote_after_it(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'push', {'screen': f'{RLO}gauge', 'title': 'Gauge'})
    wait_until_shows(browser, api, session, revision=2)
    label = '#device-layers > .is-top .screen:not(.is-leaving) .kind-label'
    assert_reads_on(browser, label, f'{RLO}gauge', '”')


def test_a_sender_in_the_original_message_leaves_its_address_after_it(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    message = {'from': f'{RLO}Ada Lovelace', 'address': 'ada@example.com', 'date': '09:12', 'subject': 'Notes', 'body': 'Note G.'}
    api.op(session, 'push', {'screen': 'message', 'title': 'Notes', 'params': message})
    api.op(session, 'set-state', {'state': 'original', 'transition': 'none'})
    wait_until_shows(browser, api, session, revision=3)
    source = '#device-layers > .is-top .message-source'
    assert css(browser, source).get_attribute('textContent').startswith(f'From: {RLO}Ada Lovelace <ada@example.com>\n')
    assert_reads_on(browser, source, f'{RLO}Ada Lovelace', 'ada@example.com')


def test_a_title_ends_the_back_buttons_name_so_it_cannot_reorder_the_page_words(browser, server, api):
    """The back button's name is an attribute, "Back to <title>", where the title cannot be
    isolated. It need not be: the title is the end of the name, and an override in it acts
    only on what follows it. What a screen reader is given is the page's words, then the
    title as it was written. (An element in its place would not isolate it either: Chromium
    computes a name from a <bdi> with no isolation marks.)"""
    session = api.create({'screen': 'inbox', 'title': f'{RLO}Inbox', 'params': {}})
    open_session(browser, server.url, session)
    api.op(session, 'push', {'screen': 'detail', 'title': 'Detail'})
    wait_until_shows(browser, api, session, revision=2)
    back = '#device-layers > .is-top .screen:not(.is-leaving) .back-button'
    assert css(browser, back).get_attribute('aria-label') == f'Back to {RLO}Inbox'
    assert accessible_names(browser, back) == [f'Back to {RLO}Inbox']
    browser.execute_script('''
        const button = document.createElement('button');
        button.id = 'probe';
        const words = document.createElement('span');
        words.className = 'visually-hidden';
        words.textContent = 'Back to ';
        const title = document.createElement('bdi');
        title.textContent = arguments[0];
        button.append(words, title);
        document.body.append(button);''', f'{RLO}Inbox')
    assert accessible_names(browser, '#probe') == [f'Back to {RLO}Inbox']
