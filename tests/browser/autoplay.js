// The in-page driver of autoplay.py (a function that Playwright evaluates in the page).
(() => {
  if (window.__auto) return;
  const q = (s) => document.querySelector(s);
  const ok = (el) => el && !el.disabled;
  window.__autoPaused = false;
  window.__checks = [];
  window.__problems = [];
  const seen = new Set();
  const check = (where) => {
    const W = window.innerWidth, H = window.innerHeight;
    const parts = ['hand', 'actions', 'center', 'trick', 'talon', 'deal-end', 'next-deal', 'hint-text']
      .map((id) => [id, q(`#table [data-testid="${id}"]`)]);
    document.querySelectorAll('#table section.seat').forEach((el) => parts.push([el.dataset.testid, el]));
    for (const [name, el] of parts) {
      if (!el) continue;
      const b = el.getBoundingClientRect();
      if (b.height === 0) continue;
      if (b.top < -1 || b.bottom > H + 1) window.__problems.push(`${where}: ${name} at y=${Math.round(b.top)}..${Math.round(b.bottom)} in a window of ${H}`);
    }
    for (const id of ['hand', 'actions', 'center']) if (!q(`#table [data-testid="${id}"]`)) window.__problems.push(`${where}: no ${id}`);
    const doc = document.documentElement;
    if (doc.scrollWidth > W + 1) window.__problems.push(`${where}: the page is ${doc.scrollWidth} px wide in ${W}`);
    if (W >= 1000 && doc.scrollHeight > H + 1) window.__problems.push(`${where}: the page is ${doc.scrollHeight} px tall in ${H}`);
    const rows = document.querySelectorAll('[data-testid="sheet-row"]');
    const scroller = q('[data-testid="sheet-scroll"]');
    if (rows.length && scroller) {
      const last = rows[rows.length - 1].getBoundingClientRect();
      const s = scroller.getBoundingClientRect();
      if (last.bottom > s.bottom + 1 || last.top < s.top - 1) window.__problems.push(`${where}: the newest sheet row is hidden`);
    }
    window.__checks.push(where);
  };
  window.__fitCheck = check; // (a test that feeds views itself measures with it too)
  window.__auto = setInterval(() => {
    if (window.__autoPaused || document.querySelector('dialog[open]')) return;
    const m = q('#table');
    if (!m) return;
    const next = q('[data-testid="next-deal"]');
    if (ok(next)) {
      const key = `deal ${m.dataset.deals} over`;
      if (!seen.has(key)) { seen.add(key); check(key); }
      next.click(); return;
    }
    if (m.dataset.myTurn !== 'true' || m.dataset.pending !== 'false') return;
    const key = `deal ${Number(m.dataset.deals) + 1}, ${m.dataset.phase}`;
    if (!seen.has(key)) { seen.add(key); check(key); }
    if (window.__stopAt && window.__stopAt === m.dataset.phase && Number(m.dataset.deals) >= window.__stopDeals) {
      window.__autoPaused = true; window.__stopped = m.dataset.phase; return;
    }
    for (const id of ['keep', 'pass', 'bid', 'contract', 'decline']) {
      const b = q(`[data-testid="${id}"]`);
      if (ok(b)) { b.click(); return; }
    }
    const card = q('[data-testid="hand"] .card:not([disabled])');
    const give = q('[data-testid^="give-to-"]:not([disabled])');
    if (give) { give.click(); return; }
    if (card) { card.click(); return; }
    const other = q('[data-testid="actions"] button:not([disabled])');
    if (other) other.click();
  }, 15);
})
