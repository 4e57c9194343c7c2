// Reading a session tree (docs/api.md "Session"): pure functions, no DOM, no requests.

/**
 * The layers a device shows, bottom to top: the root stack, then each presentation up
 * the chain. An alert has no stack and ends the chain.
 * Each layer: `{key, presentation, stack, depth}` (`presentation` null for the root).
 */
export function layers(session) {
  const result = [{ key: 'root', presentation: null, stack: session.root, depth: 0 }];
  let stack = session.root;
  while (stack && stack.presentation) {
    const presentation = stack.presentation;
    result.push({ key: presentation.id, presentation, stack: presentation.stack ?? null, depth: result.length });
    stack = presentation.stack ?? null;
  }
  return result;
}

/** The screen with this id anywhere in the tree, with its stack and index: `{screen, stack, index}`. */
export function findScreen(session, id) {
  for (const layer of layers(session)) {
    const index = layer.stack ? layer.stack.path.findIndex((screen) => screen.id === id) : -1;
    if (index >= 0) return { screen: layer.stack.path[index], stack: layer.stack, index, layer };
  }
  return null;
}

/** What a navigation bar calls a screen. */
export function screenTitle(screen) {
  return screen.title || screen.screen;
}

/** A one-line description of an event, for logs. */
export function describeEvent(event) {
  switch (event.type) {
    case 'pushed':
      return `pushed ${event.screen} on ${event.stack}`;
    case 'popped':
      return `popped ${(event.screens || []).join(', ')} from ${event.stack}`;
    case 'replaced':
      return `replaced ${(event.replaced || []).join?.(', ') ?? event.replaced} with ${event.screen}`;
    case 'presented':
      return `presented ${event.presentation} (${event.style}) from ${event.presentedBy}`;
    case 'dismissed':
      return `dismissed ${event.presentation}`;
    case 'cancelled':
      return `cancelled ${event.presentation}`;
    case 'result':
      return `result for ${event.screen} from ${event.from}: ${JSON.stringify(event.value)}`;
    case 'root-set':
      return `root set to ${event.screen}`;
    case 'state-set':
      return `${event.screen} shows ${event.state && event.state.name} (${event.transition})`;
    case 'reset':
      return `the stream fell behind: events through r${event.revision} are no longer kept, and were skipped`;
    default:
      return event.type;
  }
}
