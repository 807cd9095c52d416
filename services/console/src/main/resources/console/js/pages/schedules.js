// The schedules, a page at a time with the state filter: spec in words, state, owner instance and
// fencing token, next slots and the last runs.
import { schedules, session } from '../api.js';
import { el, fill, problemView, when } from '../dom.js';
import { scheduleWords } from '../words.js';
import { specOf, stateWord, zoneOf } from '../definition.js';
import { legend, runStrip } from './strip.js';

const RUNS_IN_STRIP = 20;
const PAGE = 50;
const STATES = [
  ['', 'active and paused'],
  ['ACTIVE', 'active'],
  ['PAUSED', 'paused'],
  ['DELETED', 'deleted'],
];

/** The instance that fires the schedule and the fencing token its fires carry; none for a deleted one. */
function owner(s) {
  if (s.state === 'DELETED') {
    return '—';
  }
  if (!('leaseHolder' in s)) {
    return el('span', { class: 'muted' }, 'unknown (the leases could not be read)');
  }
  if (!s.leaseHolder) {
    return el('span', { class: 'muted' }, 'none: no instance holds its partition');
  }
  return [el('span', { class: 'holder' }, s.leaseHolder), el('br'), el('span', { class: 'muted token' }, `token ${s.fencingToken}`)];
}

/** `query` is the page's list query (state, after); `pages` the `after` of each earlier page. */
export async function render(view, _args, query = { state: '', after: null }, pages = []) {
  fill(view, el('h1', {}, 'Schedules'), el('p', { class: 'muted' }, 'Loading…'));
  const answer = await schedules.list({ state: query.state, after: query.after, limit: PAGE });
  if (!answer.ok) {
    fill(view, el('h1', {}, 'Schedules'), problemView(answer));
    return;
  }
  const list = answer.body.schedules;
  // The list rows hold the definitions and who fires each (the holder of its partition's lease, and
  // that lease's fencing token); the next slots come with each one (a deleted schedule has none,
  // and the API answers 404 for it).
  const live = (s, read) => (s.state === 'DELETED' ? null : read(s.name));
  const [details, strips] = await Promise.all([
    Promise.all(list.map((s) => live(s, schedules.get))),
    Promise.all(list.map((s) => live(s, (n) => schedules.runs(n, { limit: RUNS_IN_STRIP })))),
  ]);
  const filter = el('input', { id: 'filter', type: 'search', autocomplete: 'off' });
  const rows = list.map((s, i) => {
    const detail = details[i] && details[i].ok ? details[i].body : {};
    const spec = specOf(s.definition);
    const words = scheduleWords(spec, zoneOf(s.definition));
    const state = stateWord(s);
    const runs = strips[i] && strips[i].ok ? strips[i].body.runs : detail.lastRuns || [];
    const row = el(
      'tr',
      { 'data-job': s.name },
      el('td', { 'data-label': 'Name' }, el('a', { href: `#/schedules/${encodeURIComponent(s.name)}` }, s.name)),
      el('td', { 'data-label': 'Schedule' }, el('span', { class: 'words' }, words), el('br'), el('code', { class: 'muted' }, spec)),
      el('td', { 'data-label': 'State' }, el('span', { class: `state ${state}` }, state), el('br'), el('span', { class: 'muted' }, s.managedBy === 'FILE' ? 'file' : 'API')),
      el('td', { 'data-label': 'Owner · token', class: 'owner' }, owner(s)),
      el('td', { 'data-label': 'Next slots' }, (detail.nextSlots || []).slice(0, 2).map((n) => el('div', {}, when(n)))),
      el('td', { 'data-label': 'Last runs' }, runStrip(s.name, [...runs].reverse())),
    );
    row.dataset.text = [s.name, words, spec, state, s.leaseHolder || ''].join(' ').toLowerCase();
    return row;
  });
  const count = el('p', { class: 'muted', 'aria-live': 'polite' });
  const apply = () => {
    const q = filter.value.trim().toLowerCase();
    let shown = 0;
    rows.forEach((r) => {
      const show = !q || r.dataset.text.includes(q);
      r.hidden = !show;
      shown += show ? 1 : 0;
    });
    count.textContent = `${shown} of ${rows.length} schedules on this page`;
  };
  filter.addEventListener('input', apply);
  const stateFilter = el(
    'select',
    {
      id: 'state-filter',
      onchange: () => render(view, _args, { state: stateFilter.value, after: null }, []),
    },
    STATES.map(([value, label]) => el('option', { value, selected: value === query.state }, label)),
  );
  const next = answer.body.next
    ? el('button', { type: 'button', class: 'secondary', id: 'next-page', onclick: () => render(view, _args, { state: query.state, after: answer.body.next }, [...pages, query.after]) }, 'Next page')
    : null;
  const previous = pages.length
    ? el('button', { type: 'button', class: 'secondary', id: 'previous-page', onclick: () => render(view, _args, { state: query.state, after: pages.at(-1) }, pages.slice(0, -1)) }, 'Previous page')
    : null;
  fill(
    view,
    el('h1', {}, 'Schedules'),
    session.isOperator() ? el('p', {}, el('a', { href: '#/new-schedule', id: 'new-schedule', class: 'button' }, 'New schedule')) : null,
    el(
      'div',
      { class: 'toolbar' },
      el('label', { for: 'state-filter' }, 'State'),
      stateFilter,
      el('label', { for: 'filter' }, 'Filter'),
      filter,
      count,
    ),
    legend(),
    el(
      'table',
      { class: 'grid', id: 'schedules' },
      el('thead', {}, el('tr', {}, ['Name', 'Schedule', 'State', 'Owner · token', 'Next slots', 'Last runs (oldest → newest)'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, rows),
    ),
    list.length ? null : el('p', { class: 'muted' }, 'No schedule in this state.'),
    el('div', { class: 'toolbar' }, previous, next),
  );
  apply();
}
