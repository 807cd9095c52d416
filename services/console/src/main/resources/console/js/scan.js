// The event API filters by aggregate and event type, not by aggregate ID: one entity's events are
// found by reading that type's pages and keeping the matches, up to a bound.
import { events } from './api.js';

const PAGE = 1000;
const MAX_PAGES = 20;

/**
 * The events of `aggregateType` for which `matches(event)` holds, read from the start. Resolves
 * with {events, scannedTo, complete} (complete: the whole history was read), or the failed Answer.
 */
export async function scanEvents(aggregateType, matches) {
  const found = [];
  let after = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await events.page(after, PAGE, { aggregateType });
    if (!answer.ok) {
      return answer;
    }
    answer.body.events.filter(matches).forEach((e) => found.push(e));
    const next = answer.body.next;
    if (next === after) {
      return { events: found, scannedTo: next, complete: true };
    }
    after = next;
  }
  return { events: found, scannedTo: after, complete: false };
}
