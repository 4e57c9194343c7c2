// A small element builder: the page is built with DOM calls, never from HTML strings,
// so no text from the server can become markup.

/**
 * `h('button', {class: 'row', onclick: f, 'aria-label': 'Back'}, 'text', child)`.
 * Attributes whose value is null, undefined or false are left out; `true` sets them empty.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'class') {
      element.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
    } else if (name === 'dataset') {
      Object.assign(element.dataset, value);
    } else if (name === 'value' && 'value' in element) {
      element.value = value;
    } else if (name === 'checked') {
      element.checked = Boolean(value);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(element, child);
    else element.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces what `element` holds with `children`, taken as `h()` takes them. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

/**
 * Text a client wrote (a name, a title, a value), set inside one of the page's own sentences.
 * It may hold bidi controls (a right-to-left override, U+202E): in a `<bdi>` they reorder only
 * that text, not the page's words after it. An element, not isolation marks (U+2068/U+2069)
 * around the text: those would be in what is copied, and in the sentence's textContent.
 */
export function isolated(text) {
  return h('bdi', {}, String(text));
}

let counter = 0;
/** A page-unique id for aria-labelledby and label/for pairs. */
export function uniqueID(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** The elements inside `root` that the keyboard can reach, in order. */
export function focusable(root) {
  const selector = 'button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])';
  return [...root.querySelectorAll(selector)].filter((element) => !element.disabled && !element.closest('[inert]'));
}

/** Whether the person asked for less motion; read each time, as it can change. */
export function prefersReducedMotion() {
  return matchMedia('(prefers-reduced-motion: reduce)').matches;
}
