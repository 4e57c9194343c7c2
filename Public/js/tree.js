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
