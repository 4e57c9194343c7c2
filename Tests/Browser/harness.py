"""The real server as a child process, a small HTTP client for its API, and a TCP proxy
that can cut and refuse connections (to drop a page's event stream on purpose)."""

import functools
import json
import os
import re
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
PUBLIC = os.path.join(REPO, 'Public')


@functools.lru_cache
def server_variables(binary):
    """The variables the server reads a setting from: each one `--help` names in brackets,
    and ADMIN_TOKEN, named after them."""
    # Read whole, not a line at a time: the help is short, and a reader that stops early cuts
    # the server's next write short (SIGPIPE).
    text = subprocess.run([binary, '--help'], capture_output=True, text=True, timeout=30, check=True).stdout
    return frozenset(re.findall(r'\[([A-Z][A-Z0-9_]*)\]', text)) | {'ADMIN_TOKEN'}


def server_environment(binary):
    """This process's environment less the server's own variables. Inherited, one a developer
    set for `make run` (ACCESS_LOG=off, MAX_SESSIONS, CORS_ORIGINS, ...) changed the server the
    tests expect: the flags below win, but they set only a few of its settings."""
    names = server_variables(binary)
    return {name: value for name, value in os.environ.items() if name not in names}


class Server:
    """`presentation-server --port 0 --public-dir Public`, its port read from the log."""

    def __init__(self, binary, options=()):
        self.binary = binary
        self.lines = []
        self._lock = threading.Lock()
        self.process = subprocess.Popen(
            [binary, '--host', '127.0.0.1', '--port', '0', '--public-dir', PUBLIC, '--threads', '2', *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=server_environment(binary),
        )
        self.port = None
        self._ended = False
        self._started = threading.Event()
        threading.Thread(target=self._drain, daemon=True).start()
        # Waited for on the reading thread's word, not by reading here: a readline waits for
        # as long as the server writes nothing, past any deadline (a server stuck silent at
        # start would hold the run until CI's own limit); and a server that never listens is
        # stopped, not left running behind the run.
        if not self._started.wait(15) or self.port is None:
            ended = self._ended  # before the stop below ends it
            self.stop()
            if ended:
                raise RuntimeError(f'the server exited before listening: {self.log_text()}')
            raise RuntimeError(f'the server did not log "listening" within 15 s: {self.log_text()}')
        self.url = f'http://127.0.0.1:{self.port}'

    def _keep(self, line):
        with self._lock:
            self.lines.append(line.rstrip('\n'))

    def _drain(self):
        for line in self.process.stdout:
            self._keep(line)
            if self.port is None:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get('event') == 'listening':
                    self.port = record['port']
                    self._started.set()
        self._ended = True
        self._started.set()

    def log_text(self):
        with self._lock:
            return '\n'.join(self.lines)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Problem(Exception):
    def __init__(self, status, body):
        super().__init__(f'{status}: {body}')
        self.status = status
        self.body = body


class API:
    """The server's JSON API, as curl would use it (urllib, no browser)."""

    def __init__(self, base_url):
        self.base_url = base_url

    def request(self, method, path, token=None, body=None, headers=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        if body is not None:
            request.add_header('Content-Type', 'application/json')
        if token:
            request.add_header('Authorization', f'Bearer {token}')
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read().decode()
                return json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read().decode()
            raise Problem(error.code, json.loads(text) if text else None) from None

    def create(self, root):
        return self.request('POST', '/v1/sessions', body={'root': root})

    def session(self, session):
        return self.request('GET', f'/v1/sessions/{session["id"]}', token=session['token'])

    def op(self, session, operation, body=None):
        return self.request('POST', f'/v1/sessions/{session["id"]}/{operation}', token=session['token'], body=body or {})

    def presentation(self, session, pid):
        return self.request('GET', f'/v1/sessions/{session["id"]}/presentations/{pid}', token=session['token'])

    def events(self, session, after=0):
        return self.request('GET', f'/v1/sessions/{session["id"]}/events?after={after}', token=session['token'])['events']


class Proxy:
    """A loopback TCP proxy in front of the server. `cut()` closes every connection and
    refuses new ones until `resume()`; `requests` keeps each request head it forwarded."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.listener = socket.create_server(('127.0.0.1', 0))
        self.port = self.listener.getsockname()[1]
        self.url = f'http://127.0.0.1:{self.port}'
        self.requests = []
        self._open = []
        self._lock = threading.Lock()
        self._accepting = True
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                accepting = self._accepting
            if not accepting:
                client.close()
                continue
            try:
                upstream = socket.create_connection(('127.0.0.1', self.target_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, source, destination, record):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if record and (data.startswith(b'GET ') or data.startswith(b'POST ')):
                    with self._lock:
                        self.requests.append(data.split(b'\r\n\r\n', 1)[0].decode('latin-1'))
                if self._passes(source, destination, data, record):
                    destination.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, destination):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _passes(self, source, destination, data, from_client):
        """Whether `data` read from `source` goes on to `destination`: a hook for proxies that
        misbehave in other ways; this one passes everything."""
        return True

    def cut(self):
        """Closes every open connection and refuses new ones: the network is gone."""
        with self._lock:
            self._accepting = False
            connections, self._open = self._open, []
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            connection.close()

    def resume(self):
        with self._lock:
            self._accepting = True

    def close(self):
        self._closed = True
        self.cut()
        self.listener.close()
