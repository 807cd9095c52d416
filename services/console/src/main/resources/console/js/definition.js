// A schedule's definition as the API holds it (the jobs file's fields): its spec as one line, and
// its state in a word. Pure functions (no DOM).

/** "cron 0 5 0 * * ?" or "every PT30S": the spec as the jobs file writes it (words.js reads it). */
export function specOf(definition) {
  const s = (definition && definition.schedule) || {};
  return s.cron ? `cron ${s.cron}` : `every ${s.every}`;
}

/** active, paused, deleted, or disabled (a definition with enabled: false never fires). */
export function stateWord(schedule) {
  if (schedule.state === 'ACTIVE' && schedule.definition && schedule.definition.enabled === false) {
    return 'disabled';
  }
  return String(schedule.state || '').toLowerCase();
}

/** The zone a definition's slots are computed in ("Z" is stored for UTC). */
export function zoneOf(definition) {
  const z = (definition && definition.zone) || 'UTC';
  return z === 'Z' ? 'UTC' : z;
}
