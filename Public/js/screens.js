// What each kind of screen looks like, drawn from its `params` (and its `result`, the
// last value handed back to it). Templates only describe; every tap calls `ctx.act`,
// which asks the server, and the page redraws from the server's answer.
import { inbox, message, compose } from './demo-screens.js';
import { list, choices, form, detail, keyValue } from './generic-screens.js';

/**
 * A template gets `ctx`:
 *   screen, index, stack, presentation (null on the root stack), canGoBack, isPresentedRoot,
 *   canHandBack (false on the root stack's first screen: nothing is under it or presented it),
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
