// The one place that knows the API's paths.
const SCHEDULES = '/v1/schedules';

const TOKEN_KEY = 'slotkeeper.console.token';
const ROLE_KEY = 'slotkeeper.console.role';

/** The token lives in sessionStorage only: never in a URL, a cookie or a log. */
export const session = {
  token: () => sessionStorage.getItem(TOKEN_KEY),
  role: () => sessionStorage.getItem(ROLE_KEY),
  isOperator: () => sessionStorage.getItem(ROLE_KEY) === 'operator',
  save(token, role) {
    sessionStorage.setItem(TOKEN_KEY, token);
    sessionStorage.setItem(ROLE_KEY, role);
  },
  /** Signing out forgets everything the console kept in the tab (the token, the stream position). */
  clear() {
    sessionStorage.clear();
  },
};

/**
 * An answer of the API: status, parsed body, the problem (RFC 9457) when it failed, and whether
 * it replays an earlier answer to the same Idempotency-Key.
 */
export class Answer {
  constructor(status, body, replayed) {
    this.status = status;
    this.body = body;
    this.replayed = replayed;
  }

  get ok() {
    return this.status >= 200 && this.status < 300;
  }

  /** The problem's title and detail, with every bad field it names. */
  get problem() {
    if (this.ok) {
      return null;
    }
    const b = this.body && typeof this.body === 'object' ? this.body : {};
    return {
      title: b.title || 'HTTP ' + this.status,
      detail: b.detail || (typeof this.body === 'string' ? this.body : ''),
      errors: b.errors || {},
    };
  }
}

/** Sends a request with the session's token (or the one given, at sign-in). */
export async function request(method, path, { body, key, token, headers } = {}) {
  const h = new Headers(headers || {});
  h.set('Accept', 'application/json, application/problem+json');
  h.set('Authorization', 'Bearer ' + (token || session.token() || ''));
  if (key) {
    h.set('Idempotency-Key', key);
  }
  if (body !== undefined) {
    h.set('Content-Type', 'application/json');
  }
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch (e) {
    return new Answer(0, { title: 'The service did not answer', detail: String(e.message || e) });
  }
  const text = await response.text();
  let parsed = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch (e) {
    // not JSON: kept as text
  }
  return new Answer(
    response.status,
    parsed,
    response.headers.get('Idempotent-Replayed') === 'true',
  );
}

const enc = encodeURIComponent;

/** The read side of the admin API: only the operator's token reads it. */
export const ROLE_PROBE = '/v1/admin/projections';

/**
 * Which role a token has: any valid token reads events; only the operator's reads the
 * projections' admin list. Answers 'operator', 'client', or the failed Answer (401 for an unknown
 * token).
 */
export async function roleOf(token) {
  const events = await request('GET', '/v1/events?limit=1', { token });
  if (!events.ok) {
    return events;
  }
  const admin = await request('GET', ROLE_PROBE, { token });
  if (admin.ok) {
    return 'operator';
  }
  return admin.status === 403 ? 'client' : admin;
}

/** A schedule's version as the If-Match header the API wants (its ETag). */
const ifMatch = (version) => ({ 'If-Match': `"${version}"` });

/** The dry-run query: the window of `hours` from now. */
const dryRunQuery = (hours) => `?dryRun=true&hours=${enc(String(hours))}`;

export const schedules = {
  /** A page of schedules by name; `state` filters (ACTIVE, PAUSED, DELETED), `after` is a page's `next`. */
  list({ state, after, limit } = {}) {
    const q = new URLSearchParams();
    if (state) q.set('state', state);
    if (after) q.set('after', after);
    if (limit) q.set('limit', String(limit));
    return request('GET', `${SCHEDULES}?${q}`);
  },
  get: (name) => request('GET', `${SCHEDULES}/${enc(name)}`),
  create: (definition, key) => request('POST', SCHEDULES, { key, body: definition }),
  previewCreate: (definition, hours) =>
    request('POST', SCHEDULES + dryRunQuery(hours), { key: crypto.randomUUID(), body: definition }),
  change: (name, definition, version, key) =>
    request('PUT', `${SCHEDULES}/${enc(name)}`, { key, body: definition, headers: ifMatch(version) }),
  previewChange: (name, definition, hours) =>
    request('PUT', `${SCHEDULES}/${enc(name)}${dryRunQuery(hours)}`, {
      key: crypto.randomUUID(),
      body: definition,
    }),
  remove: (name, version, reason, key) =>
    request('DELETE', `${SCHEDULES}/${enc(name)}`, {
      key,
      body: reason ? { reason } : {},
      headers: ifMatch(version),
    }),
  runs(name, { from, to, limit } = {}) {
    const q = new URLSearchParams();
    if (from) q.set('from', from);
    if (to) q.set('to', to);
    if (limit) q.set('limit', String(limit));
    return request('GET', `${SCHEDULES}/${enc(name)}/runs?${q}`);
  },
  /** The events one slot caused and the commands they came from. */
  slotEvents: (name, slot) => request('GET', `${SCHEDULES}/${enc(name)}/runs/${enc(slot)}/events`),
  pause: (name, reason, key) =>
    request('POST', `${SCHEDULES}/${enc(name)}/pause`, { key, body: reason ? { reason } : {} }),
  resume: (name, reason, key) =>
    request('POST', `${SCHEDULES}/${enc(name)}/resume`, { key, body: reason ? { reason } : {} }),
  trigger: (name, slot, key) =>
    request('POST', `${SCHEDULES}/${enc(name)}/runs`, { key, body: { slot } }),
  backfill: (name, from, to, dryRun, key) =>
    request('POST', `${SCHEDULES}/${enc(name)}/backfill`, { key, body: { from, to, dryRun } }),
};

export const events = {
  page(after, limit, { aggregateType, eventType } = {}) {
    const q = new URLSearchParams({ after: String(after), limit: String(limit) });
    if (aggregateType) q.set('aggregateType', aggregateType);
    if (eventType) q.set('eventType', eventType);
    return request('GET', `/v1/events?${q}`);
  },

  /**
   * Follows the SSE stream with fetch (EventSource cannot send the bearer header), resuming
   * after `after` with Last-Event-ID. Calls onEvent(event JSON) for each; ends when `signal`
   * aborts. Resolves with an Answer when the API refuses, or null when the stream ended.
   */
  async follow(after, { aggregateType, eventType } = {}, onEvent, signal) {
    const q = new URLSearchParams();
    if (aggregateType) q.set('aggregateType', aggregateType);
    if (eventType) q.set('eventType', eventType);
    const response = await fetch(`/v1/events/stream?${q}`, {
      headers: {
        Authorization: 'Bearer ' + session.token(),
        Accept: 'text/event-stream',
        'Last-Event-ID': String(after),
      },
      cache: 'no-store',
      credentials: 'omit',
      signal,
    });
    if (!response.ok) {
      let body = null;
      try {
        body = await response.json();
      } catch (e) {
        // no problem body
      }
      return new Answer(response.status, body, false);
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        return null;
      }
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('\n');
        if (data) {
          onEvent(JSON.parse(data));
        }
      }
    }
  },
};

export const lookups = {
  order: (id) => request('GET', `/v1/orders/${enc(id)}`),
  stock: (sku) => request('GET', `/v1/inventory/${enc(sku)}`),
  stockLog: (sku) => request('GET', `/v1/inventory/${enc(sku)}/log?limit=50`),
  refund: (id) => request('GET', `/v1/refunds/${enc(id)}`),
};
