"""What the page does when it cannot hear the server: a session deleted while its stream
was down, a stream that does not open."""

import json
import os
import shutil
import signal
import socket
import tempfile
import threading
import time

from selenium.common.exceptions import TimeoutException

from conftest import _binary
from harness import API, Proxy, Server
from pages import css, open_session, wait_for, wait_for_live, wait_until_shows
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
        assert css(browser, 'body').get_attribute('data-connection') == 'gone'
        assert 'gone' in css(browser, '#notice').text
    finally:
        proxy.close()


def stopped(task):
    """Whether the thread at /proc/PID/task/TID is stopped (state T), or gone."""
    try:
        with open(os.path.join(task, 'stat')) as stat:
            return stat.read().rsplit(')', 1)[1].split()[0] in ('T', 't')
    except OSError:
        return True


class NextStreamTrap:
    """What FreezingProxy and RefusingProxy share: once armed, the page's next event stream
    (the one that follows the session) is theirs to act on, once."""

    def _arm(self):
        with self._lock:
            self.armed = True

    def _takes(self, data, from_client):
        """Whether this is the page's next session stream and the trap was armed (disarming it)."""
        line = data.split(b'\r\n', 1)[0]
        if not (from_client and data.startswith(b'GET ') and b'/events?' in line and b'include=session' in line):
            return False
        with self._lock:
            taken, self.armed = self.armed, False
        return taken


class FreezingProxy(NextStreamTrap, SilencingProxy):
    """A SilencingProxy that, once `freeze_at_next_stream()` is called, stops the server
    (SIGSTOP) as the page next opens an event stream: a server that stops answering as the
    stream is reopened. That stream's request never reaches it (as over a connection gone
    half-open), so once `thaw()` continues the server only a new stream can go live."""

    def __init__(self, server):
        super().__init__(server.port)
        self.pid = server.process.pid
        self.armed = False
        self.frozen = threading.Event()

    def freeze_at_next_stream(self):
        self._arm()

    def _passes(self, source, destination, data, from_client):
        if self._takes(data, from_client):
            os.kill(self.pid, signal.SIGSTOP)
            # kill() only sends it: wait until every thread has stopped, or one could
            # still answer the request passed on below.
            tasks = f'/proc/{self.pid}/task'
            while not all(stopped(os.path.join(tasks, task)) for task in os.listdir(tasks)):
                time.sleep(0.001)
            self.frozen.set()
            with self._lock:
                self.silent.add(source)
        return super()._passes(source, destination, data, from_client)

    def thaw(self):
        if self.frozen.is_set():
            os.kill(self.pid, signal.SIGCONT)


def connection(driver):
    return css(driver, 'body').get_attribute('data-connection')


def test_a_stream_that_does_not_open_shows_offline_and_is_retried(browser, server_with):
    server = server_with()
    api = API(server.url)
    session = api.create(INBOX)
    proxy = FreezingProxy(server)
    try:
        # The stream is checked after 1 s of silence instead of 25; a request may take 2 s.
        open_session(browser, proxy.url, session, query='request-timeout=2&stream-idle=1')
        # The stream misses a change: its check notices, and the page reopens it, when the
        # server stops.
        proxy.silence()
        proxy.freeze_at_next_stream()
        api.op(session, 'push', {'screen': 'detail', 'title': 'Missed'})
        assert proxy.frozen.wait(15), 'the page never reopened its stream'
        try:
            wait_for(browser, lambda d: connection(d) in ('offline', 'reconnecting'), 10)
        except TimeoutException:
            raise AssertionError(f'the page says "{css(browser, "#connection").text}" of a stream that does not open') from None
        assert css(browser, '#connection').text.startswith('Offline')
        assert css(browser, '.status-offline').is_displayed()
        # Once the server answers again, a new stream opens: the page gave up the stalled one.
        proxy.thaw()
        wait_for_live(browser, timeout=20)
        api.op(session, 'push', {'screen': 'detail', 'title': 'After'})
        wait_until_shows(browser, api, session, revision=3)
    finally:
        proxy.thaw()
        proxy.close()


class RestoredBackup:
    """A durable server whose data directory was copied at revision 2 (the backup), then
    started again: `restore()` stops it, puts the backup back and starts it once more, as an
    operator restoring a backup does. Made before the test's `try`, closed in its `finally`."""

    def __init__(self):
        self.data = tempfile.mkdtemp(prefix='presentation-backup-')
        self.backup = self.data + '-at-2'
        self.server = self._start()
        try:
            self.session = self.api.create(INBOX)
            self.api.op(self.session, 'push', {'screen': 'detail', 'title': 'Kept', 'params': {}})
            self.server.stop()
            shutil.copytree(self.data, self.backup)
            self.server = self._start()
        except BaseException:
            self.close()
            raise

    def _start(self):
        return Server(_binary(), ('--storage', 'sqlite', '--data-dir', self.data))

    @property
    def api(self):
        return API(self.server.url)

    def restore(self):
        self.server.stop()
        shutil.rmtree(self.data)
        shutil.copytree(self.backup, self.data)
        self.server = self._start()

    def close(self):
        self.server.stop()
        shutil.rmtree(self.data, ignore_errors=True)
        shutil.rmtree(self.backup, ignore_errors=True)


def test_a_server_restored_from_a_backup_is_followed_back_to_its_older_tree(browser):
    # A durable server, its data directory copied at revision 2 (the backup), then changed to
    # revision 4 while the page follows it; the backup is restored and the server restarted.
    # The page saw revisions the server no longer has: it must draw the tree the server has,
    # not keep the newer one it drew, and follow it from there.
    drill = RestoredBackup()
    session = drill.session
    proxy = None
    try:
        proxy = Proxy(drill.server.port)
        open_session(browser, proxy.url, session)
        wait_for_live(browser)
        drill.api.op(session, 'push', {'screen': 'detail', 'title': 'Lost', 'params': {}})
        drill.api.op(session, 'push', {'screen': 'detail', 'title': 'Lost too', 'params': {}})
        wait_until_shows(browser, drill.api, session, revision=4)

        drill.restore()
        proxy.target_port = drill.server.port
        proxy.cut()
        proxy.resume()
        tree = wait_until_shows(browser, drill.api, session, revision=2)
        assert [screen['title'] for screen in tree['root']['path']] == ['Inbox', 'Kept']
        # And it follows the restored session's changes, though their revisions are ones it drew before.
        drill.api.op(session, 'push', {'screen': 'detail', 'title': 'After the restore', 'params': {}})
        wait_until_shows(browser, drill.api, session, revision=3)
        assert 'After the restore' in css(browser, '.is-top .nav-title').text
    finally:
        if proxy:
            proxy.close()
        drill.close()


class RefusingProxy(NextStreamTrap, Proxy):
    """A Proxy that, once `refuse_next_stream()` is called, answers the page's next event
    stream 502 itself (a proxy in front of a server that is restarting): EventSource takes
    that as final, and the page reopens the stream after its resync."""

    def __init__(self, target_port):
        super().__init__(target_port)
        self.armed = False
        self.refused = threading.Event()

    def refuse_next_stream(self):
        self._arm()

    def _passes(self, source, destination, data, from_client):
        if self._takes(data, from_client):
            source.sendall(b'HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
            source.shutdown(socket.SHUT_RDWR)
            self.refused.set()
            return False
        return True


def test_a_server_restored_from_a_backup_while_the_stream_was_refused_is_followed(browser):
    # As above, but the stream's reconnection is refused (502) while the server restarts, so
    # the page resynchronises by reading: its read of the events after revision 4 is 400
    # `revision_ahead` (the server is at 2). That was taken for a passing failure and retried
    # for ever: the page stayed Offline on the tree the server no longer has.
    drill = RestoredBackup()
    session = drill.session
    proxy = None
    try:
        proxy = RefusingProxy(drill.server.port)
        open_session(browser, proxy.url, session)
        drill.api.op(session, 'push', {'screen': 'detail', 'title': 'Lost', 'params': {}})
        drill.api.op(session, 'push', {'screen': 'detail', 'title': 'Lost too', 'params': {}})
        wait_until_shows(browser, drill.api, session, revision=4)

        # Armed first: the stream's reconnections reach no server until the restart.
        proxy.refuse_next_stream()
        drill.restore()
        proxy.target_port = drill.server.port
        proxy.cut()
        proxy.resume()
        assert proxy.refused.wait(15), 'the page never reopened its stream'
        tree = wait_until_shows(browser, drill.api, session, revision=2, timeout=15)
        assert [screen['title'] for screen in tree['root']['path']] == ['Inbox', 'Kept']
        wait_for_live(browser, timeout=15)
        drill.api.op(session, 'push', {'screen': 'detail', 'title': 'After the restore', 'params': {}})
        wait_until_shows(browser, drill.api, session, revision=3)
        assert 'After the restore' in css(browser, '.is-top .nav-title').text
    finally:
        if proxy:
            proxy.close()
        drill.close()


class MidRevisionCuttingProxy(RefusingProxy):
    """A RefusingProxy that, once `cut_inside_next_revision()` is called, passes the page's
    stream only up to the end of the first message of the next revision of several events
    (one with no `id:`), then closes that connection and refuses (502) the browser's own
    reconnection: a drop inside a revision, then a proxy in front of a restarting server."""

    MARKER = b'data: {"revision":'

    def __init__(self, target_port):
        super().__init__(target_port)
        self.cutting = False
        self.cut_done = threading.Event()

    def cut_inside_next_revision(self):
        with self._lock:
            self.cutting = True

    def _passes(self, source, destination, data, from_client):
        if not from_client and self.MARKER in data:
            with self._lock:
                cutting, self.cutting = self.cutting, False
            if cutting:
                start = data.index(self.MARKER)
                end = data.index(b'\n\n', start) + 2
                assert b'\nid:' not in b'\n' + data[start:end], 'the first message of the revision carried its id'
                destination.sendall(data[:end])
                self.refuse_next_stream()
                for end_ in (source, destination):
                    try:
                        end_.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                self.cut_done.set()
                return False
        return super()._passes(source, destination, data, from_client)


def test_a_stream_cut_inside_a_revision_then_refused_logs_all_of_that_revision(browser, server, api):
    # The SSE `id:` comes only on a revision's last message (docs/api.md), so a stream cut
    # after the first of a revision's events has not finished it. The page took the revision
    # of every message as done: when the browser's own reconnection (which sends the right
    # Last-Event-ID) was refused, the page reopened the stream after that revision, and the
    # rest of its events never reached the event log.
    session = api.create(INBOX)
    proxy = MidRevisionCuttingProxy(server.port)
    try:
        open_session(browser, proxy.url, session)
        proxy.cut_inside_next_revision()
        api.op(session, 'batch', {'operations': [
            {'op': 'push', 'screen': 'detail', 'title': 'One'},
            {'op': 'push', 'screen': 'detail', 'title': 'Two'},
            {'op': 'pop'},
        ]})
        assert proxy.cut_done.wait(10), 'the stream never carried the batch'
        assert proxy.refused.wait(15), 'the browser never reconnected'
        wait_for_live(browser, timeout=15)
        wait_until_shows(browser, api, session, revision=2)
        logged = lambda d: [(item.get_attribute('data-revision'), item.get_attribute('data-type'))
                            for item in d.find_elements('css selector', '#event-log .event[data-revision="2"]')]
        try:
            wait_for(browser, lambda d: len(logged(d)) == 3, 5)
        except TimeoutException:
            raise AssertionError(f'revision 2 logged as {logged(browser)}, not its three events') from None
        assert sorted(logged(browser)) == [('2', 'popped'), ('2', 'pushed'), ('2', 'pushed')]
    finally:
        proxy.close()


NGINX_502 = (b'<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n'
             b'<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n')


class AnsweringProxy(Proxy):
    """A Proxy that answers the page's reads of the session itself (`GET /v1/sessions/{id}`)
    with `answer` (status line and body), as a proxy in front of the server does when its
    upstream is down (an HTML error page) or when it is misrouted (its own page, 200)."""

    def __init__(self, target_port, status, body, content_type='text/html'):
        super().__init__(target_port)
        self.answer = (f'HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n'
                       f'Connection: close\r\n\r\n').encode() + body

    def _passes(self, source, destination, data, from_client):
        line = data.split(b'\r\n', 1)[0]
        if from_client and line.startswith(b'GET /v1/sessions/') and b'/events' not in line:
            source.sendall(self.answer)
            source.shutdown(socket.SHUT_RDWR)
            return False
        return True


def test_an_answer_that_is_not_the_servers_json_is_told_in_words(browser, server, api):
    # A proxy's HTML error page went into the notice word for word, markup and all; a 200
    # whose body is not JSON surfaced as a JavaScript TypeError ("Cannot read properties of
    # null"). Neither tells a person what happened.
    session = api.create(INBOX)
    for status, body, expected in (('502 Bad Gateway', NGINX_502, '502 Bad Gateway'),
                                   ('200 OK', b'<!doctype html><title>Welcome to nginx!</title>', '200')):
        proxy = AnsweringProxy(server.port, status, body)
        try:
            browser.get(f'{proxy.url}/#session={session["id"]}&token={session["token"]}')
            text = wait_for(browser, lambda d: css(d, '#notice').is_displayed() and css(d, '#notice').text)
            text = text.replace(session['id'], 'ID')
            assert expected in text, text
            assert 'not JSON' in text or 'not the server' in text, text
            for leak in ('<', 'nginx', 'TypeError', 'Cannot read', 'null', 'undefined', 'JSON.parse'):
                assert leak not in text, (leak, text)
            assert len(text) < 300, text
        finally:
            proxy.close()


def test_a_server_stopping_says_once_when_to_retry(browser, server, api):
    # What the server answers a request that reaches it while it stops (docs/api.md, 503
    # `shutting_down`, with Retry-After), here given by a proxy for the page's read: its detail
    # ends "retry" and the page added its own "; retry in 1 s" after it, which read as
    # "the server is stopping; retry; retry in 1 s".
    session = api.create(INBOX)
    problem = json.dumps({'type': 'urn:presentation-server:problem:shutting_down', 'title': 'Service Unavailable',
                          'status': 503, 'detail': 'the server is stopping; retry', 'code': 'shutting_down'}).encode()
    proxy = AnsweringProxy(server.port, '503 Service Unavailable', problem, 'application/problem+json\r\nRetry-After: 1')
    try:
        browser.get(f'{proxy.url}/#session={session["id"]}&token={session["token"]}')
        text = wait_for(browser, lambda d: css(d, '#notice').is_displayed() and css(d, '#notice').text)
        assert 'shutting_down' in text and 'retry in 1 s' in text, text
        assert text.lower().count('retry') == 1, text
    finally:
        proxy.close()
