// What each kind of screen looks like, drawn from its `params` (and its `result`, the
// last value handed back to it). Templates only describe; every tap calls `ctx.act`,
// which asks the server, and the page redraws from the server's answer.
import { h, isolated, uniqueID } from './dom.js';
import { screenTitle } from './tree.js';

/**
 * A template gets `ctx`:
 *   screen, index, stack, presentation (null on the root stack), canGoBack, isPresentedRoot,
 *   draft (Map of form values the person had typed into this screen before a redraw),
 *   emitted (the last value this screen's presentation emitted while open, if any),
 *   act: {push(spec), pop(result?), present(style, spec, {navigation}), alert(alert),
 *         dismiss(result?), emit(result), handBack(result), setState(name, params?, transition?)}.
 * A screen with a `state` (set-state) shows the child that state names, in the same place.
 * It answers `{body, trailing?, leading?}`: nodes for the screen and its navigation bar.
 */
const templates = { inbox, message, compose, list, choices, form, detail };

export function renderScreen(ctx) {
  const template = Object.hasOwn(templates, ctx.screen.screen) ? templates[ctx.screen.screen] : keyValue;
  return template(ctx);
}

function params(ctx) {
  const value = ctx.screen.params;
  return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

/** `value` when it is a JSON object (not null, not an array), else null. */
function object(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
}

function text(value) {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value);
}

/** The most bytes of UTF-8 a screen's title may hold (docs/api.md, "Screen request"). */
const MAX_TITLE_BYTES = 512;
const utf8 = new TextEncoder();

/**
 * The title to ask for a screen with, from a value in params (a subject, a name, a row's
 * title): text, cut with an ellipsis to what the server takes. A longer title, or one that is
 * not a string, is refused (422), and the tap on a row the page drew would do nothing.
 */
function screenTitleFrom(value) {
  const title = text(value);
  if (utf8.encode(title).length <= MAX_TITLE_BYTES) return title;
  const ellipsis = '…';
  let kept = '';
  let bytes = utf8.encode(ellipsis).length;
  for (const character of title) {
    bytes += utf8.encode(character).length;
    if (bytes > MAX_TITLE_BYTES) break;
    kept += character;
  }
  return kept + ellipsis;
}

function barButton(label, onclick, { ariaLabel, kind } = {}) {
  return h('button', { type: 'button', class: ['bar-button', kind && `bar-button--${kind}`], onclick, 'aria-label': ariaLabel }, label);
}

/**
 * The last result handed to this screen, shown the way the screen understands it: `describe`
 * answers a sentence (pieces for `h()`, the value's text isolated in it), or null for the
 * value as JSON.
 */
function resultBanner(ctx, describe) {
  const result = ctx.screen.result;
  if (!result) return null;
  const description = describe(result.value) ?? [`Result from ${result.from}: `, isolated(JSON.stringify(result.value))];
  // Not a live region itself: one inserted with its words is not read out. The device writes
  // a new result's banner into its one announcer (device.js, announceResult).
  return h('p', { class: 'result-banner', dataset: { from: result.from, revision: result.revision } }, description);
}

// --- The messages demo ------------------------------------------------------------

function inbox(ctx) {
  const all = Array.isArray(params(ctx).messages) ? params(ctx).messages.filter(object) : [];
  // The filter popover streams its choice here (`emit`) while it stays open; the last one
  // holds, and the button names it (no banner, which would move the list under the popover).
  const chosen = ctx.screen.result && ctx.screen.result.value;
  const filtered = Boolean(chosen && Object.hasOwn(MESSAGE_FILTERS, chosen.show));
  const filter = filtered ? chosen.show : 'all';
  const messages = all.filter(MESSAGE_FILTERS[filter].keeps);
  const banner = filtered
    ? null
    : resultBanner(ctx, (value) => {
        if (value && value.sent) return ['Sent to ', isolated(text(value.to)), ': “', text(value.subject) ? isolated(text(value.subject)) : '(no subject)', '”'];
        if (value && value.saved) return 'Settings saved.';
        return null;
      });
  const rows = messages.map((message) =>
    h(
      'li',
      {},
      h(
        'button',
        {
          type: 'button',
          class: ['row', 'message-row', message.unread && 'is-unread'],
          dataset: { message: text(message.id) },
          onclick: () => ctx.act.push({ screen: 'message', title: screenTitleFrom(message.subject), params: message }),
        },
        // The blue dot says "unread" only to the eye (a ::before): the row's name says it too.
        message.unread ? h('span', { class: 'visually-hidden' }, 'Unread. ') : null,
        h('span', { class: 'row-line' }, h('strong', { class: 'row-title' }, text(message.from)), h('span', { class: 'row-meta' }, text(message.date))),
        h('span', { class: 'row-subject' }, text(message.subject)),
        h('span', { class: 'row-preview' }, text(message.preview)),
      ),
    ),
  );
  return {
    leading: ctx.index === 0 && !ctx.presentation ? [barButton('Settings', () => ctx.act.present('modal', SETTINGS))] : undefined,
    trailing: [barButton('Compose', () => ctx.act.present('sheet', { screen: 'compose', title: 'New Message', params: {} }), { kind: 'strong' })],
    body: h(
      'div',
      { class: 'inbox' },
      banner,
      h('div', { class: 'button-row' }, h('button', { type: 'button', class: 'button', onclick: () => ctx.act.present('popover', filterMenu(filter), { navigation: false }) }, `Show: ${MESSAGE_FILTERS[filter].title}`)),
      messages.length ? h('ul', { class: 'list', 'aria-label': 'Messages' }, rows) : h('p', { class: 'empty' }, 'No messages.'),
    ),
  };
}

/** What the inbox can show, by the `show` its filter popover emits. */
const MESSAGE_FILTERS = {
  all: { title: 'All', keeps: () => true },
  unread: { title: 'Unread', keeps: (message) => Boolean(message.unread) },
  attachments: { title: 'With attachments', keeps: (message) => Boolean(message.attachment) },
};

/** A `choices` screen whose every tap applies at once, the inbox following along behind it. */
function filterMenu(current) {
  return {
    screen: 'choices',
    title: 'Show',
    params: {
      options: Object.entries(MESSAGE_FILTERS).map(([show, { title }]) => ({ title, value: { show } })),
      selected: { show: current },
    },
  };
}

const SETTINGS = {
  screen: 'form',
  title: 'Settings',
  params: {
    fields: [
      { name: 'signature', label: 'Signature', value: 'Sent from presentation-server' },
      { name: 'notifications', label: 'Notify me of new mail', type: 'checkbox', value: true },
    ],
    submit: 'Save',
    result: { saved: true },
  },
};

/**
 * A message shows one of two children by its state, after StateViewController: the message
 * as read (no state, or `formatted`) or its `original` text. The screen keeps its place and
 * id; the switch is a `set-state`, crossfaded here and on every page following the session.
 */
function message(ctx) {
  const p = params(ctx);
  const banner = resultBanner(ctx, (value) => (value && value.action ? ['Done: ', isolated(text(value.label || value.action)), '.'] : null));
  const showing = ctx.screen.state && ctx.screen.state.name === 'original' ? 'original' : 'formatted';
  const views = [
    ['formatted', 'Message'],
    ['original', 'Original'],
  ];
  const switcher = h(
    'div',
    { class: 'segmented', role: 'group', 'aria-label': 'Show' },
    views.map(([name, label]) =>
      h('button', { type: 'button', class: 'segment', 'aria-pressed': String(showing === name), onclick: () => showing !== name && ctx.act.setState(name, {}, 'crossfade') }, label),
    ),
  );
  const trailing = [barButton('More', () => ctx.act.present('popover', MORE, { navigation: false }), { ariaLabel: 'More actions' })];
  if (showing === 'original') {
    // Each value on its own line, isolated: a sender's text cannot turn its address around.
    const from = p.address ? [isolated(text(p.from)), ' <', isolated(text(p.address)), '>'] : isolated(text(p.from));
    const headers = [['From', from], ['Date', isolated(text(p.date))], ['Subject', isolated(text(p.subject))]];
    const source = [headers.map(([name, value]) => [`${name}: `, value, '\n']), '\n', text(p.body)];
    return { trailing, body: h('div', { class: 'message', dataset: { state: 'original' } }, banner, switcher, h('pre', { class: 'message-source', 'aria-label': 'Original message' }, source)) };
  }
  return {
    trailing,
    body: h(
      'div',
      { class: 'message', dataset: { state: 'formatted' } },
      banner,
      switcher,
      h('div', { class: 'message-head' }, h('strong', {}, text(p.from)), h('span', { class: 'row-meta' }, text(p.date))),
      h('h3', { class: 'message-subject' }, text(p.subject)),
      ...text(p.body).split('\n').map((line) => h('p', {}, line)),
      p.attachment
        ? h(
            'button',
            {
              type: 'button',
              class: 'attachment',
              onclick: () => ctx.act.present('fullScreen', { screen: 'detail', title: screenTitleFrom(p.attachment.name), params: object(p.attachment) ?? {} }),
            },
            h('span', { class: 'attachment-label' }, 'Attachment'),
            h('span', { class: 'attachment-name' }, text(p.attachment.name)),
            p.attachment.size ? h('span', { class: 'row-meta' }, text(p.attachment.size)) : null,
          )
        : null,
      h(
        'div',
        { class: 'button-row' },
        h(
          'button',
          {
            type: 'button',
            class: 'button',
            onclick: () =>
              ctx.act.present('sheet', {
                screen: 'compose',
                title: 'Reply',
                params: { to: text(p.address || p.from), subject: `Re: ${text(p.subject)}` },
              }),
          },
          'Reply',
        ),
      ),
    ),
  };
}

const MORE = {
  screen: 'list',
  title: 'Actions',
  params: {
    items: [
      { title: 'Mark as unread', result: { action: 'unread', label: 'marked as unread' } },
      { title: 'Flag', result: { action: 'flag', label: 'flagged' } },
      { title: 'Move to Archive', result: { action: 'archive', label: 'moved to Archive' } },
    ],
  },
};

const CONTACTS = {
  screen: 'list',
  title: 'Contacts',
  params: {
    items: [
      { title: 'Ada Lovelace', subtitle: 'ada@example.com', result: { to: 'ada@example.com' } },
      { title: 'Grace Hopper', subtitle: 'grace@example.com', result: { to: 'grace@example.com' } },
      { title: 'Alan Turing', subtitle: 'alan@example.com', result: { to: 'alan@example.com' } },
    ],
  },
};

/** The discard-draft question; `demo.js` knows what its answers mean. */
export const DISCARD_ALERT = {
  title: 'Discard draft?',
  message: 'Your message has not been sent.',
  actions: [
    { id: 'discard', title: 'Discard', role: 'destructive' },
    { id: 'keep', title: 'Keep Editing', role: 'cancel' },
  ],
};

function compose(ctx) {
  const p = params(ctx);
  const formID = uniqueID('compose');
  const result = ctx.screen.result;
  // A recipient picked on the contacts screen arrives as this screen's result; a result
  // newer than the last redraw wins over what was typed.
  const picked = result && result.value && typeof result.value.to === 'string' && result.revision !== ctx.previousResultRevision ? result.value.to : null;
  const value = (name, fallback) => (name === 'to' && picked !== null ? picked : ctx.draft.has(name) ? ctx.draft.get(name) : fallback);
  const field = (name, label, control) => h('div', { class: 'compose-field' }, h('label', { for: `${formID}-${name}` }, label), control);
  const form = h(
    'form',
    {
      id: formID,
      class: 'compose',
      onsubmit: (event) => {
        event.preventDefault();
        const data = Object.fromEntries(new FormData(event.target));
        ctx.act.dismiss({ sent: true, to: data.to, subject: data.subject, body: data.body });
      },
    },
    field(
      'to',
      'To',
      h(
        'div',
        { class: 'compose-to' },
        h('input', { id: `${formID}-to`, name: 'to', type: 'email', required: true, autocomplete: 'off', value: value('to', text(p.to)) }),
        h('button', { type: 'button', class: 'bar-button', onclick: () => ctx.act.push(CONTACTS), 'aria-label': 'Choose a recipient' }, 'Contacts'),
      ),
    ),
    field('subject', 'Subject', h('input', { id: `${formID}-subject`, name: 'subject', autocomplete: 'off', value: value('subject', text(p.subject)) })),
    field('body', 'Message', h('textarea', { id: `${formID}-body`, name: 'body', rows: 8, value: value('body', text(p.body)) })),
  );
  const hasDraft = () => [...new FormData(form).values()].some((entry) => String(entry).trim() !== '');
  return {
    leading:
      ctx.isPresentedRoot
        ? [barButton('Cancel', () => (hasDraft() ? ctx.act.alert(DISCARD_ALERT) : ctx.act.dismiss()))]
        : undefined,
    trailing: [h('button', { type: 'submit', form: formID, class: 'bar-button bar-button--strong' }, 'Send')],
    body: form,
  };
}

// --- Generic kinds --------------------------------------------------------------------

/** `params.items`: rows that push (`screen`) or hand a value back (`result`). */
function list(ctx) {
  const items = Array.isArray(params(ctx).items) ? params(ctx).items : [];
  const rows = items.map((item) => {
    const target = item && typeof item.screen === 'string' ? item : null;
    const handsBack = Boolean(object(item)) && 'result' in item;
    const onclick = target
      ? () => ctx.act.push({ screen: target.screen, title: target.title == null ? undefined : screenTitleFrom(target.title), params: object(target.params) ?? {} })
      : handsBack
        ? () => ctx.act.handBack(item.result)
        : null;
    const content = [h('span', { class: 'row-title' }, text(item?.title ?? item)), item?.subtitle ? h('span', { class: 'row-preview' }, text(item.subtitle)) : null];
    return h('li', {}, onclick ? h('button', { type: 'button', class: ['row', target && 'row--chevron'], onclick }, content) : h('div', { class: 'row' }, content));
  });
  return {
    body: h('div', { class: 'list-screen' }, resultBanner(ctx, () => null), h('ul', { class: 'list', 'aria-label': screenTitle(ctx.screen) }, rows)),
  };
}

/**
 * `params.options` (`{title, subtitle?, value}`), `params.selected`: a choice that applies as
 * it is made. Each tap emits its value to the presenting screen and the screen stays up (a
 * result that is a stream of values); Done hands the current one back as the last.
 */
function choices(ctx) {
  const p = params(ctx);
  const options = Array.isArray(p.options) ? p.options : [];
  const current = ctx.emitted !== undefined ? ctx.emitted : p.selected;
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const rows = options.map((option) => {
    const chosen = current !== undefined && same(option?.value, current);
    return h(
      'li',
      {},
      h(
        'button',
        { type: 'button', class: ['row', 'choice', chosen && 'is-chosen'], 'aria-pressed': String(chosen), onclick: option && option.value != null ? () => ctx.act.emit(option.value) : null },
        h('span', { class: 'row-title' }, text(option?.title ?? option)),
        option?.subtitle ? h('span', { class: 'row-preview' }, text(option.subtitle)) : null,
      ),
    );
  });
  const done = () => (ctx.presentation ? ctx.act.dismiss(current === undefined ? undefined : current) : Promise.resolve());
  return {
    leading: [],
    trailing: [barButton('Done', done, { kind: 'strong' })],
    body: h('div', { class: 'list-screen' }, h('ul', { class: 'list', 'aria-label': screenTitle(ctx.screen) }, rows)),
  };
}

/**
 * The input types a form field may ask for: those whose value is text the person types. Any
 * other is drawn as text: a `file` input refuses a value set by script (the draw would throw,
 * and the page stay on the revision before), and `submit`, `reset`, `image` or `hidden` are
 * not fields one fills in.
 */
const TEXT_TYPES = new Set(['text', 'email', 'number', 'password', 'search', 'tel', 'url', 'date', 'time', 'datetime-local', 'month', 'week']);

/** `params.fields` (`{name, label, type?, value?, required?}`): submitting hands the values back. */
function form(ctx) {
  const p = params(ctx);
  // A field without a name has no value to hand back: it is left out, as a null one is.
  const fields = Array.isArray(p.fields) ? p.fields.filter((field) => object(field) && typeof field.name === 'string' && field.name !== '') : [];
  const formID = uniqueID('form');
  const drawn = fields.map((field, index) => {
    // Ids by place, not by name: two fields may share a name, and a name may hold a space.
    const id = `${formID}-${index}`;
    const initial = ctx.draft.has(field.name) ? ctx.draft.get(field.name) : field.value;
    if (field.type === 'checkbox') {
      const input = h('input', { id, name: field.name, type: 'checkbox', checked: initial === true || initial === 'on' });
      return { field, input, element: h('div', { class: 'form-field form-field--check' }, input, h('label', { for: id }, text(field.label || field.name))) };
    }
    const input =
      field.type === 'textarea'
        ? h('textarea', { id, name: field.name, rows: 4, required: field.required, value: text(initial) })
        : h('input', { id, name: field.name, type: TEXT_TYPES.has(field.type) ? field.type : 'text', required: field.required, value: text(initial) });
    return { field, input, element: h('div', { class: 'form-field' }, h('label', { for: id }, text(field.label || field.name)), input) };
  });
  const element = h(
    'form',
    {
      id: formID,
      class: 'form',
      onsubmit: (event) => {
        event.preventDefault();
        // Each value is read from the control drawn for its field: looked up by name in the
        // form's elements, a name such as "0" or "length" found another control or none.
        const values = {};
        for (const { field, input } of drawn) {
          values[field.name] = field.type === 'checkbox' ? input.checked : field.type === 'number' ? Number(input.value) : input.value;
        }
        ctx.act.handBack(p.result && typeof p.result === 'object' ? { ...p.result, values } : values);
      },
    },
    resultBanner(ctx, () => null),
    drawn.map(({ element: field }) => field),
    h('button', { type: 'submit', class: 'button button--primary' }, text(p.submit || 'Done')),
  );
  return { trailing: [h('button', { type: 'submit', form: formID, class: 'bar-button bar-button--strong' }, text(p.submit || 'Done'))], body: element };
}

/** A detail view: a heading, text, then every other param as a labelled value. */
function detail(ctx) {
  const p = params(ctx);
  const { heading, body, ...rest } = p;
  return {
    body: h(
      'div',
      { class: 'detail' },
      resultBanner(ctx, () => null),
      heading ? h('h3', {}, text(heading)) : null,
      body ? text(body).split('\n').map((line) => h('p', {}, line)) : null,
      Object.keys(rest).length ? keyValueList(rest) : null,
    ),
  };
}

/** Any other kind: its params, as they are. */
function keyValue(ctx) {
  const p = params(ctx);
  return {
    body: h(
      'div',
      { class: 'key-value' },
      resultBanner(ctx, () => null),
      h('p', { class: 'kind-label' }, 'Screen “', isolated(ctx.screen.screen), '”'),
      Object.keys(p).length ? keyValueList(p) : h('p', { class: 'empty' }, 'No parameters.'),
    ),
  };
}

function keyValueList(object) {
  return h(
    'dl',
    { class: 'kv' },
    Object.entries(object).map(([key, value]) => [
      h('dt', {}, key),
      h('dd', {}, value !== null && typeof value === 'object' ? h('pre', {}, JSON.stringify(value, null, 2)) : text(value)),
    ]),
  );
}
