// Sign-in: the token is checked against the API, its role read from what the API allows.
import { roleOf, session } from '../api.js';
import { el, fill, problemView } from '../dom.js';

export function render(view) {
  const input = el('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    required: true,
    spellcheck: 'false',
  });
  const out = el('div', { 'aria-live': 'polite' });
  const form = el(
    'form',
    {
      class: 'card signin',
      onsubmit: async (e) => {
        e.preventDefault();
        fill(out, el('p', { class: 'muted' }, 'Checking the token…'));
        const token = input.value.trim();
        const role = await roleOf(token);
        if (typeof role !== 'string') {
          fill(out, problemView(role));
          return;
        }
        session.save(token, role);
        input.value = '';
        location.hash = role === 'operator' ? '#/schedules' : '#/events';
      },
    },
    el('h1', {}, 'Sign in'),
    el(
      'p',
      {},
      'Paste the operator or the client token (SLOTKEEPER_OPERATOR_TOKEN or ' +
        'SLOTKEEPER_CLIENT_TOKEN). It is kept in this tab only and cleared by Sign out.',
    ),
    el('label', { for: 'token' }, 'Bearer token'),
    input,
    el('button', { type: 'submit', id: 'sign-in' }, 'Sign in'),
    out,
  );
  fill(view, form);
  input.focus();
}
