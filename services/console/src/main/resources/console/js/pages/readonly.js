// What a client-role page shows in place of the operator's actions: the client token reads the
// schedules and their runs, and changes nothing.
import { el } from '../dom.js';

/** The read-only notice of a client-role page. */
export function readOnlyNotice() {
  return el(
    'p',
    { class: 'notice', id: 'read-only' },
    'Read-only: signed in with the client token. Creating, editing, pausing, running and ' +
      'deleting schedules need the operator token.',
  );
}
