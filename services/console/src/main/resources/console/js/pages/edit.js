// The definition form, for a new schedule (#/new-schedule) and an edit (#/schedules/<name>/edit):
// Preview sends it as a dry run and shows the current against the proposed slots and the clock
// changes of the window; only then does Apply appear, and it sends what was previewed (an edit
// with If-Match: a 412 means the schedule changed meanwhile).
import { Answer, schedules, session } from '../api.js';
import { actionButton } from '../actions.js';
import { el, fill, problemView, when } from '../dom.js';
import { readOnlyNotice } from './readonly.js';
import { clockChangeList, slotDiff } from './diff.js';
import { staleVersion } from './schedule.js';

const NEW = { schedule: { every: 'PT1M' }, zone: 'UTC', handler: 'noop' };
const DEFAULT_HOURS = 48;

export async function render(view, [name]) {
  const creating = name === undefined;
  const title = creating ? 'New schedule' : `Edit ${name}`;
  if (!session.isOperator()) {
    fill(view, el('h1', {}, title), readOnlyNotice());
    return;
  }
  let current = null;
  if (!creating) {
    fill(view, el('h1', {}, title), el('p', { class: 'muted' }, 'Loading…'));
    const answer = await schedules.get(name);
    if (!answer.ok) {
      fill(view, el('h1', {}, title), problemView(answer));
      return;
    }
    current = answer.body;
    if (current.managedBy === 'FILE') {
      fill(view, el('h1', {}, title), el('p', { class: 'notice', id: 'managed-note' }, `Declared in the jobs file ${current.source || ''}: change it there.`));
      return;
    }
  }
  const form = definitionForm(creating ? NEW : current.definition, creating);
  const preview = el('div', { id: 'preview', 'aria-live': 'polite' });
  // A preview holds for the form as it was: any change asks for a new one.
  form.node.addEventListener('input', () => fill(preview));
  const hours = el('input', { id: 'def-hours', type: 'number', min: '1', max: '720', value: String(DEFAULT_HOURS) });
  const previewButton = el(
    'button',
    {
      type: 'button',
      id: 'preview-button',
      onclick: async () => {
        const definition = form.read();
        if (definition instanceof Answer) {
          fill(preview, problemView(definition));
          return;
        }
        fill(preview, el('p', { class: 'muted' }, 'Asking for a dry run…'));
        const h = hours.value || String(DEFAULT_HOURS);
        const dry = creating ? await schedules.previewCreate(definition, h) : await schedules.previewChange(name, definition, h);
        if (!dry.ok) {
          fill(preview, problemView(dry));
          return;
        }
        fill(preview, ...previewView(dry.body, creating), applyButton(definition, creating, current));
      },
    },
    'Preview (dry run)',
  );
  fill(
    view,
    el('p', {}, el('a', { href: creating ? '#/schedules' : `#/schedules/${encodeURIComponent(name)}` }, creating ? '← Schedules' : `← ${name}`)),
    el('h1', {}, title),
    creating ? null : el('p', { class: 'muted' }, `Version ${current.version}; Apply sends it as If-Match.`),
    form.node,
    el('div', { class: 'toolbar' }, el('label', { for: 'def-hours' }, 'Preview window (hours)'), hours, previewButton),
    preview,
  );
}

function previewView(dry, creating) {
  const current = new Set(dry.current);
  const proposed = new Set(dry.proposed);
  const added = dry.proposed.filter((s) => !current.has(s)).length;
  const gone = dry.current.filter((s) => !proposed.has(s)).length;
  const changes = dry.clockChanges;
  return [
    el(
      'p',
      { id: 'preview-summary' },
      creating
        ? `Dry run: ${dry.proposed.length} slots from ${when(dry.from)} to ${when(dry.to)}${dry.truncated ? ' (truncated)' : ''}. Nothing was written.`
        : `Dry run: ${dry.current.length} current and ${dry.proposed.length} proposed slots from ${when(dry.from)} to ${when(dry.to)}${dry.truncated ? ' (truncated)' : ''}: ${added} new, ${gone} no more. Nothing was written.`,
    ),
    slotDiff(dry),
    el('h3', {}, 'Clock changes in the window'),
    changes.length ? clockChangeList(changes, 'preview-dst') : el('p', { class: 'muted', id: 'preview-dst' }, 'No clock change in the window.'),
  ];
}

function applyButton(definition, creating, current) {
  const apply = actionButton(
    creating ? `Create ${definition.name}` : 'Apply',
    (key) => (creating ? schedules.create(definition, key) : schedules.change(current.name, definition, current.version, key)),
    (a) =>
      el(
        'p',
        { class: 'ok', id: 'apply-result' },
        a.body.noop ? `Unchanged: ${a.body.name} already had this definition (version ${a.body.version}). ` : `${a.body.name} is ${creating ? 'created' : 'changed'}: version ${a.body.version}. `,
        el('a', { href: `#/schedules/${encodeURIComponent(a.body.name)}` }, 'Open the schedule'),
      ),
    { id: 'apply', failure: staleVersion },
  );
  return el('div', {}, apply.button, apply.out);
}

/** The form's fields from a definition, and the definition back (or an Answer naming bad fields). */
function definitionForm(def, creating) {
  const s = def.schedule || {};
  const catchUp = def.catchUp || {};
  const dst = def.dst || {};
  const retry = def.retry || {};
  const input = (id, value, attrs = {}) => el('input', { id, type: 'text', value: value ?? '', autocomplete: 'off', spellcheck: 'false', ...attrs });
  const select = (id, values, value) => el('select', { id }, values.map((v) => el('option', { value: v, selected: v === (value ?? '') }, v || '(default)')));
  const f = {
    name: creating ? input('def-name', '', { required: true, maxlength: '128' }) : null,
    kind: select('def-kind', ['every', 'cron'], s.cron ? 'cron' : 'every'),
    expr: input('def-expr', s.cron || s.every),
    zone: input('def-zone', def.zone || 'UTC'),
    handler: input('def-handler', def.handler),
    catchUpPolicy: select('def-catchup-policy', ['', 'LATEST', 'ALL', 'NONE'], catchUp.policy),
    catchUpWindow: input('def-catchup-window', catchUp.window),
    overlap: select('def-overlap', ['', 'SKIP', 'BUFFER_ONE', 'ALLOW'], def.overlap),
    dstGap: select('def-dst-gap', ['', 'SKIP', 'SHIFT_FORWARD'], dst.gap),
    dstOverlap: select('def-dst-overlap', ['', 'FIRST_OCCURRENCE', 'LAST_OCCURRENCE', 'BOTH'], dst.overlap),
    retryMax: input('def-retry-max', retry.maxAttempts, { inputmode: 'numeric' }),
    retryInitial: input('def-retry-initial', retry.initialBackoff),
    retryMultiplier: input('def-retry-multiplier', retry.multiplier, { inputmode: 'decimal' }),
    retryMaxBackoff: input('def-retry-max-backoff', retry.maxBackoff),
    params: el('textarea', { id: 'def-params', spellcheck: 'false' }, JSON.stringify(def.params || {}, null, 2)),
  };
  const field = (label, node) => (node ? el('div', {}, el('label', { for: node.id }, label), node) : null);
  const node = el(
    'form',
    { id: 'definition', class: 'card', onsubmit: (e) => e.preventDefault() },
    el(
      'div',
      { class: 'form-grid' },
      field('Name', f.name),
      field('Kind', f.kind),
      field('Every (ISO-8601, e.g. PT30S) or cron (six fields)', f.expr),
      field('Zone (IANA)', f.zone),
      field('Handler', f.handler),
      field('Catch-up policy', f.catchUpPolicy),
      field('Catch-up window (e.g. PT1H)', f.catchUpWindow),
      field('Overlap', f.overlap),
      field('DST gap', f.dstGap),
      field('DST overlap', f.dstOverlap),
      field('Retry: max attempts', f.retryMax),
      field('Retry: first backoff (e.g. PT1S)', f.retryInitial),
      field('Retry: multiplier', f.retryMultiplier),
      field('Retry: longest backoff', f.retryMaxBackoff),
    ),
    field('Params (JSON object)', f.params),
  );

  function read() {
    // The fields the form does not show (enabled, leaseTtl, an interval's anchor) stay as they were.
    const out = structuredClone(def);
    const errors = {};
    if (creating) {
      out.name = f.name.value.trim();
    } else {
      delete out.name;
    }
    const expr = f.expr.value.trim();
    out.schedule = f.kind.value === 'cron' ? { cron: expr } : { every: expr, ...(s.anchor && !s.cron ? { anchor: s.anchor } : {}) };
    out.zone = f.zone.value.trim() || undefined;
    out.handler = f.handler.value.trim() || undefined;
    const optional = (obj, key, value) => {
      if (value !== '' && value !== undefined) {
        obj[key] = value;
      }
      return obj;
    };
    const cu = optional(optional({}, 'policy', f.catchUpPolicy.value), 'window', f.catchUpWindow.value.trim());
    out.catchUp = Object.keys(cu).length ? cu : undefined;
    out.overlap = f.overlap.value || undefined;
    const d = optional(optional({}, 'gap', f.dstGap.value), 'overlap', f.dstOverlap.value);
    out.dst = Object.keys(d).length ? d : undefined;
    const r = {};
    const number = (field, key, raw) => {
      if (raw.trim() === '') {
        return;
      }
      const n = Number(raw);
      if (!Number.isFinite(n)) {
        errors[field] = 'must be a number';
      } else {
        r[key] = n;
      }
    };
    number('retry.maxAttempts', 'maxAttempts', f.retryMax.value);
    optional(r, 'initialBackoff', f.retryInitial.value.trim());
    number('retry.multiplier', 'multiplier', f.retryMultiplier.value);
    optional(r, 'maxBackoff', f.retryMaxBackoff.value.trim());
    out.retry = Object.keys(r).length ? r : undefined;
    try {
      const p = JSON.parse(f.params.value.trim() || '{}');
      if (p === null || typeof p !== 'object' || Array.isArray(p)) {
        errors.params = 'must be a JSON object';
      } else {
        out.params = p;
      }
    } catch (e) {
      errors.params = `is not JSON: ${e.message}`;
    }
    if (Object.keys(errors).length) {
      return new Answer(400, { title: 'Some fields are not valid', detail: 'Nothing was sent.', errors });
    }
    return JSON.parse(JSON.stringify(out));
  }
  return { node, read };
}
