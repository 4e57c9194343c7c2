// Where the focus goes as the device redraws, as on a phone: into a presentation that
// appears, back to what opened it when it goes, back to the control that pushed a screen
// when a pop shows that screen again; and Escape, which cancels what is presented.
import { focusable } from './dom.js';
import { layers } from './tree.js';
import { cancelAction } from './alert.js';

/** What an element is, across redraws: its tag, name, label and text. */
export function elementKey(element) {
  return [element.tagName, element.getAttribute('name'), element.getAttribute('aria-label'), element.textContent.trim()].join('|');
}

export function findByKey(root, key) {
  return [...root.querySelectorAll('button, input, textarea, select, a, [tabindex]')].find((element) => elementKey(element) === key) || null;
}

export function moveFocus(view, wanted, appeared, hadFocus) {
  const top = wanted[wanted.length - 1];
  const topElement = view.layerElement(top.key);
  const topScreen = top.stack ? top.stack.path[top.stack.path.length - 1].id : null;
  const previousKey = view.topKey;
  const previousScreen = view.topScreenID;
  view.topKey = top.key;
  view.topScreenID = topScreen;
  if (!topElement) return;
  const closed = top.key !== previousKey && previousKey && !wanted.some((layer) => layer.key === previousKey);
  const opener = closed ? view.openers.get(previousKey) : null;
  for (const key of [...view.openers.keys()]) if (!wanted.some((layer) => layer.key === key)) view.openers.delete(key);
  // The top screen is shown (again): what pushed from it is spent. Screens no longer in any
  // stack will not be shown again.
  const pusher = view.pushers.get(topScreen);
  view.pushers.delete(topScreen);
  const shown = new Set(wanted.flatMap((layer) => (layer.stack ? layer.stack.path.map((item) => item.id) : [])));
  for (const id of [...view.pushers.keys()]) if (!shown.has(id)) view.pushers.delete(id);
  // Focus elsewhere on the page (the inspector, the open form) stays where the person put
  // it: a change made on another device does not take it away mid-word.
  if (!hadFocus) return;
  if (top.key !== previousKey && appeared.has(top.key) && top.presentation) {
    // A presentation appeared: focus moves into it, and comes back when it goes.
    view.openers.set(top.key, document.activeElement);
    focusInside(topElement, top);
    return;
  }
  if (closed) {
    // An opener that is the page's body (the focus was nowhere when the presentation came)
    // takes no focus: "returning" there would leave the person nowhere.
    if (opener && opener !== document.body && opener.isConnected && !opener.closest('[inert]')) opener.focus();
    else focusTitle(topElement);
    return;
  }
  const focusLost = document.activeElement === document.body || !document.activeElement || document.activeElement.closest('[inert]');
  if (topScreen !== previousScreen && focusLost && previousScreen !== null) {
    // After a pop, the control that pushed the popped screen, if it is still there.
    const control = pusher && findByKey(topElement.querySelector('.screen:not(.is-leaving)'), pusher);
    if (control) control.focus();
    else focusTitle(topElement);
  }
}

function focusInside(element, layer) {
  if (layer.presentation.style === 'alert') {
    const field = element.querySelector('input');
    const cancel = cancelAction(layer.presentation);
    const button = cancel ? element.querySelector(`[data-action="${CSS.escape(cancel.id)}"]`) : null;
    (field || button || focusable(element)[0])?.focus();
    return;
  }
  const screen = element.querySelector('.screen:not(.is-leaving)');
  const control = screen?.querySelector('.screen-body input, .screen-body textarea, .screen-body select');
  if (control) control.focus();
  else focusTitle(element);
}

function focusTitle(element) {
  const title = element.querySelector('.screen:not(.is-leaving) .nav-title');
  if (title) title.focus({ preventScroll: true });
}

/** Escape cancels a sheet or popover (no result), and answers an alert with its cancel action. */
export function onKeyDown(view, event) {
  if (event.key !== 'Escape' || event.defaultPrevented || !view.session) return;
  const target = event.target;
  if (target !== document.body && !view.container.contains(target)) return;
  const top = layers(view.session).at(-1);
  if (!top.presentation) return;
  const style = top.presentation.style;
  if (style === 'sheet' || style === 'popover') {
    event.preventDefault();
    view.actions.cancel(top);
  } else if (style === 'alert') {
    // The same as pressing the cancel action, fields and all.
    const cancel = cancelAction(top.presentation);
    const button = cancel && view.layerElement(top.key)?.querySelector(`[data-action="${CSS.escape(cancel.id)}"]`);
    if (!button) return;
    event.preventDefault();
    button.click();
  }
}
