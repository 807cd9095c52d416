// One slot: what the ledger recorded for it, an HTTP target's delivery attempts, the commands it
// sent and the events it caused.
import { schedules } from '../api.js';
import { el, facts, fill, millis, problemView, statusBadge, when } from '../dom.js';
import { statusWord } from '../words.js';
import { deliveryTable } from './deliveries.js';
import { aggregateHref, aggregateLink, eventTable } from './events.js';

/** The commands the slot sent (those that left events), each with its aggregate and events. */
function commandTable(commands) {
  return el(
    'table',
    { class: 'grid', id: 'slot-commands' },
    el('thead', {}, el('tr', {}, ['Command ID', 'Aggregate', 'Events'].map((h) => el('th', { scope: 'col' }, h)))),
    el(
      'tbody',
      {},
      commands.map((c) =>
        el(
          'tr',
          { 'data-command': c.commandId },
          el('td', { 'data-label': 'Command ID' }, el('code', {}, c.commandId)),
          el('td', { 'data-label': 'Aggregate' }, aggregateLink(c.aggregateType, c.aggregateId, c.position)),
          el('td', { 'data-label': 'Events' }, c.eventTypes.join(', ')),
        ),
      ),
    ),
  );
}

/** The slot's commands and events from the API's answer (or its problem). */
function caused(answer, slotId) {
  if (!answer.ok) {
    return [el('h2', {}, 'Commands and events'), problemView(answer)];
  }
  const { commands, events, complete } = answer.body;
  const first = events.length ? events[0].position : 0;
  return [
    el('h2', {}, 'Commands'),
    el(
      'p',
      { class: 'muted' },
      "The commands this slot sent that left events: the slot ledger's own (fire, fail, complete) " +
        "and its handler's, whose IDs derive from the slot. Each aggregate links to its events.",
    ),
    commands.length ? commandTable(commands) : el('p', { class: 'muted' }, 'None.'),
    el('h2', {}, 'Events'),
    el(
      'div',
      { id: 'slot-events' },
      el(
        'p',
        {},
        `${events.length} events of this slot and caused by it` +
          (complete ? '.' : ': not all of them (the slot still runs, or the answer stopped at its bound).'),
      ),
      events.length ? eventTable(events) : null,
      el('p', {}, el('a', { href: aggregateHref('Slot', slotId, first), id: 'follow-slot' }, "Follow this slot's events live")),
    ),
  ];
}

export async function render(view, [job, slot]) {
  const back = el('p', {}, el('a', { href: `#/schedules/${encodeURIComponent(job)}` }, `← ${job}`));
  fill(view, back, el('h1', {}, `Slot ${when(slot)}`), el('p', { class: 'muted' }, 'Loading…'));
  const [answer, slotEvents] = await Promise.all([
    schedules.runs(job, { from: slot, to: slot, limit: 1 }),
    schedules.slotEvents(job, slot),
  ]);
  if (!answer.ok) {
    fill(view, back, el('h1', {}, `Slot ${when(slot)}`), problemView(answer));
    return;
  }
  const run = answer.body.runs[0];
  if (!run) {
    fill(
      view,
      back,
      el('h1', {}, `Slot ${when(slot)}`),
      el('p', { class: 'notice', id: 'no-record' }, `No record of this slot of ${job}: it has not been fired, skipped or recorded as missed.`),
    );
    return;
  }
  fill(
    view,
    back,
    el('h1', {}, `Slot ${when(run.slot)}`),
    facts([
      ['Slot ID', el('code', { id: 'slot-id' }, run.slotId)],
      ['Schedule', job],
      ['Status', el('span', { id: 'slot-status' }, statusBadge(statusWord(run.status), run.status))],
      ['Attempts', run.attempts],
      ['Instance', run.instanceId],
      ['Fencing token', run.fencingToken],
      ['Run by', run.backfill ? 'an operator (manual run or backfill)' : 'the timers'],
      ['Fired at', when(run.firedAt)],
      ['Lag', millis(run.lagMs)],
      ['Completed at', when(run.completedAt)],
      ['Duration', millis(run.durationMs)],
      ['Counts', run.counts ? el('code', {}, JSON.stringify(run.counts)) : null],
      ['Error', run.error],
      ['Duplicate fires rejected', run.duplicatesRejected],
    ]),
    // Only a schedule with an HTTP target has deliveries (null for other handlers).
    run.deliveries
      ? [
          el('h2', {}, 'HTTP deliveries'),
          el('p', { class: 'muted' }, `Every attempt to call the target, oldest first: ${run.deliveries.length}.`),
          deliveryTable(run.deliveries),
        ]
      : null,
    caused(slotEvents, run.slotId),
  );
}
