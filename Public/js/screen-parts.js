// The pieces every kind of screen is drawn with: its params read safely, text from any JSON
// value, titles cut to what the server takes, bar buttons, and the banner of a handed-back result.
import { h, isolated } from './dom.js';

export function params(ctx) {
  const value = ctx.screen.params;
  return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

/** `value` when it is a JSON object (not null, not an array), else null. */
export function object(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
}

export function text(value) {
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
export function screenTitleFrom(value) {
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

export function barButton(label, onclick, { ariaLabel, kind } = {}) {
  return h('button', { type: 'button', class: ['bar-button', kind && `bar-button--${kind}`], onclick, 'aria-label': ariaLabel }, label);
}

/**
 * The last result handed to this screen, shown the way the screen understands it: `describe`
 * answers a sentence (pieces for `h()`, the value's text isolated in it), or null for the
 * value as JSON.
 */
export function resultBanner(ctx, describe) {
  const result = ctx.screen.result;
  if (!result) return null;
  const description = describe(result.value) ?? [`Result from ${result.from}: `, isolated(JSON.stringify(result.value))];
  // Not a live region itself: one inserted with its words is not read out. The device writes
  // a new result's banner into its one announcer (device-announcer.js, announceResult).
  return h('p', { class: 'result-banner', dataset: { from: result.from, revision: result.revision } }, description);
}
