"""What the page does when it cannot hear the server: a session deleted while its stream
was down, a stream that does not open."""

from pages import css, open_session, wait_for
from test_live import INBOX
from test_stalls import SilencingProxy


def test_a_write_refused_404_while_the_stream_is_down_shows_the_session_gone(browser, server, api):
    session = api.create(INBOX)
    proxy = SilencingProxy(server.port)
    try:
        open_session(browser, proxy.url, session)
        # The stream hears nothing more (its silence is noticed only after 25 s), and the
        # session is deleted meanwhile: no `event: deleted` reaches the page.
        proxy.silence()
        api.request('DELETE', f'/v1/sessions/{session["id"]}', token=session['token'])
        css(browser, '[data-message="a"]').click()
        notice = wait_for(browser, lambda d: css(d, '#notice').is_displayed() and css(d, '#notice').text)
        assert '404' in notice and 'session_not_found' in notice, notice
        # The page knows now: the session is gone, as `event: deleted` would have said.
        wait_for(browser, lambda d: 'does not exist' in css(d, '#device-layers').text,
                 message='the deleted session\'s tree is still shown, its buttons working')
        assert not browser.find_elements('css selector', '#device-layers button')
        assert css(browser, 'body').get_attribute('data-connection') == 'offline'
        assert 'gone' in css(browser, '#notice').text
    finally:
        proxy.close()
