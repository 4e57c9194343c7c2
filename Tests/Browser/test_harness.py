"""The test run's own hygiene: what it leaves on the machine it runs on, and what it takes from it."""

import json
import os
import tempfile
import time

from conftest import make_driver
from harness import API, REPO


def test_a_browser_started_and_quit_leaves_nothing_in_the_system_temporary_directory():
    """Chromium leaves a folder in its temporary directory at every start; the run gives it a
    directory of its own, removed at the end, so /tmp does not fill with them."""
    system = tempfile.gettempdir()

    def leftovers():
        return {name for name in os.listdir(system) if name.startswith('org.chromium.Chromium.')}
    before = leftovers()
    driver = make_driver()
    driver.quit()
    assert leftovers() - before == set()


def test_the_shared_server_keeps_its_sessions_outside_the_checkout(server):
    """Not in ./data, the checkout's, which `make run` uses: the run's sessions would be loaded
    by every later run and by a developer's server, and a `make run` beside the tests would
    hold its lock."""
    storage = next(json.loads(line) for line in server.log_text().splitlines() if '"event":"storage"' in line)
    database = os.path.realpath(storage['path'])
    assert not database.startswith(os.path.realpath(REPO) + os.sep), database



def test_a_servers_settings_come_from_the_tests_not_from_the_environment(server_with, monkeypatch):
    """A variable of the server's own in the developer's environment (here ACCESS_LOG=off, as
    one may set it for `make run`) does not reach the servers the tests start."""
    monkeypatch.setenv('ACCESS_LOG', 'off')
    started = server_with()
    API(started.url).request('GET', '/healthz')
    deadline = time.monotonic() + 5
    while '"event":"request"' not in started.log_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert '"event":"request"' in started.log_text(), started.log_text()
