// An order, a stock item or a refund by ID: its read-model row, and its events.
import { lookups } from '../api.js';
import { el, facts, fill, problemView, when } from '../dom.js';
import { scanEvents } from '../scan.js';
import { eventTable } from './events.js';

const KINDS = {
  order: {
    label: 'Order',
    read: (id) => lookups.order(id),
    aggregate: 'Order',
    matches: (id) => (e) => e.aggregateId === id,
  },
  stock: {
    label: 'Stock item (SKU)',
    read: (id) => lookups.stock(id),
    aggregate: 'Inventory',
    matches: (id) => (e) => e.aggregateId === id,
  },
  refund: {
    label: 'Refund',
    read: (id) => lookups.refund(id),
    // A refund lives in its order's stream: its events name it.
    aggregate: 'Order',
    matches: (id) => (e) => e.payload && e.payload.refundId === id,
  },
};

function row(body) {
  return facts(
    Object.entries(body).map(([k, v]) => [
      k,
      v !== null && typeof v === 'object' ? el('code', {}, JSON.stringify(v)) : /At$/.test(k) ? when(v) : v,
    ]),
  );
}

export function render(view) {
  const kind = el('select', { id: 'lookup-kind' }, Object.entries(KINDS).map(([k, d]) => el('option', { value: k }, d.label)));
  const id = el('input', { id: 'lookup-id', type: 'text', required: true, autocomplete: 'off', spellcheck: 'false' });
  const out = el('div', { id: 'lookup-result', 'aria-live': 'polite' });
  const form = el(
    'form',
    {
      class: 'toolbar',
      onsubmit: async (e) => {
        e.preventDefault();
        const k = KINDS[kind.value];
        const value = id.value.trim();
        fill(out, el('p', { class: 'muted' }, 'Looking up…'));
        const answer = await k.read(value);
        if (!answer.ok) {
          fill(out, problemView(answer));
          return;
        }
        const found = el('div', { id: 'lookup-events' });
        fill(
          out,
          el('h2', {}, `${k.label} ${value}`),
          row(answer.body),
          el('h2', {}, 'Events'),
          el(
            'button',
            {
              type: 'button',
              id: 'lookup-find-events',
              onclick: async () => {
                fill(found, el('p', { class: 'muted' }, `Reading the ${k.aggregate} events…`));
                const result = await scanEvents(k.aggregate, k.matches(value));
                if (!Array.isArray(result.events)) {
                  fill(found, problemView(result));
                  return;
                }
                fill(
                  found,
                  el('p', {}, `${result.events.length} events` + (result.complete ? '.' : ` up to position ${result.scannedTo} (the scan stops there).`)),
                  eventTable(result.events),
                );
              },
            },
            'Find its events',
          ),
          found,
        );
      },
    },
    el('label', { for: 'lookup-kind' }, 'Kind'),
    kind,
    el('label', { for: 'lookup-id' }, 'ID'),
    id,
    el('button', { type: 'submit', id: 'lookup-go' }, 'Look up'),
  );
  fill(view, el('h1', {}, 'Look up'), form, out);
}
