// The page: opens the session named in the URL fragment, draws what the server says,
// follows its events, and sends what the person taps. The server is the only source of
// truth: a tap sends a request, and the page redraws from the answer or the next event.
import { createSession, SessionAPI, ProblemError, NetworkError, RequestTimeoutError, setRequestTimeout } from './api.js';
import { readFragment, writeFragment } from './fragment.js';
import { LiveStream, setIdleCheck } from './live.js';
import { DeviceView } from './device.js';
import { Inspector, describeError } from './inspector.js';
import { findScreen } from './tree.js';
import { isolated } from './dom.js';
import { Notice } from './notice.js';
import { DEMO_ROOT, followUp } from './demo.js';

// `?request-timeout=SECONDS` (before the fragment) sets how long a request may take before
// the page gives up on it and says so (12 s when absent); `?stream-idle=SECONDS`, how long
// the event stream may be silent before the page checks it (25 s). Both are for tests.
const query = new URLSearchParams(location.search);
setRequestTimeout(Number(query.get('request-timeout')) * 1000);
setIdleCheck(Number(query.get('stream-idle')) * 1000);

const elements = {
  layers: document.querySelector('#device-layers'),
  connection: document.querySelector('#connection'),
  notice: document.querySelector('#notice'),
  noticeText: document.querySelector('#notice-text'),
  start: document.querySelector('#start-demo'),
  openForm: document.querySelector('#open-form'),
  leave: document.querySelector('#leave'),
  sessionLabel: document.querySelector('#session-label'),
  main: document.querySelector('main'),
};

/** The open session: its API, the last tree drawn, its stream, and refetch bookkeeping. */
let current = null;

const device = new DeviceView(elements.layers, document.querySelector('#device-announcer'), {
  perform: (operation, body) => tap(() => perform(operation, body)),
  cancel: (layer) => tap(() => perform('dismiss', { presentation: layer.presentation.id, from: topScreen() })),
  answerAlert: (layer, actionID, fields) =>
    tap(() => {
      const result = fields === undefined ? { action: actionID } : { action: actionID, fields };
      const first = { presentation: layer.presentation.id, result, from: topScreen() };
      const presenter = current && findScreen(current.session, layer.presentation.presentedBy);
      const more = followUp(layer.presentation, actionID, presenter);
      return more.length ? perform('batch', { operations: [{ op: 'dismiss', ...first }, ...more] }) : perform('dismiss', first);
    }),
});

/**
 * One write from the device at a time: a tap while one is on its way is dropped. The screen
 * is not redrawn until the answer comes, so a double click would send its write twice: a
 * second set-state or emit made for nothing, or a second push refused as stale (409
 * `top_changed`) and shown as if someone else had moved the session.
 */
function tap(send) {
  const state = current;
  if (!state) return Promise.resolve(undefined);
  if (state.tapping) return state.tapping;
  elements.layers.setAttribute('aria-busy', 'true');
  state.tapping = send().finally(() => {
    state.tapping = null;
    if (current === state) elements.layers.removeAttribute('aria-busy');
  });
  return state.tapping;
}

const inspector = new Inspector(document.querySelector('#inspector'), async (operation, body, ifMatch) => {
  if (!current) throw new Error('Open a session first.');
  return perform(operation, body, { ifMatch, rethrow: true });
});

function topScreen() {
  return current && current.session ? current.session.top.screen : undefined;
}

// --- Notices and connection state ---------------------------------------------------------

const notice = new Notice(elements.notice, elements.noticeText, document.querySelector('#notice-close'), elements.main);

const CONNECTION_TEXT = {
  idle: 'No session',
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Offline · reconnecting…',
  offline: 'Offline',
  // The server answered, and the answer ends it: saying "Offline" here sent people to check
  // a network that works. The notice says what to do.
  gone: 'Session gone',
  refused: 'Token refused',
  failed: 'Not opened',
};

function setConnection(state) {
  // #connection is a live region: the stream's every failed retry while offline reports
  // "reconnecting" again, and rewriting the same words would have them read out each time.
  if (elements.connection.dataset.state === state) return;
  elements.connection.dataset.state = state;
  elements.connection.textContent = CONNECTION_TEXT[state];
  document.body.dataset.connection = state;
  if (state === 'live') notice.live();
}

// --- Opening a session ----------------------------------------------------------------------

async function open(reference) {
  if (current) current.live?.stop();
  current = null;
  elements.layers.removeAttribute('aria-busy');
  inspector.clear();
  elements.leave.hidden = !reference;
  elements.sessionLabel.textContent = reference ? reference.id : '';
  if (!reference) {
    setConnection('idle');
    device.clear('No session open. Start the messages demo, or open a session by id and token.');
    return;
  }
  device.clear('Opening the session…');
  const state = { api: new SessionAPI(reference.id, reference.token), session: null, live: null, fetching: false, again: false, tapping: null, gone: false };
  current = state;
  setConnection('connecting');
  try {
    const session = await state.api.fetch();
    if (current !== state) return;
    show(session);
    const history = await state.api.events();
    if (current !== state) return;
    for (const event of history.events) inspector.logEvent(event);
    state.live = new LiveStream(state.api, {
      onEvent: (event) => onEvent(state, event),
      onSession: (session) => current === state && show(session),
      onStatus: (status) => current === state && setConnection(status),
      resync: (after) => resync(state, after),
    });
    state.live.start(Math.max(history.revision, session.revision));
  } catch (error) {
    if (current !== state) return;
    setConnection(openFailure(error));
    device.clear(error instanceof ProblemError && error.status === 404 ? 'This session does not exist (any more).' : 'The session could not be opened.');
    notice.show(['Cannot open session ', isolated(reference.id), ': ', describeError(error)]);
  }
}

/**
 * The connection state after the session could not be opened: offline only when the server
 * was not heard (a network error, a timeout); when it answered, what it answered (an answer
 * that was not the server's included: something answered).
 */
function openFailure(error) {
  if (error instanceof NetworkError) return 'offline';
  if (error instanceof ProblemError && error.status === 404) return 'gone';
  if (error instanceof ProblemError && error.status === 401) return 'refused';
  return 'failed';
}

function onEvent(state, event) {
  if (current !== state) return;
  if (event.type === 'deleted') {
    state.gone = true;
    // The device first: the focus it held goes to its message (DeviceView.clear), which is
    // where the notice, dismissed, gives it back. `deleted` also ends the stream of a session
    // that expired (a page whose token was replaced no longer renews it): say both.
    device.clear('This session was deleted, or it expired.');
    notice.show('This session was deleted, or it expired.', 'info');
    return;
  }
  if (event.type === 'revoked') {
    device.clear('This page’s token for the session was replaced.');
    notice.show('This session’s token was replaced: this page can no longer follow it. Open the session with its new token.');
    return;
  }
  // The tree the server sends next is the one to draw, even older than the one shown: after
  // a reset to a lower revision the server no longer has the revisions the page drew.
  if (event.type === 'reset') state.resetTo = event.revision;
  inspector.logEvent(event);
  // The session itself follows its revision's events on the stream; how a change of state
  // is shown comes only with the event.
  if (event.type === 'state-set' && (!state.session || event.revision > state.session.revision)) device.noteTransition(event.screen, event.transition);
}

/** Before a refused stream is reopened: redraw from the server, and find where to continue. */
async function resync(state, after) {
  try {
    await refresh(state);
    const history = await state.api.events(after);
    for (const event of history.events) inspector.logEvent(event);
    return history.revision;
  } catch (error) {
    // The server is behind the page (400 `revision_ahead`): it lost revisions the page drew, a
    // backup restored. Retrying cannot help; as after a stream's `event: reset`, the tree to
    // draw is the server's (the stream, opened at its revision, sends it first), older or not.
    if (error instanceof ProblemError && error.code === 'revision_ahead' && Number.isInteger(error.problem.revision)) {
      const revision = error.problem.revision;
      inspector.logNote(`The server is at revision ${revision}, behind the page's ${after}: it no longer has the revisions after it; continuing from there.`);
      state.resetTo = revision;
      return revision;
    }
    if (error instanceof ProblemError && error.code === 'history_expired') {
      inspector.logNote(`Events after revision ${after} are no longer kept; continuing from revision ${state.session.revision}.`);
      return state.session.revision;
    }
    if (error instanceof ProblemError && error.status === 404) {
      gone(state, error);
      error.stop = true;
    }
    // The session is there, but not for this token: replaced while the stream was down
    // (so no `event: revoked` reached it). Reconnecting cannot help.
    if (error instanceof ProblemError && error.status === 401) {
      refused(state, error);
      error.stop = true;
    }
    throw error;
  }
}

/**
 * The session is there, but this page's token is refused (401: replaced by another client),
 * however the page learnt it: the stream's reconnection, or a tap made before the stream
 * heard `event: revoked` (which comes only at the session's next change). Nothing this token
 * sends can work again.
 */
function refused(state, error) {
  stopFollowing(state, 'refused',
    ['This page’s token for the session was refused (replaced, or wrong): open the session with its current token. ', describeError(error)],
    'This page’s token for the session was refused.');
}

/**
 * The session is not on the server any more (deleted, or expired), however the page learnt
 * it: a read refused 404 while the stream was down, or the stream's reconnection. As after
 * `event: deleted`.
 */
function gone(state, error) {
  stopFollowing(state, 'gone', ['The session is gone: ', describeError(error)], 'This session does not exist (any more).');
}

/**
 * Nothing more can come of following this session: the stream stops, the page says why, and
 * no tree is left to tap. `connection`: 'gone' or 'refused' (see CONNECTION_TEXT).
 */
function stopFollowing(state, connection, message, cleared) {
  if (current !== state) return;
  state.gone = true;
  state.live?.stop();
  setConnection(connection);
  device.clear(cleared);
  notice.show(message);
}

/** Fetches the tree; calls that arrive while one is in flight are folded into one more. */
async function refresh(state) {
  if (state.fetching) {
    state.again = true;
    return state.fetching;
  }
  state.fetching = (async () => {
    try {
      do {
        state.again = false;
        const session = await state.api.fetch(state.session ? state.session.revision : undefined);
        if (session && current === state) show(session);
      } while (state.again);
    } finally {
      state.fetching = false;
    }
  })();
  return state.fetching;
}

/** Draws a session the server sent, unless a newer one is already drawn (or, after a reset, one
 * from before it). */
function show(session) {
  const state = current;
  if (!state || state.gone) return;
  const resetTo = state.resetTo;
  if (resetTo !== undefined ? session.revision < resetTo : state.session && session.revision <= state.session.revision) return;
  state.resetTo = undefined;
  state.session = session;
  device.render(session);
  inspector.showSession(session);
}

// --- Acting -----------------------------------------------------------------------------------

async function perform(operation, body, { ifMatch, rethrow = false } = {}) {
  const state = current;
  if (!state) return undefined;
  try {
    const answer = await state.api.perform(operation, body, { ifMatch });
    if (current !== state) return answer;
    show(answer.session);
    notice.clear();
    return answer;
  } catch (error) {
    // The page has left that session since (for another, or none): its failure is not news
    // about the one shown now.
    if (current !== state) {
      if (rethrow) throw error;
      return undefined;
    }
    if (error instanceof ProblemError && error.status === 401) {
      refused(state, error);
      if (rethrow) throw error;
      return undefined;
    }
    const text = [describeError(error)];
    if (error instanceof ProblemError && error.status === 412) text.push('. The session changed since you looked: the page now shows the current tree.');
    else if (error instanceof ProblemError && error.code === 'top_changed') text.push('. Another change came first: the page now shows the current tree.');
    else if (error instanceof RequestTimeoutError) text.push(' The change may still be made: if it is, the page shows it.');
    notice.show(text, 'error', { untilLive: error instanceof NetworkError && !(error instanceof RequestTimeoutError) });
    // A 404 names a screen or presentation that is gone, or the whole session: the read says
    // which (a stream that is down cannot).
    if (error instanceof ProblemError && (error.isConflict || error.status === 404)) {
      refresh(state).catch((failure) => {
        if (failure instanceof ProblemError && failure.status === 404) gone(state, failure);
      });
    }
    if (rethrow) throw error;
    return undefined;
  }
}

// --- Controls -------------------------------------------------------------------------------

elements.start.addEventListener('click', async () => {
  // One session per press. aria-disabled rather than `disabled`: a button disabled while it
  // has focus drops it to the page's body, and a keyboard or screen reader user who pressed
  // Start would find themselves nowhere.
  if (elements.start.getAttribute('aria-disabled') === 'true') return;
  elements.start.setAttribute('aria-disabled', 'true');
  try {
    const created = await createSession(DEMO_ROOT);
    writeFragment({ id: created.id, token: created.token });
  } catch (error) {
    notice.show(['Cannot create a session: ', describeError(error)]);
  } finally {
    elements.start.removeAttribute('aria-disabled');
  }
});

elements.openForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const id = elements.openForm.elements.id.value.trim();
  const token = elements.openForm.elements.token.value.trim();
  if (!id || !token) return;
  elements.openForm.reset();
  const disclosure = elements.openForm.closest('details');
  disclosure.open = false;
  // The field that had the focus is hidden with the form, which drops it to the page's body:
  // it goes back to the summary that opened the form.
  disclosure.querySelector('summary').focus();
  // The URL names this session already (one that could not be opened, the network down):
  // writing it again changes nothing, no hashchange comes, and the Open did nothing.
  const shown = readFragment();
  if (shown && shown.id === id && shown.token === token) {
    notice.clear();
    open(shown);
    return;
  }
  writeFragment({ id, token });
});

elements.leave.addEventListener('click', () => writeFragment(null));

// A page kept in the back/forward cache would keep its event stream open, and browsers
// allow only a few connections per server: let the stream go, and reopen on return.
addEventListener('pagehide', () => current?.live?.stop());
addEventListener('pageshow', (event) => {
  if (event.persisted) open(readFragment());
});

addEventListener('hashchange', () => {
  notice.clear();
  open(readFragment());
});

open(readFragment());
