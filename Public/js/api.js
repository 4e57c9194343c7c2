// The one module that knows the server's URLs, headers and status codes. Everything
// else gets sessions (plain JSON as docs/api.md describes it) or a thrown error.

/** An answer that is not 2xx: the server's problem+json (RFC 9457), kept whole. */
export class ProblemError extends Error {
  constructor(status, problem, retryAfter = null) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.name = 'ProblemError';
    this.status = status;
    /** The `Retry-After` header (429, 503, 507): when to try again, which a detail may not say. */
    this.retryAfter = retryAfter;
    this.code = problem.code || `http_${status}`;
    this.title = problem.title || `HTTP ${status}`;
    this.problem = problem;
  }

  /** True for the answers that mean "the session moved on under you": refetch and retry. */
  get isConflict() {
    return this.status === 409 || this.status === 412;
  }
}

/** The server could not be reached at all (offline, stopped, connection refused). */
export class NetworkError extends Error {
  constructor(cause, message = 'The server cannot be reached.') {
    super(message);
    this.name = 'NetworkError';
    this.cause = cause;
  }
}

/**
 * A 2xx whose body is not the JSON the server sends (an HTML page, nothing at all): someone
 * else answered, a proxy routed wrongly or a captive portal. Without this it was handed on
 * as `null`, and the page failed on it with a JavaScript TypeError as its only words.
 */
export class UnreadableAnswerError extends Error {
  constructor(status, statusText, contentType) {
    super(`The answer (${status}${statusText ? ` ${statusText}` : ''}) is ${notJSON(contentType)}: something between the page and the server, such as a proxy, answered instead.`);
    this.name = 'UnreadableAnswerError';
    this.status = status;
  }
}

/**
 * What an answer that is not the server's JSON is, for a person. Its body, markup most often
 * (an nginx 502 page), is no use in a notice; its type is named when it is a plain media type
 * (a header could hold anything).
 */
function notJSON(contentType) {
  const type = (contentType || '').split(';')[0].trim().toLowerCase();
  const named = /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type) ? `${type}, ` : '';
  return `${named}not the server's JSON`;
}

/**
 * The server took the request but did not answer in time (frozen, overloaded, a connection
 * that went half-open): the page gave up on it. The change may still land; the stream says.
 */
export class RequestTimeoutError extends NetworkError {
  constructor(cause, milliseconds) {
    super(cause, `The server did not answer within ${Math.round(milliseconds / 100) / 10} s.`);
    this.name = 'RequestTimeoutError';
  }
}

/**
 * How long an ordinary request (a read, a change) may take. A fetch has no timeout of its
 * own: without one, a server that stops answering but keeps the connection open leaves a
 * tap waiting for ever. The event stream (EventSource, live.js) is not one of these: it is
 * meant to stay open, and live.js watches it for silence itself; only its opening is held
 * to this limit (see `requestTimeout`).
 */
let requestTimeoutMS = 12000;

/** Sets the timeout of ordinary requests (the page's `?request-timeout=SECONDS`). */
export function setRequestTimeout(milliseconds) {
  if (Number.isFinite(milliseconds) && milliseconds > 0) requestTimeoutMS = milliseconds;
}

/** The limit of ordinary requests, which live.js also gives an event stream to open. */
export function requestTimeout() {
  return requestTimeoutMS;
}

/** The operations a session accepts, each a `POST /v1/sessions/{id}/<name>`. */
export const OPERATIONS = ['push', 'pop', 'pop-to-root', 'pop-to', 'replace', 'present', 'dismiss', 'emit', 'set-root', 'set-state', 'batch'];

async function call(method, path, { token, body, headers = {} } = {}) {
  const fields = { Accept: 'application/json', ...headers };
  if (token) fields.Authorization = `Bearer ${token}`;
  const timeout = requestTimeoutMS;
  const signal = AbortSignal.timeout(timeout);
  const init = { method, headers: fields, cache: 'no-store', credentials: 'omit', signal };
  if (body !== undefined) {
    fields['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  let text;
  try {
    // The body too: a server can stop between the headers and the last byte.
    response = await fetch(path, init);
    text = response.status === 304 ? '' : await response.text();
  } catch (error) {
    throw signal.aborted ? new RequestTimeoutError(error, timeout) : new NetworkError(error);
  }
  if (response.status === 304) return { status: 304, body: null };
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  const contentType = response.headers.get('Content-Type');
  if (!response.ok) {
    // Not the server's problem+json: said in words (status, reason), not the body as it came.
    // Besides a proxy, libmicrohttpd answers a few requests in HTML itself (a 431, a 414:
    // docs/api.md, "Errors") before the server's code sees them.
    const problem = json && typeof json === 'object'
      ? json
      : {
        title: response.statusText || `HTTP ${response.status}`,
        detail: `The answer is ${notJSON(contentType)}: a proxy in front of the server answered for it, or the request was refused before the server read it.`,
      };
    throw new ProblemError(response.status, problem, response.headers.get('Retry-After'));
  }
  // Every 2xx this page asks for carries a JSON object but a DELETE's 204.
  if (response.status !== 204 && (json === null || typeof json !== 'object')) {
    throw new UnreadableAnswerError(response.status, response.statusText, contentType);
  }
  return { status: response.status, body: json };
}

/**
 * The If-Match value for what the inspector's field holds: a bare revision is quoted (`3` is
 * `"3"`); `*` and a tag already written as one (`"3"`, `W/"3"`: what docs/api.md and an ETag
 * show) go as they are. Quoted again they were no tag at all, and refused 400.
 */
function entityTag(value) {
  const text = String(value).trim();
  return text === '*' || text.startsWith('"') || text.startsWith('W/') ? text : `"${text}"`;
}

/** `POST /v1/sessions`: a new session whose root is `root`; answers `{id, token, session}`. */
export async function createSession(root) {
  const { body } = await call('POST', '/v1/sessions', { body: { root } });
  const { token, ...session } = body;
  return { id: session.id, token, session };
}

/** One session, reached with its bearer token. */
export class SessionAPI {
  constructor(id, token) {
    this.id = id;
    this.token = token;
  }

  get path() {
    return `/v1/sessions/${encodeURIComponent(this.id)}`;
  }

  /** The whole tree; null when it is still `knownRevision` (304). */
  async fetch(knownRevision) {
    const headers = knownRevision ? { 'If-None-Match': `"${knownRevision}"` } : {};
    const { body } = await call('GET', this.path, { token: this.token, headers });
    return body;
  }

  /**
   * Sends one operation. `ifMatch` (a revision, or a tag: see entityTag) makes a stale page fail with 412 instead
   * of acting on a tree it has not seen. Answers `{session, presentation}`.
   */
  async perform(operation, body = {}, { ifMatch } = {}) {
    if (!OPERATIONS.includes(operation)) throw new Error(`unknown operation ${operation}`);
    const headers = ifMatch !== undefined && ifMatch !== '' ? { 'If-Match': entityTag(ifMatch) } : {};
    const { body: answer } = await call('POST', `${this.path}/${operation}`, { token: this.token, body, headers });
    const { presentation, ...session } = answer;
    return { session, presentation: presentation ?? null };
  }

  /** `GET …/events?after=`: the kept events after a revision (all kept ones without it). */
  async events(after) {
    const query = after === undefined ? '' : `?after=${encodeURIComponent(after)}`;
    const { body } = await call('GET', `${this.path}/events${query}`, { token: this.token });
    return body;
  }

  async delete() {
    await call('DELETE', this.path, { token: this.token });
  }

  /**
   * The Server-Sent Events URL, with the session after each revision's events
   * (`include=session`). EventSource cannot set headers, so this is the one place the token
   * travels in a query string (`access_token`, which the server never logs).
   */
  streamURL(after) {
    const query = new URLSearchParams({ access_token: this.token, include: 'session' });
    if (after !== undefined) query.set('after', String(after));
    return `${this.path}/events?${query}`;
  }
}
