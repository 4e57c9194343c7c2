// An alert presentation: a centred dialog with its text fields and actions.
import { h, uniqueID } from './dom.js';

/**
 * The dialog for `presentation.alert`; `answer(actionID, fields)` is called with the
 * chosen action and the text typed into each field.
 */
export function renderAlert(presentation, answer) {
  const alert = presentation.alert || {};
  const actions = Array.isArray(alert.actions) ? alert.actions : [];
  const fields = Array.isArray(alert.fields) ? alert.fields : [];
  const titleID = uniqueID('alert-title');
  const messageID = uniqueID('alert-message');
  const inputs = fields.map((field) => {
    const id = uniqueID('alert-field');
    return {
      field,
      element: h(
        'div',
        { class: 'alert-field' },
        h('label', { for: id, class: 'visually-hidden' }, field.placeholder || field.id),
        h('input', { id, name: field.id, type: field.secure ? 'password' : 'text', placeholder: field.placeholder || '', autocomplete: 'off' }),
      ),
    };
  });
  const values = () => Object.fromEntries(inputs.map(({ field, element }) => [field.id, element.querySelector('input').value]));
  const choose = (action) => answer(action.id, fields.length ? values() : undefined);
  const buttons = actions.map((action) =>
    h(
      'button',
      { type: 'button', class: ['alert-action', `alert-action--${action.role || 'default'}`], dataset: { action: action.id }, onclick: () => choose(action) },
      action.title,
    ),
  );
  // Enter in a field answers with the first action that is not a cancel.
  const primary = actions.find((action) => action.role !== 'cancel') || actions[0];
  // The dialog is a <div> holding the form: a <form> may not take role=alertdialog (ARIA in
  // HTML; axe's aria-allowed-role), and the form is kept for Enter in a field.
  return h(
    'div',
    {
      class: 'alert',
      role: 'alertdialog',
      // Not aria-modal: the device below is inert, the inspector is not (device.js, createLayer).
      'aria-labelledby': alert.title ? titleID : null,
      'aria-label': alert.title ? null : 'Alert',
      'aria-describedby': alert.message ? messageID : null,
    },
    h(
      'form',
      {
        class: 'alert-form',
        onsubmit: (event) => {
          event.preventDefault();
          if (primary) choose(primary);
        },
      },
      h('div', { class: 'alert-text' }, alert.title ? h('h2', { id: titleID, class: 'alert-title' }, alert.title) : null, alert.message ? h('p', { id: messageID, class: 'alert-message' }, alert.message) : null, inputs.map((input) => input.element)),
      // Two short actions sit side by side; anything else stacks, as on a phone.
      h('div', { class: ['alert-actions', actions.length === 2 && actions.every((action) => action.title.length <= 10) && 'alert-actions--pair'] }, buttons),
    ),
  );
}

/** The action Escape stands for: the one whose role is `cancel`, if there is one. */
export function cancelAction(presentation) {
  const actions = presentation.alert?.actions || [];
  return actions.find((action) => action.role === 'cancel') || null;
}
