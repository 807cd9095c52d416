// What a client-role page shows instead of operator data: the API answers 403 to the client
// token on every schedule route, so the console does not ask.
import { session } from '../api.js';
import { el, fill } from '../dom.js';

/** Shows the read-only notice and answers true when the signed-in role is not the operator. */
export function clientOnly(view, title) {
  if (session.isOperator()) {
    return false;
  }
  fill(
    view,
    el('h1', {}, title),
    el(
      'p',
      { class: 'notice', id: 'read-only' },
      'Read-only: signed in with the client token. Schedules, slots and every action need the ' +
        'operator token; the events and the look-ups are open to both.',
    ),
  );
  return true;
}
