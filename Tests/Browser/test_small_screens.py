"""The page on a phone (Chromium's mobile emulation: a 360 or 390 CSS px wide viewport that
honours the page's meta viewport) and in a narrow desktop window: nothing scrolls sideways, the
device fits, and the top bar's controls and the inspector can be reached."""

import pytest

from pages import click_text, css, open_session, wait_for, wait_until_shows
from test_presentations import DEMO_INBOX

# width, height, and whether it is a phone (mobile emulation) or a desktop window.
SIZES = [(360, 740, True), (390, 844, True), (600, 900, False)]
# The narrowest phone still in use (an iPhone SE's first model, small Androids).
NARROWEST = (320, 640, True)


@pytest.fixture(params=SIZES, ids=lambda size: f'{size[0]}x{size[1]}{"-phone" if size[2] else "-window"}')
def small(browser, request):
    """The shared browser as a phone, or as a narrow window; put back as it was afterwards."""
    width, height, phone = request.param
    if phone:
        browser.execute_cdp_cmd('Emulation.setDeviceMetricsOverride',
                                {'width': width, 'height': height, 'deviceScaleFactor': 2, 'mobile': True})
        browser.execute_cdp_cmd('Emulation.setTouchEmulationEnabled', {'enabled': True, 'maxTouchPoints': 5})
    else:
        browser.set_window_size(width, height)
    try:
        yield browser, width
    finally:
        if phone:
            browser.execute_cdp_cmd('Emulation.setTouchEmulationEnabled', {'enabled': False})
            browser.execute_cdp_cmd('Emulation.clearDeviceMetricsOverride', {})
        else:
            browser.set_window_size(1440, 1200)


def beyond(driver, width, selectors):
    """The elements of `selectors` that are drawn, in part, left or right of the viewport."""
    return driver.execute_script('''
        return arguments[1].filter((s) => { const e = document.querySelector(s); if (!e) return false;
          const r = e.getBoundingClientRect(); return r.width > 0 && (r.left < -0.5 || r.right > arguments[0] + 0.5); });''',
                                 width, selectors)


def reachable(driver, selector):
    """True when, scrolled into view, a tap at the element's centre lands on it."""
    return driver.execute_script('''
        const element = document.querySelector(arguments[0]);
        element.scrollIntoView({block: 'center', inline: 'center'});
        const r = element.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return r.width > 0 && !!hit && element.contains(hit);''', selector)


def test_a_small_screen_does_not_scroll_sideways_and_keeps_everything_in_reach(small, server, api):
    # The device was 404 px wide whatever the viewport, and the top bar's buttons stayed on one
    # line: on a 360 px phone the page scrolled sideways by 121 px, the device's right edge
    # (Compose) and the Leave button were off screen, and the page had to be panned to use them.
    driver, width = small
    session = api.create(DEMO_INBOX)
    open_session(driver, server.url, session)
    wait_until_shows(driver, api, session)
    assert driver.execute_script('return innerWidth') == width
    assert driver.execute_script('return document.documentElement.scrollWidth') <= width, 'the page scrolls sideways'
    controls = ['#start-demo', '.open-session summary', '#leave', '#connection']
    assert beyond(driver, width, ['.topbar', '.device', '#inspector', '.panel-card', '#operation-body', *controls]) == []
    for selector in controls + ['.is-top .nav-trailing .bar-button', '.is-top .nav-leading .bar-button', '#operation-body']:
        assert reachable(driver, selector), f'{selector} cannot be tapped'
    # The device, once scrolled to, fits the screen's height too: a phone inside a phone.
    device = css(driver, '.device').rect
    assert device['height'] <= driver.execute_script('return innerHeight')
    # The form that opens a session opens within the screen, its fields in reach.
    css(driver, '.open-session summary').click()
    assert beyond(driver, width, ['#open-form', '#open-id', '#open-token']) == []
    assert reachable(driver, '#open-id') and reachable(driver, '#open-token')
    assert driver.execute_script('return document.documentElement.scrollWidth') <= width


@pytest.mark.parametrize('small', [NARROWEST, *SIZES[:2]], indirect=True, ids=['320x640-phone', '360x740-phone', '390x844-phone'])
def test_each_presentation_stays_within_a_phone_sized_device(small, server, api):
    # An alert is 270 px wide inside 40 px margins: in the device a 360 px phone has room for
    # (307 px), it ran 24 px past the device's right edge, and its right action was cut in two.
    from test_presentations import STYLES
    driver, _ = small
    session = api.create(DEMO_INBOX)
    open_session(driver, server.url, session)
    for style, body in STYLES.items():
        api.op(session, 'present', body)
        wait_until_shows(driver, api, session)
        outside = driver.execute_script('''
            const device = document.querySelector('.device-screen').getBoundingClientRect();
            return [...document.querySelectorAll('#device-layers > .is-top *')].filter((e) => {
              const r = e.getBoundingClientRect();
              return r.width > 0 && (r.left < device.left - 0.5 || r.right > device.right + 0.5); }).map((e) => e.className);''')
        assert outside == [], f'the {style} reaches past the device: {outside}'
        api.op(session, 'dismiss', {})



def line_count(driver, selector):
    """[text, lines] for each element `selector` matches: how many lines its text is drawn on."""
    return driver.execute_script('''
        return [...document.querySelectorAll(arguments[0])].map((e) => {
          const range = document.createRange(); range.selectNodeContents(e);
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          return [e.textContent, tops.size]; });''', selector)


@pytest.mark.parametrize('small', [NARROWEST, *SIZES[:2]], indirect=True, ids=['320x640-phone', '360x740-phone', '390x844-phone'])
def test_an_inbox_row_keeps_its_date_on_one_line(small, server, api):
    # On a 320 px phone the row's date shrank with its sender's name, and "Yesterday" broke
    # mid-word, "Yesterda" over "y".
    driver, _ = small
    session = api.create(DEMO_INBOX)
    open_session(driver, server.url, session)
    wait_until_shows(driver, api, session)
    dates = line_count(driver, '#device-layers > .is-top .message-row .row-meta')
    assert sorted(text for text, _ in dates) == ['09:12', 'Yesterday']
    assert [date for date in dates if date[1] != 1] == [], dates

def overlaps(driver):
    """The navigation bar items of the top screen whose box overlaps its title's."""
    return driver.execute_script('''
        const screen = document.querySelector('#device-layers > .is-top .stack > .screen:not(.is-leaving)');
        const t = screen.querySelector('.nav-title').getBoundingClientRect();
        return [...screen.querySelectorAll('.nav-bar .bar-button')].filter((e) => {
          const r = e.getBoundingClientRect(); return r.left < t.right - 0.5 && r.right > t.left + 0.5; })
          .map((e) => e.textContent);''')


@pytest.mark.parametrize('small', SIZES[:2], indirect=True, ids=['360x740-phone', '390x844-phone'])
def test_a_phone_keeps_the_bar_buttons_clear_of_the_title(small, server, api):
    # The title's track took its 200 px first and the sides shared the rest, 33 px each on a
    # 360 px phone: "‹ Inbox" and "More" ran under "Notes on the engine", half hidden and
    # half tappable.
    driver, _ = small
    session = api.create(DEMO_INBOX)
    open_session(driver, server.url, session)
    api.op(session, 'push', {'screen': 'message', 'title': 'Notes on the engine', 'params': DEMO_INBOX['params']['messages'][0]})
    wait_until_shows(driver, api, session)
    assert overlaps(driver) == []


def test_a_long_back_label_stays_clear_of_a_long_title(browser, server, api):
    # At the desktop's width too: a back label of 130 px in a 70 px side ran 52 px under the
    # title, and a tap there went to the title.
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    api.op(session, 'push', {'screen': 'message', 'title': 'Notes on the engine', 'params': DEMO_INBOX['params']['messages'][0]})
    api.op(session, 'push', {'screen': 'detail', 'title': 'A considerably long subject line here'})
    wait_until_shows(browser, api, session)
    assert overlaps(browser) == []



def test_the_bar_buttons_are_big_enough_for_a_finger(browser, server, api):
    # They were 32 px tall (17 px text in 6 px of padding), Contacts 30: a finger (44 × 44 px,
    # WCAG 2.5.5) had to land in two thirds of that. A tap near each one's edge must reach it.
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    steps = [
        ('push', {'screen': 'message', 'title': 'Notes', 'params': DEMO_INBOX['params']['messages'][0]}),
        ('present', {'style': 'sheet', 'screen': 'compose', 'title': 'New Message', 'params': {}}),
        (None, None),
    ]
    seen = []
    for operation, body in steps:
        wait_until_shows(browser, api, session)
        sizes = browser.execute_script('''
            return [...document.querySelectorAll('#device-layers > .is-top .screen:not(.is-leaving) .bar-button')].map((e) => {
              const r = e.getBoundingClientRect();
              const lands = (x, y) => { const hit = document.elementFromPoint(x, y); return !!hit && e.contains(hit); };
              return [e.textContent, r.width, r.height,
                      lands(r.left + r.width / 2, r.top + 2) && lands(r.left + r.width / 2, r.bottom - 2)];
            });''')
        seen += sizes
        if operation:
            api.op(session, operation, body)
    assert sorted(text for text, *_ in seen) == sorted(['Settings', 'Compose', '‹Inbox', 'More', 'Cancel', 'Send', 'Contacts'])
    assert [size for size in seen if size[1] < 44 or size[2] < 44 or not size[3]] == [], seen


def tap_areas(driver, selector, label):
    """[label, width, height, misses] for each drawn element `selector` matches: the area a tap
    lands on it (its own ::before or ::after count as it, and for a checkbox its label), as laid
    out, in CSS px, unrounded: the box of the control and of those pseudo-elements together,
    cut by the ancestors that clip it; and the taps 2 px inside that area's edges that land
    elsewhere (a corner is rounded off, as the drawn button's is, and a control laid over
    another takes its taps)."""
    return driver.execute_script('''
        const px = (value) => parseFloat(value) || 0;
        // The padding box: where an absolutely positioned child's insets, and a clip, start.
        const paddingBox = (e) => {
          const r = e.getBoundingClientRect(), s = getComputedStyle(e);
          return {left: r.left + px(s.borderLeftWidth), right: r.right - px(s.borderRightWidth),
                  top: r.top + px(s.borderTopWidth), bottom: r.bottom - px(s.borderBottomWidth)};
        };
        const positioned = (e) => { while (e && getComputedStyle(e).position === 'static') e = e.parentElement; return e; };
        // A pseudo-element's box (getBoundingClientRect cannot reach one): absolutely positioned
        // in its containing block by its used insets, moved by its transform (a translation
        // only, as the chevron's and the tick's); null when it draws nothing that takes taps.
        const pseudoBox = (e, which) => {
          const s = getComputedStyle(e, which);
          if (s.content === 'none' || s.display === 'none' || s.pointerEvents === 'none') return null;
          if (s.position !== 'absolute') throw new Error(`${which} of ${e.className} is not absolutely positioned`);
          const block = paddingBox(positioned(e));
          const m = s.transform === 'none' ? new DOMMatrix() : new DOMMatrix(s.transform);
          if (!m.isIdentity && (m.a !== 1 || m.b !== 0 || m.c !== 0 || m.d !== 1)) throw new Error(`${which} of ${e.className} is transformed: ${s.transform}`);
          return {left: block.left + px(s.left) + m.e, right: block.right - px(s.right) + m.e,
                  top: block.top + px(s.top) + m.f, bottom: block.bottom - px(s.bottom) + m.f};
        };
        return [...document.querySelectorAll(arguments[0])].filter((e) => e.getClientRects().length).map((e, index) => {
          e.scrollIntoView({block: 'center', inline: 'nearest'});
          const control = e.matches('.form-field--check') ? [...e.querySelectorAll('input, label')] : [e];
          const boxes = control.flatMap((c) => [c.getBoundingClientRect(), pseudoBox(c, '::before'), pseudoBox(c, '::after')]).filter(Boolean);
          const area = {left: Math.min(...boxes.map((b) => b.left)), right: Math.max(...boxes.map((b) => b.right)),
                        top: Math.min(...boxes.map((b) => b.top)), bottom: Math.max(...boxes.map((b) => b.bottom))};
          // What a scrolling or overflow: hidden ancestor cuts off cannot be tapped.
          for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement) {
            const s = getComputedStyle(a), clip = paddingBox(a);
            if (s.overflowX !== 'visible') { area.left = Math.max(area.left, clip.left); area.right = Math.min(area.right, clip.right); }
            if (s.overflowY !== 'visible') { area.top = Math.max(area.top, clip.top); area.bottom = Math.min(area.bottom, clip.bottom); }
          }
          const lands = (x, y) => { const hit = document.elementFromPoint(x, y); return !!hit && control.some((c) => c.contains(hit)); };
          const misses = [];
          for (const [x, y] of [[0, 0.5], [1, 0.5], [0.5, 0], [0.5, 1]]) {
            const tx = area.left + 2 + x * (area.right - area.left - 4), ty = area.top + 2 + y * (area.bottom - area.top - 4);
            if (!lands(tx, ty)) { const hit = document.elementFromPoint(tx, ty); misses.push([x, y, hit && hit.tagName + '.' + hit.className]); }
          }
          return [arguments[1] + (index ? ` ${index + 1}` : ''), area.right - area.left, area.bottom - area.top, misses];
        });''', selector, label)


def check_tap_areas(driver, server, api):
    """Visits every control of the page and the demo and answers the tap areas found."""
    seen = []

    def measure(*controls):
        for selector, label in controls:
            found = tap_areas(driver, selector, label)
            assert found, f'no {label} ({selector})'
            seen.extend(found)

    # The notice and the top bar (a session that cannot be opened puts up the notice).
    driver.get(f'{server.url}/#session=nope&token=x')
    wait_for(driver, lambda d: css(d, '#notice').is_displayed(), message='no notice')
    measure(('#notice-close', 'the notice\'s ×'), ('#start-demo', 'Start'), ('.open-session summary', 'Open a session'),
            ('#leave', 'Leave'))
    css(driver, '.open-session summary').click()
    measure(('#open-form button', 'Open'), ('#open-form input', 'a field of the open form'))
    css(driver, '.open-session summary').click()
    # The device.
    session = api.create(DEMO_INBOX)
    open_session(driver, server.url, session)
    top = '#device-layers > .is-top .stack > .screen:not(.is-leaving)'
    wait_until_shows(driver, api, session)
    measure(('#operation', 'the inspector\'s Operation'), ('#if-match', 'the inspector\'s If-Match'),
            ('#use-revision', 'the inspector\'s Current'), ('#presets .chip', 'a preset'),
            ('#operation-body', 'the inspector\'s body'), ('#operation-form [type="submit"]', 'the inspector\'s Send'),
            ('#inspector details summary', 'the tree\'s heading'))
    measure((f'{top} .bar-button', 'a bar button'), (f'{top} .button-row .button', 'Show'), (f'{top} .row', 'a message row'))
    revision = api.op(session, 'push', {'screen': 'message', 'title': 'Notes', 'params': DEMO_INBOX['params']['messages'][0]})['revision']
    wait_until_shows(driver, api, session, revision)
    measure((f'{top} .segment', 'a segment'), (f'{top} .button-row .button', 'Reply'))
    click_text(driver, 'More')
    wait_until_shows(driver, api, session, revision + 1)
    measure((f'{top} .row', 'a popover row'))
    api.op(session, 'dismiss', {})
    wait_until_shows(driver, api, session, revision + 2)
    click_text(driver, 'Reply')
    wait_until_shows(driver, api, session, revision + 3)
    measure((f'{top} .bar-button', 'a sheet\'s button'), (f'{top} .compose input', 'a compose field'),
            (f'{top} .compose textarea', 'the message\'s text'))
    api.op(session, 'dismiss', {})
    api.op(session, 'pop', {})
    wait_until_shows(driver, api, session, revision + 5)
    click_text(driver, 'Settings')
    wait_until_shows(driver, api, session, revision + 6)
    measure((f'{top} .form-field--check', 'the checkbox and its label'), (f'{top} .button', 'Save'),
            (f'{top} .form-field input:not([type="checkbox"])', 'a form\'s field'))
    api.op(session, 'present', {'style': 'alert', 'alert': {
        'title': 'Rename', 'fields': [{'id': 'name', 'placeholder': 'Name'}],
        'actions': [{'id': 'cancel', 'title': 'Cancel', 'role': 'cancel'}, {'id': 'ok', 'title': 'OK'}]}})
    wait_until_shows(driver, api, session, revision + 7)
    measure(('#device-layers > .is-top .alert-field input', 'an alert\'s field'))
    return seen


def test_every_control_is_big_enough_for_a_finger(browser, server, api):
    # The bar buttons reached 44 px (above), the rest did not: Message/Original were 33 px tall,
    # Show and Reply 32 and 36, the notice's × 29 × 22, the top bar's buttons 32, the popover's
    # rows 41, and the Settings checkbox 20 × 20 beside a 19 px label (a 40 px card). Then the
    # text fields: the open form's were 35 px tall, an alert's and If-Match 32, a form's 23.
    # Then the inspector's buttons: Current 24 px tall, Send 34, the presets 24 (wrapping 6 px
    # apart), the tree's heading 16.
    seen = check_tap_areas(browser, server, api)
    short = [area for area in seen if area[1] < 44 or area[2] < 44 or area[3]]
    assert short == [], f'too small to tap, or a tap near an edge misses (of {len(seen)}): {short}'


@pytest.mark.parametrize('small', [NARROWEST, *SIZES[:2]], indirect=True, ids=['320x640-phone', '360x740-phone', '390x844-phone'])
def test_every_control_is_big_enough_for_a_finger_on_a_phone(small, server, api):
    # On a phone the top bar's buttons wrap into rows 12 px apart (layout.css's row-gap), where
    # their 44 px tap areas about 32 px buttons meet: they must not overlap (as at 8 px apart),
    # or a tap at one's bottom edge lands on the one below.
    driver, _ = small
    seen = check_tap_areas(driver, server, api)
    short = [area for area in seen if area[1] < 44 or area[2] < 44 or area[3]]
    assert short == [], f'too small to tap, or a tap near an edge misses (of {len(seen)}): {short}'


@pytest.mark.parametrize('small', [NARROWEST], indirect=True, ids=['320x640-phone'])
def test_a_popover_fits_the_device_of_a_320_px_phone(small, server, api):
    # A popover was 270 px wide whatever the device: a 320 px phone's device is 270 px wide,
    # and the popover ran from 10 px past its left edge (presented from curl) to its right one,
    # or, anchored to Show or More, 10 px past its right edge.
    driver, _ = small
    session = api.create(DEMO_INBOX)
    open_session(driver, server.url, session)
    revision = wait_until_shows(driver, api, session)['revision']

    def fits(how):
        found = driver.execute_script('''
            const device = document.querySelector('.device-screen').getBoundingClientRect();
            const layer = document.querySelector('#device-layers > .presentation--popover.is-top');
            const panel = layer.querySelector('.panel').getBoundingClientRect();
            const arrow = layer.querySelector('.popover-arrow').getBoundingClientRect();
            return [device.left, device.right, panel.left, panel.right, panel.width, arrow.left, arrow.right];''')
        left, right, panel_left, panel_right, width, arrow_left, arrow_right = found
        assert left + 5 <= panel_left and panel_right <= right - 5, f'{how}: the popover ({panel_left}–{panel_right}) is not within the device ({left}–{right})'
        assert panel_left < arrow_left and arrow_right < panel_right, f'{how}: its arrow is off it: {found}'
        return width

    click_text(driver, 'Show: All')
    wait_until_shows(driver, api, session, revision + 1)
    width = fits('from Show')
    api.op(session, 'dismiss', {})
    api.op(session, 'push', {'screen': 'message', 'title': 'Notes', 'params': DEMO_INBOX['params']['messages'][0]})
    wait_until_shows(driver, api, session, revision + 3)
    click_text(driver, 'More')
    wait_until_shows(driver, api, session, revision + 4)
    assert fits('from More') == width
    api.op(session, 'dismiss', {})
    from test_presentations import STYLES
    api.op(session, 'present', STYLES['popover'])
    wait_until_shows(driver, api, session, revision + 6)
    assert fits('from curl') == width


def test_a_popover_keeps_its_width_on_a_desktop(browser, server, api):
    session = api.create(DEMO_INBOX)
    open_session(browser, server.url, session)
    revision = wait_until_shows(browser, api, session)['revision']
    click_text(browser, 'Show: All')
    wait_until_shows(browser, api, session, revision + 1)
    assert css(browser, '#device-layers > .presentation--popover .panel').rect['width'] == 270
