"""The page as served: its own policy satisfied, nothing fetched from elsewhere, and a
session reopened from the URL."""

from harness import Proxy
from pages import css, open_session, server_state, visible_state, wait_for, wait_for_live, wait_until_shows
from test_live import INBOX


def test_the_page_loads_under_its_own_policy_from_its_own_origin(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    origins = browser.execute_script('return [...new Set(performance.getEntriesByType("resource").map((e) => new URL(e.name).origin))]')
    assert origins == [server.url]
    modules = browser.execute_script('return performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname)')
    assert '/js/app.js' in modules and '/css/base.css' in modules
    # The fixture checks after each test that no policy violation or uncaught error occurred.


def test_a_reload_reopens_the_same_session(browser, server, api):
    session = api.create(INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'present', {'style': 'sheet', 'screen': 'detail', 'title': 'Still here'})
    tree = wait_until_shows(browser, api, session)
    browser.refresh()
    wait_until_shows(browser, api, session)
    assert visible_state(browser) == server_state(tree)
    assert css(browser, '#session-label').text == session['id']


def test_opening_a_session_by_id_and_token(browser, server, api):
    session = api.create(INBOX)
    browser.get(server.url + '/')
    css(browser, '.open-session summary').click()
    css(browser, '#open-id').send_keys(session['id'])
    css(browser, '#open-token').send_keys(session['token'])
    css(browser, '#open-form button[type="submit"]').click()
    wait_until_shows(browser, api, session)
    assert f'session={session["id"]}' in browser.current_url


def test_a_wrong_token_is_reported(browser, server, api):
    session = api.create(INBOX)
    browser.get(f'{server.url}/#session={session["id"]}&token=wrong')
    notice = css(browser, '#notice')
    from pages import wait_for
    wait_for(browser, lambda d: notice.is_displayed() and '401' in notice.text)


def test_opening_again_the_session_that_could_not_be_opened_tries_again(browser, server, api):
    session = api.create(INBOX)
    proxy = Proxy(server.port)
    try:
        browser.get(proxy.url + '/')
        wait_for(browser, lambda d: 'No session open' in css(d, '#device-layers').text)
        # The network goes as the session is opened: the page says it could not open it.
        proxy.cut()
        browser.execute_script('location.hash = arguments[0]', f'#session={session["id"]}&token={session["token"]}')
        wait_for(browser, lambda d: 'could not be opened' in css(d, '#device-layers').text)
        assert 'Cannot open session' in css(browser, '#notice').text
        # Back online, the person opens it again with the form: the same id and token, so the
        # URL does not change, and the page must still try (it offers no other way but a reload).
        proxy.resume()
        css(browser, '.open-session summary').click()
        css(browser, '#open-id').send_keys(session['id'])
        css(browser, '#open-token').send_keys(session['token'])
        css(browser, '#open-form button[type="submit"]').click()
        wait_for_live(browser, timeout=10)
        wait_until_shows(browser, api, session)
        assert not css(browser, '#notice').is_displayed()
    finally:
        proxy.close()


def test_an_svg_opened_by_itself_runs_no_script(browser, server_with, tmp_path):
    # An SVG is a document that may hold script; opened at the server's origin it would run
    # with the page's rights (its storage holds session tokens). It is served under a policy
    # of its own: it draws, and runs nothing.
    (tmp_path / 'drawing.svg').write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/>'
        '<script>document.documentElement.setAttribute("data-ran", "yes")</script></svg>')
    own = server_with('--public-dir', str(tmp_path))
    browser.get(own.url + '/drawing.svg')
    assert browser.execute_script('return document.documentElement.localName') == 'svg'
    assert browser.execute_script('return document.documentElement.getAttribute("data-ran")') is None
    # The script refused is a policy violation this test asked for, not one of the page's.
    browser.get('about:blank')
    browser.get_log('browser')
