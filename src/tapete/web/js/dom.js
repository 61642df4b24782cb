// Small DOM helpers shared by every module: element building, dialogs, number formatting.

// h("button", {class, text, onclick, testid, ...attrs}, ...children): attributes that are
// null, undefined or false are left out; "on..." attaches a listener; true gives an empty one
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "testid") el.dataset.testid = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export const $ = (sel, root = document) => root.querySelector(sel);

// a short mark ("0/7", "D") as it is shown, and the words a screen reader says in its place
// ("0 of 7 game points", "dealer"; only read: .sr-only): the mark keeps its width, as a
// phone's row of seat marks has no room for more
export const spoken = (mark, words) => [h("span", { "aria-hidden": "true" }, mark), h("span", { class: "sr-only" }, words)];

// the page's language (i18n.js sets it on <html>), for the numbers written in it
const pageLang = () => document.documentElement.lang || "en";

// a number as people write it: integers as they are, others with one decimal in the page's
// language (es and pt "12,5", en "12.5"); no thousands separators (scores read "1000")
export const fmt = (n) => (typeof n === "number"
  ? (Number.isInteger(n) ? String(n)
    : n.toLocaleString(pageLang(), { minimumFractionDigits: 1, maximumFractionDigits: 1, useGrouping: false }))
  : String(n ?? "—"));

// a number whose sign is read beside a change's (a rating): a negative one with the true minus
// sign (U+2212) the changes have, "−1,8 (−1,8)" rather than "-1,8 (−1,8)"
export const fmtMinus = (n) => (typeof n === "number" && n < 0 ? `\u2212${fmt(-n)}` : fmt(n));

// a number the server wrote as text ("+1.2", "-0.4": a hint's argument) with the page
// language's decimal sign; any other text as it is
export const decimalText = (text) => (/^[+-]?\d+\.\d+$/.test(text)
  ? text.replace(".", (1.5).toLocaleString(pageLang()).charAt(1))
  : text);

// the press of a button that sends a request which must not be sent twice (a new table, a
// seat, an account): the presses that come while one of the same ``key`` is under way are
// ignored. (A double click on Play, Quick game or Create table made two tables, the first
// left behind with the person seated at it; the buttons are drawn again while the request
// runs, so the guard is by key, not by element.)
const underWay = new Set();
export function oneAtATime(key, fn) {
  return async (...args) => {
    if (underWay.has(key)) return undefined;
    underWay.add(key);
    try { return await fn(...args); } finally { underWay.delete(key); }
  };
}

export const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
export const isNone = (x) => x === null || x === undefined;

// the <dialog> elements of index.html (newgame, stats, ranking, over)
export const dialog = (id) => document.getElementById(id);
export const dialogOpen = (id) => Boolean(dialog(id)?.open);
export function openDialog(id) { const d = dialog(id); if (!d.open) d.showModal(); }
export function hideDialog(id) { const d = dialog(id); if (d?.open) d.close(); }

// nothing has the focus: the page's body, or the table itself, where the focus waits between turns
export function focusIdle() {
  const active = document.activeElement;
  return !active || active === document.body || active === document.getElementById("table");
}

// nothing has the focus and no window is open: the table takes it, so that the keyboard goes on
// from the board rather than from the top of the page
export function focusTableWhenIdle() {
  if (focusIdle() && !document.querySelector("dialog[open]")) document.getElementById("table")?.focus({ preventScroll: true });
}

// the controls the Tab key reaches
const CONTROLS = 'button:not([disabled]), a[href], input:not([disabled]), select:not([disabled]), [tabindex="0"]';

// el.replaceChildren(...children) without losing a keyboard user's place: the focus, when it
// was inside el, comes back to the control of the same testid (a window drawn again once its
// data came, a list updated live), else to el's first control, else to el itself. (A focused
// element taken out of the page leaves the focus on <body>: a screen reader says nothing and
// the next Tab starts the window over.)
export function replaceKeepingFocus(el, children) {
  const active = document.activeElement;
  const had = el.contains(active) && active !== el;
  const testid = had ? active.dataset?.testid : null;
  el.replaceChildren(...children);
  if (!had || document.activeElement === active) return;
  const again = testid ? el.querySelector(`[data-testid="${CSS.escape(testid)}"]`) : null;
  (again?.matches(CONTROLS) ? again : el.querySelector(CONTROLS) ?? el).focus();
}
