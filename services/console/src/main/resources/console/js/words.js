// Schedules and durations in words. Pure functions (no DOM), checked in the browser by ConsoleIT.

const UNITS = [
  ['H', 'hour'],
  ['M', 'minute'],
  ['S', 'second'],
];

/** "PT30S" -> "30 seconds", "PT1M" -> "minute", "PT1H30M" -> "1 hour 30 minutes". */
export function durationWords(iso) {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(iso);
  if (!m || iso === 'PT') {
    return null;
  }
  const parts = [];
  [m[1], m[2], m[3]].forEach((raw, i) => {
    if (raw === undefined) {
      return;
    }
    let n = Number(raw);
    let unit = UNITS[i][1];
    if (i === 2 && !Number.isInteger(n)) {
      n = Math.round(n * 1000);
      unit = 'millisecond';
    }
    if (n !== 0) {
      parts.push([n, unit]);
    }
  });
  if (parts.length === 1 && parts[0][0] === 1) {
    return parts[0][1];
  }
  return parts.map(([n, unit]) => `${n} ${unit}${n === 1 ? '' : 's'}`).join(' ');
}

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

const isNumber = (f) => /^\d+$/.test(f);
const isAny = (f) => f === '*' || f === '?';
const two = (n) => String(n).padStart(2, '0');

function dayName(f) {
  const upper = f.toUpperCase();
  const i = isNumber(f) ? Number(f) % 7 : DAY_NAMES.indexOf(upper);
  return i >= 0 ? DAYS[i] : null;
}

/** "MON", "1", "MON-FRI", "MON,WED" in words, or null. */
function daysWords(f) {
  if (f.includes('-')) {
    const [a, b] = f.split('-').map(dayName);
    return a && b ? `${a} to ${b}` : null;
  }
  const names = f.split(',').map(dayName);
  if (names.some((n) => n === null)) {
    return null;
  }
  return names.length === 1 ? names[0] : names.slice(0, -1).join(', ') + ' and ' + names.at(-1);
}

function ordinal(n) {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

/** A Spring cron (second minute hour day-of-month month day-of-week) in words, or null. */
export function cronWords(expression, zone) {
  const f = expression.trim().split(/\s+/);
  if (f.length !== 6) {
    return null;
  }
  const [sec, min, hour, dom, mon, dow] = f;
  const step = (field) => /^(?:\*|0)\/(\d+)$/.exec(field);
  const anyDate = isAny(dom) && isAny(mon) && isAny(dow);
  const at = () => `${two(hour)}:${two(min)}${Number(sec) === 0 ? '' : ':' + two(sec)}`;
  const inZone = zone ? ` ${zone}` : '';

  if (anyDate && isAny(hour) && isAny(min) && step(sec)) {
    return `every ${step(sec)[1]} seconds`;
  }
  if (anyDate && isAny(hour) && isAny(min) && isAny(sec)) {
    return 'every second';
  }
  if (!isNumber(sec) || !anyDate && !(isNumber(min) && isNumber(hour))) {
    return null;
  }
  if (anyDate && isAny(hour) && step(min)) {
    return `every ${step(min)[1]} minutes` + (Number(sec) === 0 ? '' : ` at second ${sec}`);
  }
  if (anyDate && isAny(hour) && isAny(min)) {
    return 'every minute' + (Number(sec) === 0 ? '' : ` at second ${sec}`);
  }
  if (anyDate && isAny(hour) && isNumber(min)) {
    return `every hour at minute ${two(min)}` + (Number(sec) === 0 ? '' : `:${two(sec)}`);
  }
  if (anyDate && step(hour) && isNumber(min)) {
    return `every ${step(hour)[1]} hours at minute ${two(min)}${inZone}`;
  }
  if (!isNumber(min) || !isNumber(hour)) {
    return null;
  }
  if (anyDate) {
    return `every day at ${at()}${inZone}`;
  }
  if (isAny(dom) && isAny(mon)) {
    const days = daysWords(dow);
    return days ? `every ${days} at ${at()}${inZone}` : null;
  }
  if (isNumber(dom) && isAny(mon) && isAny(dow)) {
    return `on the ${ordinal(Number(dom))} of every month at ${at()}${inZone}`;
  }
  return null;
}

/**
 * The API's schedule ("every PT30S", "cron 0 5 0 * * ?") and zone in words; what cannot be put
 * in words is shown as it is, with its zone.
 */
export function scheduleWords(schedule, zone) {
  if (typeof schedule !== 'string') {
    return '';
  }
  if (schedule.startsWith('every ')) {
    const words = durationWords(schedule.slice(6).trim());
    return words ? `every ${words}` : schedule;
  }
  if (schedule.startsWith('cron ')) {
    const words = cronWords(schedule.slice(5), zone);
    return words || `${schedule} (${zone})`;
  }
  return schedule;
}

/** The slot statuses the ledger records, with the words and the class each is shown with. */
export const STATUSES = {
  COMPLETED: 'completed',
  FAILED: 'failed',
  MISSED: 'missed',
  SKIPPED: 'skipped',
  FIRED: 'running',
  NONE: 'no record',
};

/** The word for a status ("FIRED" -> "running"). */
export function statusWord(status) {
  return STATUSES[status] || String(status || '').toLowerCase();
}
