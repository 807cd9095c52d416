// A live tail of the event stream, filtered by aggregate and event type, resumable from the last
// position seen (Last-Event-ID).
import { events } from '../api.js';
import { el, fill, problemView, when } from '../dom.js';

const SHOWN = 200;
const POSITION_KEY = 'slotkeeper.console.events.after';
const AGGREGATES = ['', 'Order', 'Inventory', 'Slot', 'Schedule'];

/**
 * The events page following one aggregate's events, from just before `position` (its first event)
 * when given: `#/events/<type>/<id>[/<after>]`.
 */
export function aggregateHref(type, id, position) {
  const after = position ? `/${Math.max(0, position - 1)}` : '';
  return `#/events/${encodeURIComponent(type)}/${encodeURIComponent(id)}${after}`;
}

/** The aggregate as text, its ID a link to the events page filtered to it. */
export function aggregateLink(type, id, position) {
  if (!id || !/^[A-Za-z]+$/.test(type || '')) {
    return [`${type || ''} `, el('code', {}, id || '—')];
  }
  return [`${type} `, el('a', { href: aggregateHref(type, id, position), class: 'aggregate' }, el('code', {}, id))];
}

/** Events as a table: position, time, type, aggregate, command, payload. */
export function eventTable(list, body) {
  const tbody = body || el('tbody', {});
  list.forEach((e) => tbody.append(eventRow(e)));
  return el(
    'table',
    { class: 'grid events' },
    el('thead', {}, el('tr', {}, ['Position', 'Time', 'Type', 'Aggregate', 'Command', 'Payload'].map((h) => el('th', { scope: 'col' }, h)))),
    tbody,
  );
}

function eventRow(e) {
  return el(
    'tr',
    { 'data-position': e.position, 'data-type': e.type },
    el('td', { 'data-label': 'Position' }, e.position),
    el('td', { 'data-label': 'Time' }, when(e.time)),
    el('td', { 'data-label': 'Type' }, e.type),
    el('td', { 'data-label': 'Aggregate' }, aggregateLink(e.aggregateType, e.aggregateId, e.position)),
    el('td', { 'data-label': 'Command' }, el('code', {}, e.causationId || '—')),
    el('td', { 'data-label': 'Payload' }, el('details', {}, el('summary', {}, 'fields'), el('pre', {}, JSON.stringify(e.payload, null, 2)))),
  );
}

/**
 * `#/events[/<aggregate type>[/<aggregate ID>[/<after>]]]`. The API filters by type; the aggregate
 * ID is filtered here, in the page, as the stream of that type goes by.
 */
export function render(view, [aggregate, aggregateId, from]) {
  const types = AGGREGATES.includes(aggregate || '') ? AGGREGATES : [...AGGREGATES, aggregate];
  const aggregateSelect = el(
    'select',
    { id: 'aggregate-type' },
    types.map((a) => el('option', { value: a, selected: a === (aggregate || '') }, a || 'all')),
  );
  const typeInput = el('input', { id: 'event-type', type: 'text', placeholder: 'e.g. SlotFired,OrderPlaced', autocomplete: 'off', spellcheck: 'false' });
  const idInput = el('input', { id: 'aggregate-id', type: 'text', placeholder: 'any', value: aggregateId || '', autocomplete: 'off', spellcheck: 'false' });
  const afterInput = el('input', { id: 'after', type: 'number', min: '0', step: '1', value: from !== undefined ? from : sessionStorage.getItem(POSITION_KEY) || '0' });
  const status = el('p', { id: 'stream-status', 'aria-live': 'polite' });
  const body = el('tbody', {});
  const toggle = el('button', { type: 'button', id: 'follow' }, 'Follow');
  let controller = null;
  let last = Number(afterInput.value) || 0;

  const stop = () => {
    if (controller) {
      controller.abort();
      controller = null;
    }
    toggle.textContent = 'Follow';
  };

  const start = async () => {
    stop();
    last = Number(afterInput.value) || 0;
    controller = new AbortController();
    const mine = controller;
    toggle.textContent = 'Stop';
    status.textContent = `Following after position ${last}…`;
    const filter = { aggregateType: aggregateSelect.value, eventType: typeInput.value.trim() };
    const onlyId = idInput.value.trim();
    try {
      const refused = await events.follow(last, filter, (e) => {
        last = e.position;
        afterInput.value = String(last);
        sessionStorage.setItem(POSITION_KEY, String(last));
        if (onlyId && e.aggregateId !== onlyId) {
          return;
        }
        body.prepend(eventRow(e));
        while (body.rows.length > SHOWN) {
          body.deleteRow(-1);
        }
        status.textContent = `Following: last position ${last}.`;
      }, mine.signal);
      if (refused) {
        fill(status, problemView(refused));
      } else {
        status.textContent = `The stream ended at position ${last}; Follow resumes from there.`;
      }
    } catch (e) {
      if (e.name !== 'AbortError') {
        status.textContent = `The stream broke at position ${last} (${e.message}); Follow resumes from there.`;
      } else {
        status.textContent = `Stopped at position ${last}; Follow resumes from there.`;
      }
    }
    if (controller === mine) {
      controller = null;
      toggle.textContent = 'Follow';
    }
  };

  toggle.addEventListener('click', () => (controller ? stop() : start()));
  const restart = () => {
    if (controller) {
      start();
    }
  };
  aggregateSelect.addEventListener('change', restart);
  typeInput.addEventListener('change', restart);
  idInput.addEventListener('change', restart);

  fill(
    view,
    el('h1', {}, 'Events'),
    el(
      'div',
      { class: 'toolbar' },
      el('label', { for: 'aggregate-type' }, 'Aggregate'),
      aggregateSelect,
      el('label', { for: 'event-type' }, 'Event types'),
      typeInput,
      el('label', { for: 'aggregate-id' }, 'Aggregate ID'),
      idInput,
      el('label', { for: 'after' }, 'After position'),
      afterInput,
      toggle,
      el('button', { type: 'button', class: 'secondary', onclick: () => body.replaceChildren() }, 'Clear'),
    ),
    status,
    el('p', { class: 'muted' }, `Newest first; the latest ${SHOWN} are kept on the page.`),
    eventTable([], body),
  );
  start();
  return stop;
}
