"""A stream that goes silent without closing (a half-open connection: a laptop asleep, a NAT
that forgot the flow) must not leave the page showing "Live" on an old tree for ever."""

from harness import Proxy
from pages import open_session, wait_until_shows
from test_live import INBOX


class SilencingProxy(Proxy):
    """`silence()` makes the open event streams deliver nothing more while their connections
    stay open (what a NAT or a proxy that dropped an idle long-lived flow does); other
    connections, and new ones, work."""

    def __init__(self, target_port):
        super().__init__(target_port)
        self.streams = set()
        self.silent = set()

    def silence(self):
        with self._lock:
            self.silent.update(self.streams)

    def _passes(self, source, destination, data, from_client):
        if from_client and data.startswith(b'GET ') and b'/events?' in data.split(b'\r\n', 1)[0]:
            with self._lock:
                self.streams.add(destination)
        with self._lock:
            return source not in self.silent


def test_a_silent_stream_is_noticed_and_the_page_catches_up(browser, server, api):
    session = api.create(INBOX)
    proxy = SilencingProxy(server.port)
    try:
        open_session(browser, proxy.url, session)
        proxy.silence()
        api.op(session, 'push', {'screen': 'detail', 'title': 'Missed'})
        # Three of the server's 15 s keep-alives go missing meanwhile.
        wait_until_shows(browser, api, session, revision=2, timeout=45)
    finally:
        proxy.close()
