// How screens and layers come and go: a class that runs a CSS animation, none for people
// who ask for reduced motion.
import { prefersReducedMotion } from './dom.js';

/** How long a leaving screen or layer stays for its animation (the CSS runs shorter). */
const LEAVE_MS = 450;

export function animate(element, name) {
  if (prefersReducedMotion()) return;
  element.classList.add(`anim-${name}`);
  setTimeout(() => element.classList.remove(`anim-${name}`), LEAVE_MS);
}

export function leave(element, name) {
  element.classList.add('is-leaving');
  element.inert = true;
  element.setAttribute('aria-hidden', 'true');
  if (prefersReducedMotion()) {
    element.remove();
    return;
  }
  element.classList.add(`anim-${name}`);
  setTimeout(() => element.remove(), LEAVE_MS);
}
