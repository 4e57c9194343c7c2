// Draws a session as a phone would show it: the top screen of each stack, presentations
// over it by style, an alert on top. Redraws are keyed by id, so a screen that did not
// change keeps its DOM (and what was typed into it), and changes animate: a push slides
// in, a pop slides out, a sheet rises. Nothing here changes state: every tap goes to
// `actions`, which asks the server.
import { h, uniqueID } from './dom.js';
import { findScreen, layers, screenTitle } from './tree.js';
import { renderScreen } from './screens.js';
import { renderAlert } from './alert.js';
import { elementKey, findByKey, moveFocus, onKeyDown } from './device-focus.js';
import { announce, announceResult } from './device-announcer.js';
import { animate, leave } from './device-motion.js';
import { enableSwipe } from './sheet-swipe.js';

export class DeviceView {
  /**
   * @param {HTMLElement} container the device's screen area
   * @param {HTMLElement} announcer a live region (role=status) that is always in the page
   * @param {object} actions
   *   perform(operation, body) -> Promise: one operation, from the device;
   *   answerAlert(layer, actionID, fields) -> Promise;
   *   cancel(layer) -> Promise: dismiss a presentation without a result.
   */
  constructor(container, announcer, actions) {
    this.container = container;
    this.announcer = announcer;
    /** The pending write into the announcer (see announce). */
    this.announcing = null;
    this.actions = actions;
    this.session = null;
    this.topKey = null;
    this.topScreenID = null;
    /** Stack id -> the screen ids last drawn, to tell a push from a pop. */
    this.paths = new Map();
    /** Presentation id -> the element that had focus when it appeared. */
    this.openers = new Map();
    /**
     * Screen id -> what the control that pushed a screen over it is (elementKey): when a pop
     * shows that screen again, the focus goes back to that control, as VoiceOver does on iOS,
     * not to the title, which would send a keyboard or screen reader user back to the top of
     * a list they were working down. A key, not the element: the covered screen's DOM is
     * dropped, and drawn anew when it comes back.
     */
    this.pushers = new Map();
    /** Screen id -> how its next change of state is shown (a `state-set` event's transition). */
    this.transitions = new Map();
    /**
     * Screen id -> what was typed into a screen a push covered (see readDraft). Its DOM is
     * dropped and drawn anew when a pop shows it again: a compose screen left for Contacts came
     * back empty but for the recipient picked there.
     */
    this.drafts = new Map();
    document.addEventListener('keydown', (event) => onKeyDown(this, event));
  }

  /** Shows a message instead of a session. */
  clear(message) {
    // The focus on a control of the tree (a row pressed from the keyboard whose tap learnt
    // that the token was replaced, a session deleted from elsewhere) fell with the tree to the
    // page's body, leaving a keyboard or screen reader user nowhere: it goes to the message
    // that takes the tree's place. Focus elsewhere on the page stays where it is.
    const hadFocus = this.container.contains(document.activeElement);
    this.session = null;
    this.topKey = null;
    this.paths.clear();
    this.pushers.clear();
    this.drafts.clear();
    announce(this, null);
    const text = h('p', { tabindex: '-1' }, message);
    this.container.replaceChildren(h('div', { class: 'device-empty' }, text));
    if (hadFocus) text.focus({ preventScroll: true });
  }

  render(session) {
    // The revision drawn before this one; none when the session is drawn for the first time.
    const before = this.session ? this.session.revision : null;
    const hadFocus = this.container.contains(document.activeElement) || document.activeElement === document.body;
    const focused = document.activeElement;
    if (!this.session) this.container.replaceChildren();
    this.session = session;
    const wanted = layers(session);
    const existing = new Map();
    for (const element of this.container.children) {
      if (element.dataset.layer && !element.classList.contains('is-leaving')) existing.set(element.dataset.layer, element);
    }
    const appeared = new Set();
    let previous = null;
    wanted.forEach((layer, depth) => {
      let element = existing.get(layer.key);
      existing.delete(layer.key);
      if (!element) {
        element = this.createLayer(layer);
        appeared.add(layer.key);
        if (previous) previous.after(element);
        else this.container.prepend(element);
        if (layer.presentation && layer.presentation.style === 'popover') this.anchor(element, focused);
        if (layer.presentation) animate(element, 'enter');
      }
      const above = wanted[depth + 1];
      this.updateLayer(element, layer, { isTop: depth === wanted.length - 1, coveredBy: above ? above.presentation.style : null });
      previous = element;
    });
    for (const element of existing.values()) leave(element, 'leave');
    // A screen no longer in any stack (popped, replaced, dismissed with its presentation) will not be shown again.
    const kept = new Set(wanted.flatMap((layer) => (layer.stack ? layer.stack.path.map((item) => item.id) : [])));
    for (const id of [...this.drafts.keys()]) if (!kept.has(id)) this.drafts.delete(id);
    moveFocus(this, wanted, appeared, hadFocus);
    announceResult(this, before);
  }

  // --- Layers -------------------------------------------------------------------------

  createLayer(layer) {
    if (!layer.presentation) {
      return h('section', { class: 'layer layer--root', dataset: { layer: 'root' }, 'aria-label': 'App' }, h('div', { class: 'stack' }));
    }
    const presentation = layer.presentation;
    const style = presentation.style;
    const backdrop = h('div', { class: 'backdrop', 'aria-hidden': 'true' });
    if (style === 'popover') backdrop.addEventListener('click', () => this.actions.cancel(layer));
    const attributes = { class: `layer presentation presentation--${style}`, dataset: { layer: presentation.id, style } };
    if (style === 'alert') {
      const dialog = renderAlert(presentation, (actionID, fields) => this.actions.answerAlert(layer, actionID, fields));
      return h('div', attributes, backdrop, h('div', { class: 'alert-frame' }, dialog));
    }
    // A dialog, not aria-modal: the layers below it are `inert` (modal to the device, for
    // everyone), but the inspector beside the device stays usable on purpose, and the focus is
    // not trapped. aria-modal would tell a screen reader otherwise, and VoiceOver would hide
    // the inspector that keyboard and mouse users can still reach.
    const panel = h(
      'section',
      { class: 'panel', role: 'dialog', tabindex: '-1' },
      style === 'sheet' ? h('div', { class: 'grabber', 'aria-hidden': 'true' }) : null,
      style === 'popover' ? h('div', { class: 'popover-arrow', 'aria-hidden': 'true' }) : null,
      h('div', { class: 'stack' }),
    );
    if (style === 'sheet') enableSwipe(panel, () => this.actions.cancel(layer));
    return h('div', attributes, backdrop, panel);
  }

  updateLayer(element, layer, { isTop, coveredBy }) {
    element.inert = !isTop;
    element.classList.toggle('is-top', isTop);
    if (coveredBy) element.dataset.coveredBy = coveredBy;
    else delete element.dataset.coveredBy;
    if (!layer.stack) return;
    const stack = element.querySelector('.stack');
    const screen = this.updateStack(stack, layer);
    const panel = element.querySelector(':scope > .panel');
    const title = screen.querySelector('.nav-title');
    if (panel && title) panel.setAttribute('aria-labelledby', title.id);
  }

  /**
   * Points a popover at the control that asked for it (the one with focus: a tapped button
   * takes it); one presented from elsewhere, such as curl, hangs from the top right.
   */
  anchor(element, control) {
    if (!control || !this.container.contains(control) || control === this.container) return;
    const area = this.container.getBoundingClientRect();
    const target = control.getBoundingClientRect();
    // As wide as the CSS draws it: 270 px, less on a device narrower than that and its margins.
    const margin = 10;
    const width = Math.min(270, area.width - 2 * margin);
    const center = target.left + target.width / 2 - area.left;
    const left = Math.min(Math.max(center - width / 2, margin), area.width - width - margin);
    element.style.setProperty('--popover-top', `${Math.round(target.bottom - area.top + 10)}px`);
    element.style.setProperty('--popover-left', `${Math.round(left)}px`);
    // The arrow stays on the panel's straight edge, clear of its rounded corners.
    element.style.setProperty('--arrow-left', `${Math.round(Math.min(Math.max(center - left - 9, 14), width - 32))}px`);
  }

  // --- Stacks and screens -------------------------------------------------------------

  /** Shows the stack's top screen, animating from what was there; answers its element. */
  updateStack(element, layer) {
    const stack = layer.stack;
    const index = stack.path.length - 1;
    const top = stack.path[index];
    const current = [...element.children].find((child) => !child.classList.contains('is-leaving'));
    let screen = current;
    if (!current || current.dataset.screen !== top.id) {
      let direction = null;
      if (current) {
        const before = this.paths.get(stack.id) || [];
        if (element.dataset.stack !== stack.id) direction = 'replace';
        else if (stack.path.some((item) => item.id === current.dataset.screen)) direction = 'push';
        else if (before.includes(top.id)) direction = 'pop';
        else direction = 'replace';
      }
      // A push covers `current`: the control in it that has the focus (a tapped or pressed
      // row takes it) is what the focus returns to when a pop shows this screen again.
      if (direction === 'push' && current.contains(document.activeElement)) this.pushers.set(current.dataset.screen, elementKey(document.activeElement));
      if (direction === 'push') this.drafts.set(current.dataset.screen, readDraft(current));
      screen = h('article', { class: 'screen', dataset: { screen: top.id, kind: top.screen } });
      this.fillScreen(screen, layer, index);
      if (direction === 'pop') element.insertBefore(screen, current);
      else element.append(screen);
      if (current) leave(current, direction === 'push' ? 'push-out' : direction === 'pop' ? 'pop-out' : 'fade-out');
      if (direction) animate(screen, direction === 'push' ? 'push-in' : direction === 'pop' ? 'pop-in' : 'fade-in');
    } else {
      this.fillScreen(screen, layer, index);
    }
    element.dataset.stack = stack.id;
    this.paths.set(stack.id, stack.path.map((item) => item.id));
    return screen;
  }

  /** (Re)draws one screen when anything it shows has changed, keeping typed values and focus. */
  fillScreen(element, layer, index) {
    const stack = layer.stack;
    const screen = stack.path[index];
    const presentation = layer.presentation;
    const below = index > 0 ? stack.path[index - 1] : null;
    const emitted = presentation ? this.lastEmitted(presentation) : undefined;
    const signature = JSON.stringify([screen, index, below && screenTitle(below), presentation && presentation.id, presentation && presentation.navigation, emitted]);
    if (element.dataset.signature === signature) return;

    // A screen drawn anew after a pop gets back what was typed into it before the push.
    const draft = element.dataset.signature === undefined && this.drafts.has(screen.id) ? this.drafts.get(screen.id) : readDraft(element);
    this.drafts.delete(screen.id);
    // Redrawing replaces the elements: what had focus, and the openers of presentations
    // above this screen, are found again in the new ones by what they are.
    const focusedKey = element.contains(document.activeElement) ? elementKey(document.activeElement) : null;
    const openers = [...this.openers].filter(([, opener]) => element.contains(opener)).map(([id, opener]) => [id, elementKey(opener)]);
    const isPresentedRoot = index === 0 && Boolean(presentation);
    const ctx = {
      screen,
      index,
      stack,
      presentation,
      canGoBack: index > 0,
      isPresentedRoot,
      // The root stack's first screen has no one to hand a value back to: handBack can do nothing there.
      canHandBack: index > 0 || Boolean(presentation),
      draft,
      previousResultRevision: element.dataset.resultRevision ? Number(element.dataset.resultRevision) : undefined,
      emitted,
      act: this.screenActions(screen, layer, index),
    };
    const view = renderScreen(ctx);
    const titleID = uniqueID('screen-title');
    const title = h('h2', { class: 'nav-title', id: titleID, tabindex: '-1' }, screenTitle(screen));
    let leading = view.leading;
    if (!leading) {
      if (below) {
        // The name joins the page's words and a client's title in an attribute, which no
        // element can isolate. It is safe because the title comes last: a bidi control in it
        // (an override, an embedding, an isolate) acts only on the text after it in the same
        // paragraph, and there is none; "Back" fixes the name's direction as left to right.
        // Visible text (a hidden "Back to " and a <bdi>) would give the same name: Chromium
        // carries no isolation into it (test_bidi.py). Words after the title would need it.
        leading = [h('button', { type: 'button', class: 'bar-button back-button', 'aria-label': `Back to ${screenTitle(below)}`, onclick: () => ctx.act.pop() }, h('span', { class: 'chevron', 'aria-hidden': 'true' }, '‹'), h('span', { class: 'back-label' }, screenTitle(below)))];
      } else if (isPresentedRoot && presentation.style !== 'popover') {
        leading = [h('button', { type: 'button', class: 'bar-button', onclick: () => this.actions.cancel(layer) }, presentation.style === 'sheet' ? 'Cancel' : 'Close')];
      } else {
        leading = [];
      }
    }
    const showBar = !(presentation && presentation.navigation === false);
    const bar = showBar
      ? h('header', { class: 'nav-bar' }, h('div', { class: 'nav-leading' }, leading), title, h('div', { class: 'nav-trailing' }, view.trailing || []))
      : h('header', { class: 'nav-bar nav-bar--bare' }, h('div', { class: 'nav-leading' }, presentation.style === 'popover' ? [] : leading), title, h('div', { class: 'nav-trailing' }));
    const body = h('div', { class: 'screen-body' }, view.body);
    element.replaceChildren(bar, body);
    // A new state on the same screen: its content changes in place, shown as the change's
    // transition asks (`automatic` is a crossfade here; `none` is at once).
    const stateName = screen.state ? screen.state.name : '';
    if (element.dataset.state !== undefined && element.dataset.state !== stateName) {
      const transition = this.transitions.get(screen.id) || 'automatic';
      element.dataset.transition = transition;
      if (transition !== 'none') animate(body, 'fade-in');
    }
    this.transitions.delete(screen.id);
    element.dataset.state = stateName;
    element.setAttribute('aria-labelledby', titleID);
    element.dataset.signature = signature;
    element.dataset.resultRevision = screen.result ? String(screen.result.revision) : '';
    for (const [id, key] of openers) {
      const again = findByKey(element, key);
      if (again) this.openers.set(id, again);
    }
    if (focusedKey) findByKey(element, focusedKey)?.focus();
  }

  /** How screen `id`'s next change of state should be shown: from a `state-set` event, or a tap here. */
  noteTransition(id, transition) {
    this.transitions.set(id, transition || 'automatic');
  }

  /**
   * The last value `presentation` emitted while open (`POST …/emit`), which the server keeps as
   * its presenter's result; undefined when the presenter's result came from elsewhere.
   */
  lastEmitted(presentation) {
    const presenter = findScreen(this.session, presentation.presentedBy);
    const result = presenter && presenter.screen.result;
    return result && result.from === presentation.id ? result.value : undefined;
  }

  /** What a screen's buttons may ask for; each names the screen as `from`, so a stale tap is refused. */
  screenActions(screen, layer, index) {
    const from = screen.id;
    const perform = (operation, body) => this.actions.perform(operation, { ...body, from });
    const presentationID = layer.presentation ? layer.presentation.id : undefined;
    const act = {
      push: (spec) => perform('push', spec),
      pop: (result) => perform('pop', result === undefined ? {} : { result }),
      present: (style, spec, { navigation } = {}) => perform('present', { style, ...spec, ...(navigation === undefined ? {} : { navigation }) }),
      alert: (alert) => perform('present', { style: 'alert', alert }),
      dismiss: (result) => perform('dismiss', { presentation: presentationID, ...(result === undefined ? {} : { result }) }),
      emit: (result) => perform('emit', { presentation: presentationID, result }),
      setState: (name, params = {}, transition) => {
        this.noteTransition(from, transition);
        // Once the tap is answered its hint is spent: drawing the change used it. A tap that
        // failed or was dropped changed nothing, and its hint must not show a change learnt
        // later by reading the session, whose transition the page does not know.
        return perform('set-state', { state: name, params, ...(transition ? { transition } : {}) })
          .finally(() => this.transitions.delete(from));
      },
      handBack: (result) => (index > 0 ? act.pop(result) : presentationID ? act.dismiss(result) : Promise.resolve()),
    };
    return act;
  }

  /** The element of layer `key` as drawn, not one leaving. */
  layerElement(key) {
    return [...this.container.children].find((element) => element.dataset.layer === key && !element.classList.contains('is-leaving'));
  }
}

/** What was typed into a screen's fields, by name: kept across a redraw (and a push and pop). */
function readDraft(element) {
  const draft = new Map();
  for (const control of element.querySelectorAll('input[name], textarea[name], select[name]')) {
    draft.set(control.name, control.type === 'checkbox' ? control.checked : control.value);
  }
  return draft;
}
