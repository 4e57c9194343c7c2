// The page's one notice: what the person should know of a request that failed or a session
// that ended, and where the focus goes back to when they dismiss it.
import { fill } from './dom.js';

export class Notice {
  /**
   * `element` holds `text` and the `close` button; `fallback` takes the focus on dismissal
   * when what had it before is gone.
   */
  constructor(element, text, close, fallback) {
    this.element = element;
    this.text = text;
    this.fallback = fallback;
    /**
     * What had the focus when the notice was shown (the control whose request it reports,
     * most often): where the focus goes back to when the person dismisses the notice.
     */
    this.opener = null;
    /**
     * The notice says the server cannot be reached (a tap made while offline): words about
     * now, which the stream's coming back live makes false; it goes then (`live`).
     */
    this.untilLive = false;
    close.addEventListener('click', () => this.clear());
  }

  /**
   * `text`: a string, or pieces for `h()`, where what a client wrote is isolated (dom.js).
   * `untilLive`: the notice says only that the server cannot be reached.
   */
  show(text, kind = 'error', { untilLive = false } = {}) {
    this.untilLive = untilLive;
    const active = document.activeElement;
    if (!this.element.contains(active)) this.opener = active && active !== document.body ? active : null;
    this.element.hidden = false;
    this.element.dataset.kind = kind;
    fill(this.text, text);
  }

  clear() {
    // Hidden with the focus on its ×, the notice dropped the focus to the page's body, leaving
    // a keyboard or screen reader user who dismissed it nowhere.
    const hadFocus = this.element.contains(document.activeElement);
    this.untilLive = false;
    this.element.hidden = true;
    this.text.textContent = '';
    const opener = this.opener;
    this.opener = null;
    if (!hadFocus) return;
    if (opener && opener.isConnected && !opener.closest('[inert]') && opener.checkVisibility()) opener.focus();
    else this.fallback.focus({ preventScroll: true });
  }

  /**
   * The server is reached again, and the stream brings the session as it stands: "The server
   * cannot be reached" beside "Live" was false, and the tree shows whether the tap was made.
   */
  live() {
    if (this.untilLive) this.clear();
  }
}
