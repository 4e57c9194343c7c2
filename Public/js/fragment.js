// The session a page shows lives in the URL fragment (`#session=ID&token=T`): a reload or
// a second tab opens the same session, and the token never reaches a server or a log.

/** `{id, token}` from the current fragment, or null. */
export function readFragment() {
  const fields = new URLSearchParams(location.hash.replace(/^#/, ''));
  const id = fields.get('session');
  const token = fields.get('token');
  return id && token ? { id, token } : null;
}

/** Points the page at a session (or at none), without a request to the server. */
export function writeFragment(session) {
  const hash = session ? `#${new URLSearchParams({ session: session.id, token: session.token })}` : '';
  if (location.hash === hash) return;
  history.pushState(null, '', `${location.pathname}${location.search}${hash}`);
  dispatchEvent(new HashChangeEvent('hashchange'));
}
