// Follows a session's Server-Sent Events, which include the session itself after each
// revision's events (and first, as it stands): the page draws from them with no read of
// its own. A dropped stream is resumed by the browser
// itself, which sends `Last-Event-ID` (the server's `retry:` sets the delay); a stream
// the server refused (EventSource gives up on a non-200 answer) is reopened here, with
// backoff, after asking the page to resynchronise.
import { requestTimeout } from './api.js';

const RETRY_DELAYS_MS = [500, 1000, 2000, 4000, 8000];
/**
 * A stream can go silent without closing (a half-open connection: a laptop asleep, a NAT
 * that forgot it), and EventSource never shows the server's `: keep-alive` comments. After
 * this long without a message the page asks the server, with one cheap read of the events,
 * whether it missed a revision; if the stream has not brought it a moment later, the stream
 * is dead and is reopened.
 */
let idleCheckMS = 25000;
const CATCH_UP_MS = 2000;

/** Sets how long a silent stream waits for its check (the page's `?stream-idle=SECONDS`). */
export function setIdleCheck(milliseconds) {
  if (Number.isFinite(milliseconds) && milliseconds > 0) idleCheckMS = milliseconds;
}

export class LiveStream {
  /**
   * @param {import('./api.js').SessionAPI} api
   * @param {object} handlers
   *   onEvent(event): one event, in order;
   *   onSession(session): the session as it stands after the events of its revision;
   *   onStatus('connecting' | 'live' | 'reconnecting' | 'offline' | 'gone' | 'refused'): the
   *     last two when the server ended the stream for good (`deleted`, `revoked`);
   *   resync(lastRevision) -> Promise<revision>: called before reopening a refused stream,
   *     answers the revision to continue after; a thrown error with `stop` ends the stream.
   */
  constructor(api, { onEvent, onSession, onStatus, resync }) {
    this.api = api;
    this.onEvent = onEvent;
    this.onSession = onSession;
    this.onStatus = onStatus;
    this.resync = resync;
    this.source = null;
    this.lastRevision = 0;
    this.failures = 0;
    this.timer = null;
    this.idle = null;
    this.opening = null;
    this.stopped = false;
  }

  /** Opens the stream with the events after `revision`. */
  start(revision) {
    this.lastRevision = revision;
    this.open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.idle);
    clearTimeout(this.opening);
    this.source?.close();
    this.source = null;
  }

  open() {
    if (this.stopped) return;
    // A retry after a failure leaves the page saying Offline until the stream opens.
    if (this.failures === 0) this.onStatus('connecting');
    const source = new EventSource(this.api.streamURL(this.lastRevision));
    this.source = source;
    this.awaitOpen(source);
    source.onopen = () => {
      clearTimeout(this.opening);
      this.failures = 0;
      this.onStatus('live');
      this.watch(source);
    };
    source.onmessage = (message) => this.receive(message, this.onEvent);
    source.addEventListener('session', (message) => this.receive(message, this.onSession));
    // The stream fell behind the kept history: events through `revision` were skipped (the
    // session that follows is whole). Shown as an event of its own, for the log.
    // A reset names where the stream goes on from, even below what it had: the server lost
    // revisions the page saw (a backup restored), and its revision is the one to follow.
    source.addEventListener('reset', (message) => this.receive(message, (value) => {
      if (Number.isInteger(value.revision)) this.lastRevision = value.revision;
      this.onEvent({ type: 'reset', revision: value.revision });
    }));
    // The stream's last word: the session is gone, or its token was replaced. Either way
    // reconnecting cannot help (docs/clients.md): stop. Not said to be offline: the server
    // answered, and the network is not what the person should look at.
    for (const [type, status] of [['deleted', 'gone'], ['revoked', 'refused']]) {
      source.addEventListener(type, () => {
        this.stop();
        this.onStatus(status);
        this.onEvent({ type });
      });
    }
    source.onerror = () => {
      if (this.source !== source) return;
      if (source.readyState === EventSource.CONNECTING) {
        // The browser is already retrying, with Last-Event-ID.
        this.onStatus('reconnecting');
        return;
      }
      this.fail(source);
    };
  }

  /**
   * EventSource has no timeout: a server that takes the request and never answers (frozen,
   * overloaded, a connection gone half-open) would leave it connecting for ever. A stream
   * not open within the request timeout is given up, said to be offline, and retried. (The
   * browser's own reconnection after a drop already says offline; the server answers it
   * when it can.)
   */
  awaitOpen(source) {
    clearTimeout(this.opening);
    this.opening = setTimeout(() => this.fail(source), requestTimeout());
  }

  fail(source) {
    if (this.stopped || this.source !== source) return;
    clearTimeout(this.opening);
    clearTimeout(this.idle);
    source.close();
    this.source = null;
    this.onStatus('offline');
    this.scheduleReopen();
  }

  /** (Re)starts the wait for the next message on `source`; see idleCheckMS. */
  watch(source) {
    if (this.stopped || this.source !== source) return;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.check(source), idleCheckMS);
  }

  async check(source) {
    let revision;
    try {
      revision = (await this.api.events(this.lastRevision)).revision;
    } catch {
      // The history moved on past the stream (410), the session or the server is gone: the
      // stream cannot be fine either, and reopening it finds out which (see `resync`).
      revision = Infinity;
    }
    if (this.stopped || this.source !== source) return;
    if (!(revision > this.lastRevision)) return this.watch(source);
    this.idle = setTimeout(() => {
      if (this.stopped || this.source !== source) return;
      if (this.lastRevision >= revision) return this.watch(source);
      source.close();
      this.source = null;
      this.onStatus('reconnecting');
      this.scheduleReopen();
    }, CATCH_UP_MS);
  }

  /**
   * Hands a message's JSON (an event, or the session) to `handler`, noting the last revision
   * the stream has finished. That is the message's `lastEventId`, not the revision its JSON
   * names: one revision's events are several messages with the `id:` only on the last
   * (docs/api.md). Counted done at its first message, a revision cut off partway was skipped
   * when the stream was reopened here (after a refused reconnection) and the rest of its
   * events never reached the log. A new stream's messages before its first `id:` have none.
   */
  receive(message, handler) {
    this.watch(message.target);
    let value;
    try {
      value = JSON.parse(message.data);
    } catch {
      return;
    }
    const finished = Number(message.lastEventId);
    if (message.lastEventId !== '' && Number.isInteger(finished)) this.lastRevision = Math.max(this.lastRevision, finished);
    handler(value);
  }

  scheduleReopen() {
    if (this.stopped) return;
    const delay = RETRY_DELAYS_MS[Math.min(this.failures, RETRY_DELAYS_MS.length - 1)];
    this.failures += 1;
    this.timer = setTimeout(async () => {
      try {
        this.lastRevision = await this.resync(this.lastRevision);
      } catch (error) {
        if (error && error.stop) {
          this.stop();
          return;
        }
        this.scheduleReopen();
        return;
      }
      this.open();
    }, delay);
  }
}
