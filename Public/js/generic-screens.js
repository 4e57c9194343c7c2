// The generic kinds of screen, which any client may push: a list, choices, a form, a detail
// view, and any other kind drawn as its params.
import { h, isolated, uniqueID } from './dom.js';
import { screenTitle } from './tree.js';
import { params, object, text, screenTitleFrom, barButton, resultBanner } from './screen-parts.js';

/** `params.items`: rows that push (`screen`) or hand a value back (`result`). */
export function list(ctx) {
  const items = Array.isArray(params(ctx).items) ? params(ctx).items : [];
  const rows = items.map((item) => {
    const target = item && typeof item.screen === 'string' ? item : null;
    // A row that hands back where nothing can take it would be a button that does nothing.
    const handsBack = ctx.canHandBack && Boolean(object(item)) && 'result' in item;
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
export function choices(ctx) {
  const p = params(ctx);
  const options = Array.isArray(p.options) ? p.options : [];
  const current = ctx.emitted !== undefined ? ctx.emitted : p.selected;
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const rows = options.map((option) => {
    const chosen = current !== undefined && same(option?.value, current);
    // An option without a value (null, or none) can never be chosen: `emit` refuses a null
    // result (docs/api.md). It stays a toggle, so that it can still read as the chosen one
    // (`selected: null`), but says it is unavailable instead of being a tap that does nothing.
    // Nor can any outside a presentation: a choice is emitted by the presentation the screen
    // is in, and on the root stack every tap was refused 409 `nothing_presented`.
    const choosable = Boolean(ctx.presentation) && Boolean(option) && option.value != null;
    return h(
      'li',
      {},
      h(
        'button',
        {
          type: 'button',
          class: ['row', 'choice', chosen && 'is-chosen'],
          'aria-pressed': String(chosen),
          'aria-disabled': choosable ? undefined : 'true',
          onclick: choosable ? () => ctx.act.emit(option.value) : null,
        },
        h('span', { class: 'row-title' }, text(option?.title ?? option)),
        option?.subtitle ? h('span', { class: 'row-preview' }, text(option.subtitle)) : null,
      ),
    );
  });
  const done = () => ctx.act.dismiss(current === undefined ? undefined : current);
  return {
    leading: [],
    // Done closes the presentation; on the root stack there is none, and no Done.
    trailing: ctx.presentation ? [barButton('Done', done, { kind: 'strong' })] : [],
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
export function form(ctx) {
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
        : h('input', {
          id, name: field.name, type: TEXT_TYPES.has(field.type) ? field.type : 'text', required: field.required, value: text(initial),
          // A number input steps by 1 unless told: the browser refused to submit 1.5.
          step: field.type === 'number' ? 'any' : undefined,
        });
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
        // Gathered as entries: assigned into a plain object, a field named "__proto__" set
        // its prototype and its value was lost (a later field of the same name still wins).
        const values = Object.fromEntries(drawn.map(({ field, input }) => [field.name, fieldValue(field, input)]));
        ctx.act.handBack(p.result && typeof p.result === 'object' ? { ...p.result, values } : values);
      },
    },
    resultBanner(ctx, () => null),
    drawn.map(({ element: field }) => field),
    // Submitting hands the values back: where nothing can take them, there is no submit.
    ctx.canHandBack ? h('button', { type: 'submit', class: 'button button--primary' }, text(p.submit || 'Done')) : null,
  );
  const trailing = ctx.canHandBack ? [h('button', { type: 'submit', form: formID, class: 'bar-button bar-button--strong' }, text(p.submit || 'Done'))] : [];
  return { trailing, body: element };
}

/**
 * What a field hands back. A number field left empty is null, not `Number('')`, which is 0:
 * the presenter could not tell it from a 0 typed. (Null inside the values is kept: only a
 * whole result of null means none, docs/api.md.) The browser refuses to submit text that is
 * not a number, and an empty required field, before this is read.
 */
function fieldValue(field, input) {
  if (field.type === 'checkbox') return input.checked;
  if (field.type === 'number') return input.value === '' ? null : Number(input.value);
  return input.value;
}

/** A detail view: a heading, text, then every other param as a labelled value. */
export function detail(ctx) {
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
export function keyValue(ctx) {
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
