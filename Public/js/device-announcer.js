// What the device says aloud: the banner of a result handed back, read out through the one
// live region the page always has (index.html, #device-announcer).

/**
 * Reads out the banner of a result that came after revision `before`, on the screen the
 * person is on (the top layer's top screen). Not a result the session already held when it
 * was first drawn (that is not news), nor again at a later redraw of the same result (a
 * change of state, a later revision elsewhere), nor one handed to a screen under a
 * presentation, which the person cannot reach: its banner is there when they come back.
 */
export function announceResult(view, before) {
  if (before === null) return;
  const top = [...view.container.children].filter((element) => element.dataset.layer && !element.classList.contains('is-leaving')).at(-1);
  const banner = top?.querySelector('.stack > .screen:not(.is-leaving) .result-banner');
  if (banner && Number(banner.dataset.revision) > before) announce(view, [...banner.cloneNode(true).childNodes]);
}

/**
 * Writes `pieces` into the announcer (null: empties it). Emptied first, and written a moment
 * later: the same words as last time (a second "Settings saved.") are then a change, which a
 * screen reader reads, and not text that is already there. The pieces are the banner's own
 * nodes, so what a client wrote stays isolated (a `bdi`) as on screen.
 */
export function announce(view, pieces) {
  clearTimeout(view.announcing);
  view.announcer.replaceChildren();
  if (pieces) view.announcing = setTimeout(() => view.announcer.replaceChildren(...pieces), 50);
}
