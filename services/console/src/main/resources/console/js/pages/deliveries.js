// An HTTP target's delivery attempts of one slot, as the runs answer lists them (oldest first).
// The receiver's answer is shown as text, never as markup (el() makes text nodes), and a long one
// is collapsed behind its first characters.
import { el, millis, when } from '../dom.js';

/** Answers up to this many characters, on one line, are shown whole. */
const SHORT_ANSWER = 80;

/** DELIVERED → "delivered", RETRY_STATUS → "retry status". */
export function outcomeWord(outcome) {
  return (outcome || '').toLowerCase().replace(/_/g, ' ');
}

function answer(text) {
  if (text === null || text === undefined || text === '') {
    return '—';
  }
  if (text.length <= SHORT_ANSWER && !text.includes('\n')) {
    return el('code', { class: 'answer-body' }, text);
  }
  const head = text.slice(0, SHORT_ANSWER).replace(/\s+/g, ' ');
  return el(
    'details',
    { class: 'answer-body' },
    el('summary', {}, `${head}… (${text.length} characters)`),
    el('pre', {}, text),
  );
}

function row(d) {
  const ok = d.outcome === 'DELIVERED';
  return el(
    'tr',
    { 'data-attempt': d.attempt, 'data-outcome': d.outcome },
    el('td', { 'data-label': 'Attempt' }, d.attempt),
    el('td', { 'data-label': 'Sent at' }, when(d.sentAt)),
    el('td', { 'data-label': 'Outcome', class: 'outcome' }, el('span', { class: `status s-${ok ? 'completed' : 'failed'}` }, outcomeWord(d.outcome))),
    el('td', { 'data-label': 'HTTP status', class: 'http-status' }, d.status === null || d.status === undefined ? 'no answer' : d.status),
    el('td', { 'data-label': 'Latency' }, millis(d.latencyMs)),
    el('td', { 'data-label': 'Retry-After' }, d.retryAfterMs === null || d.retryAfterMs === undefined ? '—' : millis(d.retryAfterMs)),
    el('td', { 'data-label': 'Token' }, d.fencingToken),
    el('td', { 'data-label': 'Instance' }, d.instanceId),
    el('td', { 'data-label': 'Error' }, d.error || '—'),
    el('td', { 'data-label': 'Answer (first 1 KiB)' }, answer(d.response)),
  );
}

/** The attempts as a table, one row each. */
export function deliveryTable(deliveries) {
  return el(
    'table',
    { class: 'grid', id: 'deliveries' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ['Attempt', 'Sent at', 'Outcome', 'HTTP status', 'Latency', 'Retry-After', 'Token', 'Instance', 'Error', 'Answer (first 1 KiB)'].map((h) =>
          el('th', { scope: 'col' }, h),
        ),
      ),
    ),
    el('tbody', {}, deliveries.map(row)),
  );
}
