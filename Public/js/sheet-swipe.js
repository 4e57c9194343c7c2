// A sheet follows a finger (or a mouse) dragged down from its grabber or bar, and goes when
// dragged far enough.

/**
 * Dragging a sheet down past a quarter of its height cancels it, like Escape.
 * @param {() => Promise} cancel dismisses the sheet without a result
 */
export function enableSwipe(panel, cancel) {
  let start = null;
  const reset = () => {
    start = null;
    panel.classList.remove('is-dragging');
    panel.style.setProperty('--drag', '0px');
  };
  panel.addEventListener('pointerdown', (event) => {
    if (!event.isPrimary || event.button !== 0) return;
    if (!event.target.closest('.grabber, .nav-bar') || event.target.closest('button, input, textarea, a')) return;
    start = { y: event.clientY, pointer: event.pointerId };
    panel.setPointerCapture(event.pointerId);
    panel.classList.add('is-dragging');
  });
  panel.addEventListener('pointermove', (event) => {
    if (!start || event.pointerId !== start.pointer) return;
    panel.style.setProperty('--drag', `${Math.max(0, event.clientY - start.y)}px`);
  });
  const finish = (event) => {
    if (!start || event.pointerId !== start.pointer) return;
    const distance = event.clientY - start.y;
    if (distance > panel.getBoundingClientRect().height / 4) {
      start = null;
      panel.classList.remove('is-dragging');
      // `cancel` reports a refusal itself and resolves either way: a sheet still shown
      // afterwards (refused, unreachable server) goes back up; one dismissed sinks from here.
      const settle = () => {
        if (!panel.closest('.is-leaving')) reset();
      };
      cancel().then(settle, settle);
      return;
    }
    reset();
  };
  panel.addEventListener('pointerup', finish);
  panel.addEventListener('pointercancel', reset);
}
