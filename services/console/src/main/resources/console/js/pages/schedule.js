// One schedule: its facts (state, version, who manages it), the expected slots against what
// happened, the clock changes ahead, its runs page by page, and (operator only) pause/resume with a
// reason, edit, delete, trigger one slot, and backfill after a dry-run preview.
import { Answer, schedules, session } from '../api.js';
import { actionButton } from '../actions.js';
import { readOnlyNotice } from './readonly.js';
import { el, facts, fill, millis, problemView, statusBadge, when } from '../dom.js';
import { scheduleWords, statusWord } from '../words.js';
import { specOf, stateWord, zoneOf } from '../definition.js';
import { cell, legend, slotHref } from './strip.js';
import { clockChangeList } from './diff.js';

const PAGE = 20;
const TIMELINE_SLOTS = 30;
const AHEAD_DAYS = 30;

export async function render(view, [name]) {
  fill(view, el('h1', {}, name), el('p', { class: 'muted' }, 'Loading…'));
  const answer = await schedules.get(name);
  if (!answer.ok) {
    fill(view, el('h1', {}, name), problemView(answer));
    return;
  }
  const job = answer.body;
  const timeline = el('section', { id: 'timeline', 'aria-labelledby': 'timeline-h' });
  const ahead = el('section', { id: 'ahead', 'aria-labelledby': 'ahead-h' });
  const runs = el('section', { id: 'runs', 'aria-labelledby': 'runs-h' });
  fill(
    view,
    el('p', {}, el('a', { href: '#/schedules' }, '← Schedules')),
    el('h1', {}, job.name),
    summary(job),
    timeline,
    ahead,
    // After a run or a backfill, the timeline and the runs show what it did. The runs are a read
    // model that follows the write within moments: they are read again a little later too.
    session.isOperator()
      ? actions(job, () => {
          const refresh = () => Promise.all([showTimeline(timeline, job), showRuns(runs, job.name, null)]);
          refresh();
          setTimeout(refresh, 1500);
        })
      : readOnlyNotice(),
    runs,
  );
  if (!session.isOperator()) {
    // The expected slots and the days ahead come from dry runs, which only the operator may ask for.
    fill(timeline, el('p', { class: 'muted' }, 'The expected slots and the clock changes ahead need the operator token.'));
    await showRuns(runs, job.name, null);
    return;
  }
  await Promise.all([showTimeline(timeline, job), showAhead(ahead, job), showRuns(runs, job.name, null)]);
}

function summary(job) {
  const def = job.definition;
  const spec = specOf(def);
  const state = stateWord(job);
  return facts([
    ['Schedule', el('span', { id: 'words' }, scheduleWords(spec, zoneOf(def)))],
    ['As configured', el('code', {}, spec)],
    ['Zone', zoneOf(def)],
    ['State', el('span', { class: `state ${state}`, id: 'state' }, state)],
    ['Version', el('span', { id: 'version' }, String(job.version))],
    ['Managed by', el('span', { id: 'managed-by' }, job.managedBy === 'FILE' ? `the jobs file ${job.source || ''}`.trim() : 'the API')],
    ['Lease holder', job.leaseHolder || 'none'],
    ['Catch-up', def.catchUp ? `${def.catchUp.policy}${def.catchUp.window ? ' within ' + def.catchUp.window : ''}` : '—'],
    ['Overlap', def.overlap || '—'],
    ['DST', def.dst ? `gap ${def.dst.gap}, overlap ${def.dst.overlap}` : '—'],
    ['Next slots', (job.nextSlots || []).map((s) => el('div', {}, when(s)))],
  ]);
}

/**
 * The days ahead as a strip, the days with a clock change in the schedule's zone marked, and what
 * its DST policy does there (the dry run of the definition as it is: it changes nothing).
 */
async function showAhead(section, job) {
  const title = el('h2', { id: 'ahead-h' }, `The next ${AHEAD_DAYS} days`);
  fill(section, title, el('p', { class: 'muted' }, 'Loading…'));
  const { name: _name, ...definition } = job.definition;
  const answer = await schedules.previewChange(job.name, definition, AHEAD_DAYS * 24);
  if (!answer.ok) {
    fill(section, title, problemView(answer));
    return;
  }
  const changes = answer.body.clockChanges.filter((c) => c.definition === 'current');
  const byDay = new Map(changes.map((c) => [c.at.slice(0, 10), c]));
  const start = Date.parse(answer.body.from);
  const days = Array.from({ length: AHEAD_DAYS }, (_, i) => new Date(start + i * 86_400_000).toISOString().slice(0, 10));
  fill(
    section,
    title,
    el(
      'div',
      { class: 'strip days', id: 'ahead-days' },
      days.map((d) => {
        const c = byDay.get(d);
        const label = c ? `${d}: clock change (${c.kind}), ${c.policy}` : d;
        return el('span', { class: c ? 'cell dst-day' : 'cell', title: label, 'aria-label': label, 'data-day': d }, c ? '±' : d.slice(8));
      }),
    ),
    changes.length
      ? clockChangeList(changes, 'ahead-dst')
      : el('p', { class: 'muted', id: 'ahead-dst' }, `No clock change in ${zoneOf(job.definition)} in the next ${AHEAD_DAYS} days.`),
  );
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
  const paused = () => job.state === 'PAUSED';
  const title = el('h3', {}, paused() ? 'Resume' : 'Pause');
  const reason = el('input', { id: 'pause-reason', type: 'text', maxlength: '1024', autocomplete: 'off' });
  const pause = actionButton(
    paused() ? 'Resume' : 'Pause',
    (key) => {
      const why = reason.value.trim();
      if (!why) {
        // Asked before anything is sent: the reason goes into the schedule's event.
        return new Answer(400, { title: 'A reason is needed', detail: 'Say why, for the schedule\'s history.', errors: { reason: 'must not be empty' } });
      }
      return paused() ? schedules.resume(job.name, why, key) : schedules.pause(job.name, why, key);
    },
    (a) => {
      // The answer is the new state: the page follows it without a reload.
      job.state = a.body.state;
      job.version = a.body.version;
      const state = document.getElementById('state');
      state.textContent = stateWord(a.body);
      state.className = `state ${state.textContent}`;
      document.getElementById('version').textContent = String(a.body.version);
      pause.button.textContent = title.textContent = paused() ? 'Resume' : 'Pause';
      reason.value = '';
      return el('p', { class: 'ok' }, `${a.body.name} is now ${paused() ? 'paused: its due slots are recorded as skipped' : 'active'} (version ${a.body.version}).`);
    },
    { id: 'pause-resume' },
  );
  return el(
    'section',
    { class: 'actions', 'aria-labelledby': 'actions-h' },
    el('h2', { id: 'actions-h' }, 'Actions'),
    el('div', { class: 'card' }, title, el('label', { for: 'pause-reason' }, 'Reason (kept in the schedule\'s history)'), reason, pause.button, pause.out),
    changeCard(job),
    triggerForm(job, refresh),
    backfillForm(job, refresh),
  );
}

/** Edit and delete; a schedule the jobs file declares is changed in that file, not here. */
function changeCard(job) {
  if (job.managedBy === 'FILE') {
    return el(
      'div',
      { class: 'card' },
      el('h3', {}, 'Edit or delete'),
      el('button', { type: 'button', id: 'edit', disabled: true }, 'Edit'),
      el('button', { type: 'button', id: 'delete', class: 'secondary', disabled: true }, 'Delete'),
      el('p', { class: 'notice', id: 'managed-note' }, `Declared in the jobs file ${job.source || ''}: change it there (pause and resume work here).`),
    );
  }
  const reason = el('input', { id: 'delete-reason', type: 'text', maxlength: '1024', autocomplete: 'off' });
  const remove = actionButton(
    `Delete ${job.name} for good`,
    (key) => schedules.remove(job.name, job.version, reason.value.trim(), key),
    (a) => el('p', { class: 'ok', id: 'delete-result' }, `${a.body.name} is deleted (version ${a.body.version}); its name is not used again.`),
    { id: 'delete-confirm', failure: staleVersion },
  );
  const confirm = el(
    'div',
    { id: 'delete-box', hidden: true },
    el('p', { class: 'notice' }, 'Deleting stops the schedule for good, and its name can never be used again.'),
    el('label', { for: 'delete-reason' }, 'Reason (optional)'),
    reason,
    remove.button,
    remove.out,
  );
  return el(
    'div',
    { class: 'card' },
    el('h3', {}, 'Edit or delete'),
    el('a', { class: 'button', id: 'edit', href: `#/schedules/${encodeURIComponent(job.name)}/edit` }, 'Edit (with a dry-run preview)'),
    ' ',
    el('button', { type: 'button', id: 'delete', class: 'secondary', onclick: () => (confirm.hidden = false) }, 'Delete…'),
    confirm,
  );
}

/** A 412: the schedule changed since the page read it. */
export function staleVersion(answer) {
  if (answer.status !== 412) {
    return null;
  }
  return el(
    'div',
    { class: 'problem', id: 'stale' },
    el('p', {}, el('strong', {}, 'Changed meanwhile: reload. '), 'Someone changed this schedule since this page read it; nothing was applied.'),
    el('button', { type: 'button', class: 'secondary', onclick: () => location.reload() }, 'Reload'),
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
