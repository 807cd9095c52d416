// The one place that knows the API's paths. Schedules are served under /v1/jobs today; once
// /v1/schedules exists (same operations), changing SCHEDULES is the whole switch.
const SCHEDULES = '/v1/jobs';

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

/**
 * Which role a token has: any valid token reads events; only the operator's reads schedules.
 * Answers 'operator', 'client', or the failed Answer (401 for an unknown token).
 */
export async function roleOf(token) {
  const events = await request('GET', '/v1/events?limit=1', { token });
  if (!events.ok) {
    return events;
  }
  const schedules = await request('GET', SCHEDULES, { token });
  if (schedules.ok) {
    return 'operator';
  }
  return schedules.status === 403 ? 'client' : schedules;
}

export const schedules = {
  list: () => request('GET', SCHEDULES),
  get: (name) => request('GET', `${SCHEDULES}/${enc(name)}`),
  runs(name, { from, to, limit } = {}) {
    const q = new URLSearchParams();
    if (from) q.set('from', from);
    if (to) q.set('to', to);
    if (limit) q.set('limit', String(limit));
    return request('GET', `${SCHEDULES}/${enc(name)}/runs?${q}`);
  },
  pause: (name, key) => request('POST', `${SCHEDULES}/${enc(name)}/pause`, { key, body: {} }),
  resume: (name, key) => request('POST', `${SCHEDULES}/${enc(name)}/resume`, { key, body: {} }),
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
