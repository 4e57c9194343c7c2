// The developer's panel: the session as JSON, its events with revisions, and a form that
// sends any operation by hand. It shows what the server said, errors included.
import { fill, h, isolated } from './dom.js';
import { OPERATIONS } from './api.js';

/** What the body box holds when an operation is chosen: a working example of its shape. */
const EXAMPLES = {
  push: { screen: 'detail', title: 'Pushed by hand', params: { body: 'Sent from the inspector.' } },
  pop: {},
  'pop-to-root': {},
  'pop-to': { screen: '' },
  replace: { screen: 'detail', title: 'Replaced', params: {} },
  present: { style: 'sheet', screen: 'detail', title: 'Presented by hand', params: { body: 'Sent from the inspector.' } },
  dismiss: {},
  emit: { result: { chosen: 1 } },
  'set-root': { screen: 'detail', title: 'New root', params: {} },
  'set-state': { state: 'loaded', params: {}, transition: 'crossfade' },
  batch: { operations: [{ op: 'push', screen: 'detail', title: 'One' }, { op: 'push', screen: 'detail', title: 'Two' }] },
};

/** One example per presentation style, for the preset buttons. */
const PRESENTATIONS = {
  modal: { style: 'modal', screen: 'detail', title: 'Modal', params: { heading: 'A modal', body: 'Covers the screen; Close dismisses it.' } },
  sheet: { style: 'sheet', screen: 'detail', title: 'Sheet', params: { heading: 'A sheet', body: 'Swipe down or press Escape to cancel.' } },
  fullScreen: { style: 'fullScreen', screen: 'detail', title: 'Full screen', params: { heading: 'A full-screen cover', body: 'Edge to edge.' } },
  popover: { style: 'popover', screen: 'list', title: 'Popover', navigation: false, params: { items: [{ title: 'First', result: { choice: 1 } }, { title: 'Second', result: { choice: 2 } }] } },
  alert: {
    style: 'alert',
    alert: {
      title: 'Rename conversation',
      message: 'Enter a new name.',
      actions: [{ id: 'save', title: 'Save' }, { id: 'cancel', title: 'Cancel', role: 'cancel' }],
      fields: [{ id: 'name', placeholder: 'Name' }],
    },
  },
};

export class Inspector {
  /**
   * @param {HTMLElement} root the inspector's element (index.html lays it out)
   * @param {(operation, body, ifMatch) => Promise<{status, session}>} send
   */
  constructor(root, send) {
    this.root = root;
    this.send = send;
    this.session = null;
    this.sending = false;
    /** Counts `clear()`s: a Send's answer is shown only in the session it was sent in. */
    this.generation = 0;
    /** The JSON of each event in the log, to tell a repeat; only those still in it (see logEvent). */
    this.seen = new Set();
    /** A log item -> its key in `seen`. */
    this.keys = new WeakMap();
    this.summary = root.querySelector('#session-summary');
    this.tree = root.querySelector('#session-tree');
    this.log = root.querySelector('#event-log');
    this.form = root.querySelector('#operation-form');
    this.operation = this.form.elements.operation;
    this.body = this.form.elements.body;
    this.ifMatch = this.form.elements.ifMatch;
    this.outcome = root.querySelector('#operation-outcome');

    this.operation.replaceChildren(...OPERATIONS.map((name) => h('option', { value: name }, name)));
    this.operation.value = 'present';
    this.fillExample();
    this.operation.addEventListener('change', () => this.fillExample());
    root.querySelector('#use-revision').addEventListener('click', () => {
      if (this.session) this.ifMatch.value = String(this.session.revision);
    });
    const presets = root.querySelector('#presets');
    for (const [style, body] of Object.entries(PRESENTATIONS)) {
      presets.append(
        h('button', { type: 'button', class: 'chip', dataset: { preset: style }, onclick: () => this.fill('present', body) }, style),
      );
    }
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
    this.clear();
  }

  fill(operation, body) {
    this.operation.value = operation;
    this.body.value = JSON.stringify(body, null, 2);
  }

  fillExample() {
    const example = structuredClone(EXAMPLES[this.operation.value] || {});
    if (this.operation.value === 'pop-to' && this.session) example.screen = this.session.root.path[0].id;
    this.body.value = JSON.stringify(example, null, 2);
  }

  async submit() {
    let body;
    try {
      body = this.body.value.trim() === '' ? {} : JSON.parse(this.body.value);
    } catch (error) {
      this.showOutcome('error', `The body is not JSON: ${error.message}`);
      return;
    }
    const ifMatch = this.ifMatch.value.trim();
    // One at a time: a second Send before the answer would make the change twice (these
    // carry no `from` to refuse it).
    if (this.sending) return;
    this.sending = true;
    const generation = this.generation;
    const operation = this.operation.value;
    this.form.setAttribute('aria-busy', 'true');
    this.showOutcome('pending', `Sending ${operation}…`);
    let outcome;
    try {
      const { session } = await this.send(operation, body, ifMatch === '' ? undefined : ifMatch);
      outcome = ['ok', `200 OK · ${operation} · revision ${session.revision}`];
    } catch (error) {
      outcome = ['error', describeError(error)];
    }
    // The page has opened another session (or none) since: the answer is about one it no
    // longer shows, and the form already belongs to the next.
    if (generation !== this.generation) return;
    this.sending = false;
    this.form.removeAttribute('aria-busy');
    this.showOutcome(...outcome);
  }

  /** `text`: a string, or pieces for `h()` (what describeError answers). */
  showOutcome(kind, text) {
    this.outcome.dataset.kind = kind;
    fill(this.outcome, text);
  }

  clear() {
    this.generation += 1;
    this.sending = false;
    this.form.removeAttribute('aria-busy');
    this.session = null;
    this.seen.clear();
    this.summary.replaceChildren(h('p', { class: 'muted' }, 'No session open.'));
    this.tree.textContent = '';
    this.log.replaceChildren();
    this.outcome.textContent = '';
    delete this.outcome.dataset.kind;
  }

  showSession(session) {
    this.session = session;
    const top = session.top || {};
    const row = (name, value) => [h('dt', {}, name), h('dd', {}, h('code', {}, value ?? '—'))];
    this.summary.replaceChildren(
      h(
        'dl',
        { class: 'summary' },
        row('id', session.id),
        row('revision', String(session.revision)),
        row('top screen', top.screen),
        row('top stack', top.stack),
        row('presentation', top.presentation),
        row('alert', top.alert),
      ),
    );
    this.summary.querySelector('dd:nth-of-type(2) code').dataset.revision = String(session.revision);
    this.tree.textContent = prettyJSON(session);
  }

  /** Adds an event to the log once (history and the live stream may both carry it). */
  logEvent(event) {
    const key = JSON.stringify(event);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const item = h(
      'li',
      { class: 'event', dataset: { revision: String(event.revision ?? ''), type: event.type } },
      h('span', { class: 'event-revision' }, event.revision === undefined ? '' : `r${event.revision}`),
      h('span', { class: `event-type event-type--${event.type}` }, event.type),
      h('span', { class: 'event-text' }, describeEvent(event)),
    );
    this.keys.set(item, key);
    this.log.prepend(item);
    // An event's key goes with its item: kept for ever, every event's JSON (a result's whole
    // value) stayed in memory, and a page left open on a busy session grew without bound.
    // A repeat comes at once (history and stream overlapping), not 200 events later.
    while (this.log.children.length > 200) {
      this.seen.delete(this.keys.get(this.log.lastElementChild));
      this.log.lastElementChild.remove();
    }
  }

  logNote(text) {
    this.log.prepend(h('li', { class: 'event event--note' }, h('span', { class: 'event-text' }, text)));
  }
}

/** How far the tree's lines move right: two spaces a level, up to this many levels. */
const MAX_INDENT_LEVELS = 16;

/**
 * JSON as `JSON.stringify(value, null, 2)` writes it, but for the indentation, which stops
 * growing past MAX_INDENT_LEVELS. Indented without end, a tree 1000 presentations deep
 * (`--max-presentation-depth` allows it) nests some 2,000 levels: its lines carried
 * thousands of spaces, 38 MB of text for a session of 400 KB, and the page froze for
 * seconds at every change while it wrote and laid that out. Written in pieces joined once:
 * concatenated level by level, the text would be copied again at each one.
 */
export function prettyJSON(value) {
  const parts = [];
  writeJSON(value, 0, parts);
  return parts.join('');
}

function writeJSON(value, level, parts) {
  if (value === null || typeof value !== 'object') {
    parts.push(JSON.stringify(value));
    return;
  }
  const isArray = Array.isArray(value);
  const entries = isArray ? value.map((item) => [null, item]) : Object.entries(value);
  if (entries.length === 0) {
    parts.push(isArray ? '[]' : '{}');
    return;
  }
  const inner = `\n${'  '.repeat(Math.min(level + 1, MAX_INDENT_LEVELS))}`;
  parts.push(isArray ? '[' : '{');
  entries.forEach(([key, item], index) => {
    parts.push(index === 0 ? inner : `,${inner}`);
    if (key !== null) parts.push(`${JSON.stringify(key)}: `);
    writeJSON(item, level + 1, parts);
  });
  parts.push(`\n${'  '.repeat(Math.min(level, MAX_INDENT_LEVELS))}${isArray ? ']' : '}'}`);
}

/**
 * A one-line description of an event, for the log: pieces for `h()`. A state's name and a
 * result's value are what a client sent, each isolated from the sentence; ids, styles and
 * transitions are the server's own.
 */
function describeEvent(event) {
  switch (event.type) {
    case 'pushed':
      return `pushed ${event.screen} on ${event.stack}`;
    case 'popped':
      return `popped ${(event.screens || []).join(', ')} from ${event.stack}`;
    case 'replaced':
      return `replaced ${(event.replaced || []).join?.(', ') ?? event.replaced} with ${event.screen}`;
    case 'presented':
      return `presented ${event.presentation} (${event.style}) from ${event.presentedBy}`;
    case 'dismissed':
      return `dismissed ${event.presentation}`;
    case 'cancelled':
      return `cancelled ${event.presentation}`;
    case 'result':
      return [`result for ${event.screen} from ${event.from}: `, isolated(JSON.stringify(event.value))];
    case 'root-set':
      return `root set to ${event.screen}`;
    case 'state-set':
      return [`${event.screen} shows `, isolated(event.state && event.state.name), ` (${event.transition})`];
    case 'reset':
      return `the stream fell behind: events through r${event.revision} are no longer kept, and were skipped`;
    default:
      return event.type;
  }
}

/**
 * One line for an error: status, code and the server's detail (problem+json), or what failed.
 * Pieces for `h()`: the detail may quote what a client sent (a screen id, a `from`, an action),
 * and the pointer names a field of its body, so each is isolated from the words around it.
 */
export function describeError(error) {
  if (error && error.name === 'ProblemError') {
    const extra = error.problem.revision !== undefined ? ` (current revision ${error.problem.revision})` : '';
    const pointer = error.problem.pointer ? [' at ', isolated(error.problem.pointer)] : [];
    return [`${error.status} ${error.title} · ${error.code}: `, isolated(error.message), ...pointer, `${extra}${retry(error, extra === '' && pointer.length === 0)}`];
  }
  return error && error.message ? error.message : String(error);
}

/**
 * When a refusal may be tried again: a 503 (too many sessions, storage, stopping) or 507 says
 * so only in its Retry-After header; a 429's detail already says it ("retry in 60 s"). A
 * detail that ends by saying to retry without when (503 `shutting_down`: "the server is
 * stopping; retry") is told when, right after it (`follows`: nothing stands between them),
 * not with a second "retry".
 */
function retry(error, follows) {
  const after = error.retryAfter;
  if (!after || /retry in/i.test(error.message)) return '';
  const when = /^\d+$/.test(after.trim()) ? `in ${after.trim()} s` : `after ${after.trim()}`;
  return follows && /\bretry$/i.test(error.message.trim()) ? ` ${when}` : `; retry ${when}`;
}
