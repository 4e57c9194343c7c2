"""axe-core, the accessibility engine, run in the page: the script comes from the pinned
`axe-core-python` package (its bundled axe.min.js; none of its Python is used) and is
injected with WebDriver, whose evaluation is not subject to the page's Content-Security-Policy
(the `browser` fixture still fails a test on any violation the page reports)."""

import functools
import importlib.resources

# What fails a test: axe's two top impacts. `moderate` and `minor` are reported, not failed.
FAILING = ('serious', 'critical')


@functools.cache
def source():
    return importlib.resources.files('axe_core_python').joinpath('axe.min.js').read_text(encoding='utf-8')


def run(driver, context='document'):
    """axe's results for the page as it is now: WCAG 2.0/2.1 A and AA rules and axe's best
    practices. `context` is a script expression for what to check."""
    if not driver.execute_script('return typeof window.axe === "object"'):
        driver.execute_script(source())
    driver.set_script_timeout(30)
    results = driver.execute_async_script(f'''
        const done = arguments[arguments.length - 1];
        axe.run({context}, {{resultTypes: ['violations']}})
          .then((results) => done({{violations: results.violations}}), (error) => done({{error: String(error)}}));''')
    assert 'error' not in results, results.get('error')
    return results['violations']


def describe(violations):
    """One line per rule and node, for an assertion message or a report."""
    lines = []
    for violation in violations:
        for node in violation['nodes']:
            summary = (node.get('failureSummary') or '').replace('\n', ' ')
            lines.append(f'{violation["impact"]} {violation["id"]}: {" ".join(node["target"])} {node["html"][:140]} — {summary}')
    return '\n'.join(lines)


def failing(violations):
    return [violation for violation in violations if violation['impact'] in FAILING]
