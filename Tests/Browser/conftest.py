"""Fixtures for the browser tests: one real server for the run, headless Chromium per
test, and the folder screenshots go to."""

import os
import shutil
import tempfile

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from harness import API, REPO, Server

SCREENSHOTS = os.path.join(REPO, 'test-artifacts', 'screenshots')

# Chromium leaves a folder (org.chromium.Chromium.*, its SingletonSocket) in its temporary
# directory at every start, quit or not: about a hundred in /tmp per day of runs. Its
# temporary directory is one of the run's own instead, removed when the run ends.
BROWSER_TMP = tempfile.mkdtemp(prefix='browser-tests-')


def _binary():
    binary = os.environ.get('PRESENTATION_SERVER', os.path.join(REPO, '.build', 'debug', 'presentation-server'))
    if not os.path.isabs(binary):
        binary = os.path.join(REPO, binary)
    if not os.access(binary, os.X_OK):
        pytest.exit(f'no server binary at {binary}: build it first (make test does), or set PRESENTATION_SERVER', returncode=2)
    return binary


@pytest.fixture(scope='session')
def server():
    """Durable, as `make run` is, but in a data directory of the run's own, removed when it
    ends: the default, ./data, is the checkout's, where the sessions of every earlier run were
    loaded again, where they were mixed into a developer's own, and whose lock a `make run`
    beside the tests held, so that every test failed at start."""
    data = tempfile.mkdtemp(prefix='browser-tests-data-')
    try:
        process = Server(_binary(), ('--storage', 'sqlite', '--data-dir', data))
        yield process
        process.stop()
    finally:
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def server_with(request):
    """A server of the test's own, started with extra options; stopped after the test. It keeps
    its sessions in memory (a test that needs a durable one makes its own data directory, as
    test_outages does)."""
    started = []

    def start(*options):
        started.append(Server(_binary(), ('--storage', 'memory', *options)))
        return started[-1]

    yield start
    for process in started:
        process.stop()


@pytest.fixture(scope='session')
def api(server):
    return API(server.url)


@pytest.fixture(scope='session')
def screenshots():
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    os.makedirs(SCREENSHOTS)
    return SCREENSHOTS


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(BROWSER_TMP, ignore_errors=True)


def pytest_terminal_summary(terminalreporter):
    """Says where the screenshots are, whatever the verbosity (print output is captured)."""
    if os.path.isdir(SCREENSHOTS) and os.listdir(SCREENSHOTS):
        terminalreporter.write_line(f'screenshots of each presentation style: {SCREENSHOTS}')
    report = os.path.join(os.path.dirname(SCREENSHOTS), 'accessibility.txt')
    if os.path.exists(report):
        terminalreporter.write_line(f'axe\'s moderate and minor findings (not failures): {report}')


def make_driver(reduced_motion=True):
    """Headless Chromium from Debian's packages, driven by Debian's chromedriver."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which('chromium') or '/usr/bin/chromium'
    for argument in ('--headless=new', '--no-sandbox', '--disable-dev-shm-usage', '--window-size=1440,1000',
                     '--disable-gpu', '--no-first-run', '--disable-extensions', '--disable-background-networking',
                     '--force-device-scale-factor=1'):
        options.add_argument(argument)
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    service = Service(executable_path=shutil.which('chromedriver') or '/usr/bin/chromedriver',
                      env={**os.environ, 'TMPDIR': BROWSER_TMP})
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_window_size(1440, 1200)
    if reduced_motion:
        driver.execute_cdp_cmd('Emulation.setEmulatedMedia', {'features': [{'name': 'prefers-reduced-motion', 'value': 'reduce'}]})
    # Counts Content-Security-Policy violations on every page this browser loads.
    driver.execute_cdp_cmd('Page.addScriptToEvaluateOnNewDocument', {'source': (
        'window.__cspViolations = [];'
        'document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI));'
        'window.__errors = [];'
        'addEventListener("error", (e) => window.__errors.push(String(e.message)));'
        'addEventListener("unhandledrejection", (e) => window.__errors.push(String(e.reason)));'
    )})
    return driver


def assert_clean(driver):
    """No policy violation and no uncaught error in the page: it works within its own CSP."""
    violations = driver.execute_script('return window.__cspViolations || []')
    errors = driver.execute_script('return window.__errors || []')
    console = [entry['message'] for entry in driver.get_log('browser')
               if 'Content Security Policy' in entry['message'] or 'Uncaught' in entry['message']]
    assert violations == [], violations
    assert errors == [], errors
    assert console == [], console


@pytest.fixture(scope='session')
def shared_browser():
    driver = make_driver(reduced_motion=True)
    yield driver
    driver.quit()


@pytest.fixture
def browser(shared_browser):
    """One Chromium for the run (starting one takes seconds), on a blank page per test."""
    shared_browser.get('about:blank')
    shared_browser.get_log('browser')
    yield shared_browser
    try:
        assert_clean(shared_browser)
    finally:
        shared_browser.get('about:blank')


@pytest.fixture
def moving_browser():
    """A browser that keeps animations on, to test the page as most people see it."""
    driver = make_driver(reduced_motion=False)
    yield driver
    try:
        assert_clean(driver)
    finally:
        driver.quit()
