// The messages demo's screens: an inbox, a message (with its two states), a compose sheet,
// and the popovers, lists and alert they present.
import { h, isolated, uniqueID } from './dom.js';
import { params, object, text, screenTitleFrom, barButton, resultBanner } from './screen-parts.js';

export function inbox(ctx) {
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
export function message(ctx) {
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
const DISCARD_ALERT = {
  title: 'Discard draft?',
  message: 'Your message has not been sent.',
  actions: [
    { id: 'discard', title: 'Discard', role: 'destructive' },
    { id: 'keep', title: 'Keep Editing', role: 'cancel' },
  ],
};

export function compose(ctx) {
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
