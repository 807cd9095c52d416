// The last runs as a strip of cells: colour and a letter, with the word in the legend and the
// cell's label, so colour is never the only sign.
import { el, when } from '../dom.js';
import { STATUSES } from '../words.js';

const LETTERS = { COMPLETED: 'C', FAILED: 'F', MISSED: 'M', SKIPPED: 'S', FIRED: 'R', NONE: '·' };

/** A link to the slot page of a job's slot. */
export function slotHref(job, slot) {
  return `#/slots/${encodeURIComponent(job)}/${encodeURIComponent(slot)}`;
}

/** One cell: a run's status (or NONE for an expected slot with no record). */
export function cell(job, slot, status) {
  const s = status || 'NONE';
  const label = `${when(slot)}: ${STATUSES[s] || s}`;
  return el(
    'a',
    {
      class: `cell s-${s.toLowerCase()}`,
      href: slotHref(job, slot),
      title: label,
      'aria-label': label,
      'data-status': s,
    },
    LETTERS[s] || '?',
  );
}

/** The runs (oldest first) as a strip of cells. */
export function runStrip(job, runs) {
  if (!runs.length) {
    return el('span', { class: 'muted' }, 'no runs yet');
  }
  return el('div', { class: 'strip' }, runs.map((r) => cell(job, r.slot, r.status)));
}

/** What each cell means. */
export function legend() {
  return el(
    'ul',
    { class: 'legend', 'aria-label': 'Legend' },
    Object.entries(STATUSES).map(([s, word]) =>
      el('li', {}, el('span', { class: `cell s-${s.toLowerCase()}`, 'aria-hidden': 'true' }, LETTERS[s]), ' ', word),
    ),
  );
}
