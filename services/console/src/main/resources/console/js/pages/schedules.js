// Every schedule: its spec in words, state, lease holder, next slots and its last runs.
import { schedules } from '../api.js';
import { clientOnly } from './readonly.js';
import { el, fill, problemView, when } from '../dom.js';
import { scheduleWords } from '../words.js';
import { legend, runStrip } from './strip.js';

const RUNS_IN_STRIP = 20;

export async function render(view) {
  if (clientOnly(view, 'Schedules')) {
    return;
  }
  fill(view, el('h1', {}, 'Schedules'), el('p', { class: 'muted' }, 'Loading…'));
  const answer = await schedules.list();
  if (!answer.ok) {
    fill(view, el('h1', {}, 'Schedules'), problemView(answer));
    return;
  }
  const jobs = answer.body.jobs;
  const strips = await Promise.all(
    jobs.map((j) => schedules.runs(j.name, { limit: RUNS_IN_STRIP })),
  );
  const filter = el('input', { id: 'filter', type: 'search', autocomplete: 'off' });
  const rows = jobs.map((job, i) => {
    const words = scheduleWords(job.schedule, job.zone);
    const state = !job.enabled ? 'disabled' : job.paused ? 'paused' : 'enabled';
    const runs = strips[i].ok ? strips[i].body.runs : job.lastRuns;
    const row = el(
      'tr',
      { 'data-job': job.name },
      el('td', { 'data-label': 'Name' }, el('a', { href: `#/schedules/${encodeURIComponent(job.name)}` }, job.name)),
      el(
        'td',
        { 'data-label': 'Schedule' },
        el('span', { class: 'words' }, words),
        el('br'),
        el('code', { class: 'muted' }, job.schedule),
      ),
      el('td', { 'data-label': 'State' }, el('span', { class: `state ${state}` }, state)),
      el('td', { 'data-label': 'Lease holder' }, job.leaseHolder || 'none'),
      el('td', { 'data-label': 'Next slots' }, (job.nextSlots || []).slice(0, 2).map((s) => el('div', {}, when(s)))),
      el('td', { 'data-label': 'Last runs' }, runStrip(job.name, [...runs].reverse())),
    );
    row.dataset.text = [job.name, words, job.schedule, state, job.leaseHolder || ''].join(' ').toLowerCase();
    return row;
  });
  const body = el('tbody', {}, rows);
  const count = el('p', { class: 'muted', 'aria-live': 'polite' });
  const apply = () => {
    const q = filter.value.trim().toLowerCase();
    let shown = 0;
    rows.forEach((r) => {
      const show = !q || r.dataset.text.includes(q);
      r.hidden = !show;
      shown += show ? 1 : 0;
    });
    count.textContent = `${shown} of ${rows.length} schedules`;
  };
  filter.addEventListener('input', apply);
  fill(
    view,
    el('h1', {}, 'Schedules'),
    el('div', { class: 'toolbar' }, el('label', { for: 'filter' }, 'Filter'), filter, count),
    legend(),
    el(
      'table',
      { class: 'grid', id: 'schedules' },
      el(
        'thead',
        {},
        el('tr', {}, ['Name', 'Schedule', 'State', 'Lease holder', 'Next slots', 'Last runs (oldest → newest)'].map((h) => el('th', { scope: 'col' }, h))),
      ),
      body,
    ),
  );
  apply();
}
