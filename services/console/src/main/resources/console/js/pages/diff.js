// A dry run's answer on the page: the current and the proposed slots side by side, and each
// clock change of the window with what the DST policy does there.
import { el, when } from '../dom.js';

/** Current and proposed slots in two columns; a slot only in one of them is marked. */
export function slotDiff(dry) {
  const current = new Set(dry.current);
  const proposed = new Set(dry.proposed);
  const column = (title, slots, other, mark, id) =>
    el(
      'div',
      { id },
      el('h4', {}, `${title} (${slots.length})`),
      el(
        'ul',
        {},
        slots.map((s) =>
          el('li', { 'data-slot': s, class: other.has(s) ? 'same' : mark }, when(s), other.has(s) ? '' : mark === 'added' ? ' (new)' : ' (no more)'),
        ),
      ),
    );
  return el(
    'div',
    { class: 'diff' },
    column('Current', dry.current, proposed, 'gone', 'diff-current'),
    column('Proposed', dry.proposed, current, 'added', 'diff-proposed'),
  );
}

/** Each clock change: when, what the local clock does, the policy and the slots around it. */
export function clockChangeList(changes, id) {
  return el(
    'div',
    { id },
    changes.map((c) =>
      el(
        'div',
        { class: 'dst', 'data-at': c.at, 'data-definition': c.definition },
        el('strong', {}, `${c.at.slice(0, 10)} · ${c.zone} · ${c.kind === 'GAP' ? 'clocks go forward' : 'clocks go back'}`),
        ` (${c.definition}): local ${c.localFrom.replace('T', ' ')} → ${c.localTo.replace('T', ' ')}; policy ${c.policy}. `,
        c.slots.length ? `Slots around it: ${c.slots.map((s) => when(s)).join(', ')}.` : 'No slot around it.',
      ),
    ),
  );
}
