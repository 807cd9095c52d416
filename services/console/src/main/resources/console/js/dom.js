// Small DOM helpers: elements from a tag, attributes and children (text is always text, never
// HTML), and how an API answer is shown.

/** el('a', {href: '#/x', class: 'c'}, 'text', child) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) {
      continue;
    }
    if (name.startsWith('on') && typeof value === 'function') {
      node.addEventListener(name.slice(2), value);
    } else if (value === true) {
      node.setAttribute(name, '');
    } else {
      node.setAttribute(name, String(value));
    }
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) {
      continue;
    }
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the node's children. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/** A problem (RFC 9457) as the user reads it: title, detail and every bad field. */
export function problemView(answer) {
  const p = answer.problem;
  const fields = Object.entries(p.errors || {});
  return el(
    'div',
    { class: 'problem', role: 'alert' },
    el('strong', {}, p.title),
    answer.status ? ` (HTTP ${answer.status})` : '',
    p.detail ? el('p', {}, p.detail) : null,
    fields.length
      ? el('ul', {}, fields.map(([field, why]) => el('li', {}, el('code', {}, field), ': ', why)))
      : null,
  );
}

/** A definition list of label/value pairs; empty values shown as a dash. */
export function facts(pairs) {
  return el(
    'dl',
    { class: 'facts' },
    pairs.map(([label, value, attrs]) => [
      el('dt', {}, label),
      el('dd', attrs || {}, value === null || value === undefined || value === '' ? '—' : value),
    ]),
  );
}

/**
 * An instant as UTC text, "2026-11-28 16:05:00Z", or a dash. One with an offset (PostgreSQL's JSON
 * of a timestamptz, "…+00:00") is turned to UTC first.
 */
export function when(iso) {
  if (!iso) {
    return '—';
  }
  const parsed = /Z$/.test(iso) ? null : new Date(iso);
  const utc = parsed && !Number.isNaN(parsed.getTime()) ? parsed.toISOString() : iso;
  return utc.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** A status cell: colour and its word, so colour is never the only sign. */
export function statusBadge(word, status) {
  return el('span', { class: `status s-${(status || 'none').toLowerCase()}` }, word);
}

/** A number of milliseconds as a person reads it: "31 ms", "2.5 s", "5 d 17 h 6 min". */
export function millis(ms) {
  if (ms === null || ms === undefined) {
    return '—';
  }
  if (Math.abs(ms) < 1000) {
    return `${ms} ms`;
  }
  if (Math.abs(ms) < 60_000) {
    return `${(ms / 1000).toFixed(1)} s`;
  }
  const units = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
  ];
  let rest = Math.round(Math.abs(ms) / 60_000) * 60_000;
  const parts = [];
  for (const [unit, size] of units) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return (ms < 0 ? '-' : '') + parts.join(' ');
}
