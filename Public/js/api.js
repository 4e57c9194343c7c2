// The one module that knows the server's URLs, headers and status codes. Everything
// else gets sessions (plain JSON as docs/api.md describes it) or a thrown error.

/** An answer that is not 2xx: the server's problem+json (RFC 9457), kept whole. */
export class ProblemError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.name = 'ProblemError';
    this.status = status;
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
  constructor(cause) {
    super('The server cannot be reached.');
    this.name = 'NetworkError';
    this.cause = cause;
  }
}

/** The operations a session accepts, each a `POST /v1/sessions/{id}/<name>`. */
export const OPERATIONS = ['push', 'pop', 'pop-to-root', 'pop-to', 'replace', 'present', 'dismiss', 'emit', 'set-root', 'set-state', 'batch'];

async function call(method, path, { token, body, headers = {} } = {}) {
  const fields = { Accept: 'application/json', ...headers };
  if (token) fields.Authorization = `Bearer ${token}`;
  const init = { method, headers: fields, cache: 'no-store', credentials: 'omit' };
  if (body !== undefined) {
    fields['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new NetworkError(error);
  }
  if (response.status === 304) return { status: 304, body: null };
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const problem = json && typeof json === 'object' ? json : { title: response.statusText, detail: text };
    throw new ProblemError(response.status, problem);
  }
  return { status: response.status, body: json };
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
   * Sends one operation. `ifMatch` (a revision) makes a stale page fail with 412 instead
   * of acting on a tree it has not seen. Answers `{session, presentation}`.
   */
  async perform(operation, body = {}, { ifMatch } = {}) {
    if (!OPERATIONS.includes(operation)) throw new Error(`unknown operation ${operation}`);
    const headers = ifMatch !== undefined && ifMatch !== '' ? { 'If-Match': `"${ifMatch}"` } : {};
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
