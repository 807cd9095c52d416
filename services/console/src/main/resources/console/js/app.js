// The console's shell: hash routes to pages, the signed-in role in the header, sign-out.
import { session } from './api.js';
import { fill, problemView } from './dom.js';
import * as signin from './pages/signin.js';
import * as schedules from './pages/schedules.js';
import * as schedule from './pages/schedule.js';
import * as slot from './pages/slot.js';
import * as eventsPage from './pages/events.js';
import * as lookup from './pages/lookup.js';
import * as edit from './pages/edit.js';

const ROUTES = [
  [/^#\/schedules\/([^/]+)$/, schedule],
  [/^#\/schedules\/([^/]+)\/edit$/, edit],
  [/^#\/new-schedule$/, edit],
  [/^#\/schedules$/, schedules],
  [/^#\/slots\/([^/]+)\/([^/]+)$/, slot],
  [/^#\/events(?:\/([A-Za-z]+)(?:\/([^/]+)(?:\/(\d+))?)?)?$/, eventsPage],
  [/^#\/lookup$/, lookup],
];

const view = document.getElementById('view');
let cleanup = null;

function header() {
  const who = document.getElementById('who');
  const nav = document.getElementById('nav');
  const signOut = document.getElementById('sign-out');
  const role = session.role();
  nav.hidden = !role;
  signOut.hidden = !role;
  who.textContent = role === 'operator' ? 'operator' : role === 'client' ? 'client · read-only' : '';
  nav.querySelectorAll('a').forEach((a) => {
    if (location.hash.startsWith(a.getAttribute('href'))) {
      a.setAttribute('aria-current', 'page');
    } else {
      a.removeAttribute('aria-current');
    }
  });
}

async function route() {
  if (typeof cleanup === 'function') {
    cleanup();
  }
  cleanup = null;
  header();
  if (!session.token()) {
    signin.render(view);
    return;
  }
  const hash = location.hash || '';
  for (const [pattern, page] of ROUTES) {
    const m = pattern.exec(hash);
    if (m) {
      try {
        cleanup = await page.render(view, m.slice(1).map((p) => (p === undefined ? undefined : decodeURIComponent(p))));
      } catch (e) {
        fill(view, problemView({ status: 0, problem: { title: 'This page failed', detail: String(e.message || e), errors: {} } }));
      }
      view.focus({ preventScroll: true });
      return;
    }
  }
  location.replace('#/schedules');
}

document.getElementById('sign-out').addEventListener('click', () => {
  session.clear();
  location.hash = '#/signin';
  route();
});
window.addEventListener('hashchange', route);
route();

