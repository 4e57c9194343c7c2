// The messages demo: an inbox to start a session with, and the one piece of app logic an
// alert's answer needs (discarding a draft also closes the compose sheet).

/** The root screen of a new demo session: an inbox whose params carry the messages. */
export const DEMO_ROOT = {
  screen: 'inbox',
  title: 'Inbox',
  params: {
    folder: 'Inbox',
    messages: [
      {
        id: 'm1',
        from: 'Ada Lovelace',
        address: 'ada@example.com',
        date: '09:12',
        unread: true,
        subject: 'Notes on the engine',
        preview: 'I have annotated the translation; the notes are longer than the paper…',
        body: 'I have annotated the translation; the notes are longer than the paper.\nNote G has the program for the Bernoulli numbers.',
        attachment: { name: 'note-g.pdf', heading: 'Note G', body: 'A table of operations for computing Bernoulli numbers.', size: '2.4 MB', pages: 3 },
      },
      {
        id: 'm2',
        from: 'Grace Hopper',
        address: 'grace@example.com',
        date: 'Yesterday',
        unread: true,
        subject: 'A moth in relay 70',
        preview: 'First actual case of bug being found. Taped it into the log book.',
        body: 'First actual case of bug being found.\nTaped it into the log book, panel F, relay 70.',
      },
      {
        id: 'm3',
        from: 'Alan Turing',
        address: 'alan@example.com',
        date: 'Monday',
        subject: 'Can machines think?',
        preview: 'I propose to consider the question, but first the imitation game.',
        body: 'I propose to consider the question, “Can machines think?”\nLet us begin with the imitation game.',
      },
    ],
  },
};

/**
 * Operations to run with an alert's answer, in the same batch (one revision): discarding
 * a draft also cancels the compose sheet under the alert.
 */
export function followUp(alert, actionID, presenter) {
  if (actionID === 'discard' && presenter && presenter.screen.screen === 'compose' && presenter.index === 0 && presenter.layer.presentation) {
    return [{ op: 'dismiss' }];
  }
  return [];
}
