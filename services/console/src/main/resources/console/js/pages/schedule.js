// One schedule: its facts, the expected slots against what happened, its runs page by page, and
// (operator only) pause/resume, trigger one slot, and backfill after a dry-run preview.
import { schedules } from '../api.js';
import { actionButton } from '../actions.js';
import { clientOnly } from './readonly.js';
import { el, facts, fill, millis, problemView, statusBadge, when } from '../dom.js';
import { scheduleWords, statusWord } from '../words.js';
import { cell, legend, slotHref } from './strip.js';

const PAGE = 20;
const TIMELINE_SLOTS = 30;

export async function render(view, [name]) {
  if (clientOnly(view, name)) {
    return;
  }
  fill(view, el('h1', {}, name), el('p', { class: 'muted' }, 'Loading…'));
  const answer = await schedules.get(name);
  if (!answer.ok) {
    fill(view, el('h1', {}, name), problemView(answer));
    return;
  }
  const job = answer.body;
  const timeline = el('section', { id: 'timeline', 'aria-labelledby': 'timeline-h' });
  const runs = el('section', { id: 'runs', 'aria-labelledby': 'runs-h' });
  fill(
    view,
    el('p', {}, el('a', { href: '#/schedules' }, '← Schedules')),
    el('h1', {}, job.name),
    summary(job),
    timeline,
    // After a run or a backfill, the timeline and the runs show what it did. The runs are a read
    // model that follows the write within moments: they are read again a little later too.
    actions(job, () => {
      const refresh = () => Promise.all([showTimeline(timeline, job), showRuns(runs, job.name, null)]);
      refresh();
      setTimeout(refresh, 1500);
    }),
    runs,
  );
  await Promise.all([showTimeline(timeline, job), showRuns(runs, job.name, null)]);
}

function summary(job) {
  const state = !job.enabled ? 'disabled' : job.paused ? 'paused' : 'enabled';
  return facts([
    ['Schedule', el('span', { id: 'words' }, scheduleWords(job.schedule, job.zone))],
    ['As configured', el('code', {}, job.schedule)],
    ['Zone', job.zone],
    ['State', el('span', { class: `state ${state}`, id: 'state' }, state)],
    ['Lease holder', job.leaseHolder || 'none'],
    ['Catch-up', job.catchUp],
    ['Overlap', job.overlap],
    ['Next slots', (job.nextSlots || []).map((s) => el('div', {}, when(s)))],
  ]);
}

/** The period between the next two slots (the window of the timeline is a number of periods). */
function period(job) {
  const next = (job.nextSlots || []).map((s) => Date.parse(s));
  return next.length >= 2 ? next[1] - next[0] : 60_000;
}

/** An instant in whole seconds, as the API writes slots. */
function iso(ms) {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The runs with slots in [from, to], by slot. */
async function runsBySlot(name, from, to) {
  const answer = await schedules.runs(name, { from, to, limit: 1000 });
  if (!answer.ok) {
    return answer;
  }
  return new Map(answer.body.runs.map((r) => [Date.parse(r.slot), r]));
}

/**
 * The expected slots of the last periods (a dry-run backfill lists them and changes nothing)
 * against the runs recorded: a slot without a record is a gap, a missed one is marked.
 */
async function showTimeline(section, job) {
  fill(section, el('h2', { id: 'timeline-h' }, 'Expected slots'), el('p', { class: 'muted' }, 'Loading…'));
  const now = Date.now();
  const from = iso(now - period(job) * TIMELINE_SLOTS);
  const to = iso(now);
  const [expected, recorded] = await Promise.all([
    schedules.backfill(job.name, from, to, true, crypto.randomUUID()),
    runsBySlot(job.name, from, to),
  ]);
  if (!expected.ok || !(recorded instanceof Map)) {
    fill(section, el('h2', { id: 'timeline-h' }, 'Expected slots'), problemView(expected.ok ? recorded : expected));
    return;
  }
  const slots = expected.body.slots;
  // Before the first run recorded in the window the schedule may not have existed (or the
  // service not run): only later slots without a record count as gaps.
  const first = Math.min(...[...recorded.keys()]);
  const isGap = (s) => !recorded.has(Date.parse(s)) && Date.parse(s) > first;
  const gaps = slots.filter(isGap).length;
  const missed = slots.filter((s) => (recorded.get(Date.parse(s)) || {}).status === 'MISSED').length;
  fill(
    section,
    el('h2', { id: 'timeline-h' }, 'Expected slots'),
    el(
      'p',
      { id: 'timeline-summary' },
      `${slots.length} slots expected from ${when(from)} to ${when(to)}, ${recorded.size} recorded: `,
      el('strong', {}, `${gaps} gaps`),
      ' (no record after the first recorded run), ',
      el('strong', {}, `${missed} missed`),
      '. Gaps and misses are outlined.',
    ),
    el(
      'div',
      { class: 'strip timeline' },
      slots.map((s) => {
        const run = recorded.get(Date.parse(s));
        const c = cell(job.name, s, run ? run.status : null);
        if (isGap(s) || (run && run.status === 'MISSED')) {
          c.classList.add('attention');
        }
        return c;
      }),
    ),
    legend(),
  );
}

/** The runs, newest first, a page at a time; `before` is the slot the page ends before. */
async function showRuns(section, name, before) {
  const to = before ? iso(Date.parse(before) - 1) : null;
  const answer = await schedules.runs(name, { to, limit: PAGE });
  if (!answer.ok) {
    fill(section, el('h2', { id: 'runs-h' }, 'Runs'), problemView(answer));
    return;
  }
  const runs = answer.body.runs;
  const older =
    runs.length === PAGE
      ? el('button', { type: 'button', class: 'secondary', id: 'older', onclick: () => showRuns(section, name, runs.at(-1).slot) }, 'Older runs')
      : null;
  const newest = before
    ? el('button', { type: 'button', class: 'secondary', onclick: () => showRuns(section, name, null) }, 'Newest runs')
    : null;
  fill(
    section,
    el('h2', { id: 'runs-h' }, 'Runs'),
    runs.length
      ? el(
          'table',
          { class: 'grid', id: 'runs-table' },
          el('thead', {}, el('tr', {}, ['Slot', 'Status', 'Attempts', 'Instance', 'Fencing token', 'Fired at', 'Lag', 'Duration', 'Error'].map((h) => el('th', { scope: 'col' }, h)))),
          el(
            'tbody',
            {},
            runs.map((r) =>
              el(
                'tr',
                { 'data-slot': r.slot },
                el('td', { 'data-label': 'Slot' }, el('a', { href: slotHref(name, r.slot) }, when(r.slot)), r.backfill ? el('span', { class: 'tag' }, 'backfill') : null),
                el('td', { 'data-label': 'Status' }, statusBadge(statusWord(r.status), r.status)),
                el('td', { 'data-label': 'Attempts' }, r.attempts ?? '—'),
                el('td', { 'data-label': 'Instance' }, r.instanceId || '—'),
                el('td', { 'data-label': 'Fencing token' }, r.fencingToken ?? '—'),
                el('td', { 'data-label': 'Fired at' }, when(r.firedAt)),
                el('td', { 'data-label': 'Lag' }, millis(r.lagMs)),
                el('td', { 'data-label': 'Duration' }, millis(r.durationMs)),
                el('td', { 'data-label': 'Error' }, r.error || '—'),
              ),
            ),
          ),
        )
      : el('p', { class: 'muted' }, before ? 'No older runs.' : 'No runs recorded yet.'),
    el(
      'div',
      { class: 'toolbar' },
      el('button', { type: 'button', class: 'secondary', id: 'refresh-runs', onclick: () => showRuns(section, name, before) }, 'Refresh'),
      newest,
      older,
    ),
  );
}

function actions(job, refresh) {
  const title = el('h3', {}, job.paused ? 'Resume' : 'Pause');
  const pause = actionButton(
    job.paused ? 'Resume' : 'Pause',
    (key) => (job.paused ? schedules.resume(job.name, key) : schedules.pause(job.name, key)),
    (a) => {
      // The answer is the new state: the page follows it without a reload.
      job.paused = a.body.paused;
      const state = document.getElementById('state');
      state.textContent = job.paused ? 'paused' : 'enabled';
      state.className = `state ${state.textContent}`;
      pause.button.textContent = title.textContent = job.paused ? 'Resume' : 'Pause';
      return el('p', { class: 'ok' }, `${a.body.job} is now ${a.body.paused ? 'paused: its due slots are recorded as skipped' : 'enabled'}.`);
    },
    { id: 'pause-resume' },
  );
  return el(
    'section',
    { class: 'actions', 'aria-labelledby': 'actions-h' },
    el('h2', { id: 'actions-h' }, 'Actions'),
    el('div', { class: 'card' }, title, pause.button, pause.out),
    triggerForm(job, refresh),
    backfillForm(job, refresh),
  );
}

function triggerForm(job, refresh) {
  // The latest slot that is due: the one before the next.
  const next = (job.nextSlots || [])[0];
  const latest = next ? iso(Date.parse(next) - period(job)) : '';
  const input = el('input', { id: 'trigger-slot', type: 'text', value: latest, autocomplete: 'off', spellcheck: 'false' });
  const trigger = actionButton(
    'Run this slot',
    (key) => schedules.trigger(job.name, input.value.trim(), key),
    (a) => {
      refresh();
      return el(
        'p',
        { class: a.body.duplicate ? 'notice' : 'ok', id: 'trigger-result' },
        a.body.duplicate
          ? `Duplicate: slot ${when(a.body.slot)} had already run; nothing ran again.`
          : `Slot ${when(a.body.slot)} ran: ${a.body.outcome.toLowerCase()}.`,
        ' ',
        el('a', { href: slotHref(job.name, a.body.slot) }, 'Open the slot'),
      );
    },
    { id: 'trigger' },
  );
  return el(
    'div',
    { class: 'card' },
    el('h3', {}, 'Trigger one slot'),
    el('label', { for: 'trigger-slot' }, 'Slot instant (ISO-8601 UTC, a slot of the schedule)'),
    input,
    trigger.button,
    trigger.out,
  );
}

function backfillForm(job, refresh) {
  const now = Date.now();
  const from = el('input', { id: 'backfill-from', type: 'text', value: iso(now - period(job) * 3), autocomplete: 'off', spellcheck: 'false' });
  const to = el('input', { id: 'backfill-to', type: 'text', value: iso(now), autocomplete: 'off', spellcheck: 'false' });
  const preview = el('div', { id: 'backfill-preview', 'aria-live': 'polite' });
  const dry = el(
    'button',
    {
      type: 'button',
      id: 'backfill-dry-run',
      onclick: async () => {
        fill(preview, el('p', { class: 'muted' }, 'Listing the slots…'));
        const range = [from.value.trim(), to.value.trim()];
        const [listed, recorded] = await Promise.all([
          schedules.backfill(job.name, range[0], range[1], true, crypto.randomUUID()),
          runsBySlot(job.name, range[0], range[1]),
        ]);
        if (!listed.ok) {
          fill(preview, problemView(listed));
          return;
        }
        if (!(recorded instanceof Map)) {
          fill(preview, problemView(recorded));
          return;
        }
        const slots = listed.body.slots;
        const done = slots.filter((s) => recorded.has(Date.parse(s)));
        const confirm = actionButton(
          `Run the backfill (${slots.length - done.length} to run)`,
          (key) => schedules.backfill(job.name, range[0], range[1], false, key),
          (a) => {
            refresh();
            return el(
              'div',
              { id: 'backfill-result' },
              el('p', { class: 'ok' }, `${a.body.runs.length} slots: ${summarize(a.body.runs)}.`),
              el('ul', { class: 'slots' }, a.body.runs.map((r) => el('li', {}, el('a', { href: slotHref(job.name, r.slot) }, when(r.slot)), ' ', r.duplicate ? 'already ran' : r.outcome.toLowerCase()))),
            );
          },
          { id: 'backfill-confirm' },
        );
        fill(
          preview,
          el('p', { id: 'backfill-summary' }, `Dry run: ${slots.length} slots in the range, ${done.length} already recorded (they will not run again).`),
          el(
            'ul',
            { class: 'slots' },
            slots.map((s) => {
              const run = recorded.get(Date.parse(s));
              return el('li', { 'data-slot': s, class: run ? 'done' : 'todo' }, when(s), ' ', run ? statusBadge(`already ${statusWord(run.status)}`, run.status) : el('span', { class: 'tag' }, 'would run'));
            }),
          ),
          slots.length ? confirm.button : el('p', { class: 'muted' }, 'No slot in this range.'),
          confirm.out,
        );
      },
    },
    'Preview (dry run)',
  );
  return el(
    'div',
    { class: 'card' },
    el('h3', {}, 'Backfill a range'),
    el('p', { class: 'muted' }, 'The preview lists the slots first and changes nothing; the backfill runs only after you confirm.'),
    el('label', { for: 'backfill-from' }, 'From (ISO-8601 UTC)'),
    from,
    el('label', { for: 'backfill-to' }, 'To (ISO-8601 UTC, included)'),
    to,
    dry,
    preview,
  );
}

function summarize(runs) {
  const counts = {};
  runs.forEach((r) => {
    const k = r.duplicate ? 'already ran' : r.outcome.toLowerCase();
    counts[k] = (counts[k] || 0) + 1;
  });
  return Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(', ');
}
