"""The test run's own hygiene: what it leaves on the machine it runs on."""

import os
import tempfile

from conftest import make_driver


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
