// One slot: what the ledger recorded for it, and its own events.
import { schedules } from '../api.js';
import { el, facts, fill, millis, problemView, statusBadge, when } from '../dom.js';
import { scanEvents } from '../scan.js';
import { statusWord } from '../words.js';
import { eventTable } from './events.js';

export async function render(view, [job, slot]) {
  const back = el('p', {}, el('a', { href: `#/schedules/${encodeURIComponent(job)}` }, `← ${job}`));
  fill(view, back, el('h1', {}, `Slot ${when(slot)}`), el('p', { class: 'muted' }, 'Loading…'));
  const answer = await schedules.runs(job, { from: slot, to: slot, limit: 1 });
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
  const found = el('div', { id: 'slot-events', 'aria-live': 'polite' });
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
    el('h2', {}, 'Events'),
    el(
      'p',
      { class: 'muted' },
      "The slot's own events (fired, completed, failed…) are found by reading the Slot events: the " +
        'event API filters by type, not by slot. The events of other aggregates a slot caused ' +
        '(an order processed, say) cannot be listed yet: the runs do not name the command IDs ' +
        'a slot sent.',
    ),
    el(
      'button',
      {
        type: 'button',
        id: 'find-events',
        onclick: async () => {
          fill(found, el('p', { class: 'muted' }, 'Reading the Slot events…'));
          const result = await scanEvents('Slot', (e) => e.aggregateId === run.slotId);
          if (!Array.isArray(result.events)) {
            fill(found, problemView(result));
            return;
          }
          fill(
            found,
            el('p', {}, `${result.events.length} events of this slot` + (result.complete ? '.' : ` in the Slot events up to position ${result.scannedTo} (the scan stops there).`)),
            eventTable(result.events),
            el('p', {}, el('a', { href: '#/events/Slot' }, 'Follow the Slot events live')),
          );
        },
      },
      "Find this slot's events",
    ),
    found,
  );
}
