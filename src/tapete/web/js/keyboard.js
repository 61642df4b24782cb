// Keys: 1–9 and 0 play the n-th playable card, ←/→ move between playable cards, h or ? asks
// for a hint. Nothing while typing or while a window is open.

import { askHint } from "./connection.js";

export function onKey(e) {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
  if (document.querySelector("dialog[open]")) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const cards = [...document.querySelectorAll('[data-testid="hand"] .card')];
  const enabled = cards.filter((c) => !c.disabled);
  if (/^[1-9]$/.test(e.key) || e.key === "0") {
    const n = e.key === "0" ? 10 : Number(e.key);
    const el = enabled[n - 1];
    if (el) { e.preventDefault(); el.focus(); el.click(); }
  } else if ((e.key === "ArrowRight" || e.key === "ArrowLeft") && enabled.length) {
    const i = enabled.indexOf(document.activeElement);
    const next = i < 0 ? 0 : (i + (e.key === "ArrowRight" ? 1 : enabled.length - 1)) % enabled.length;
    e.preventDefault();
    enabled[next].focus();
  } else if (e.key === "h" || e.key === "?") {
    askHint();
  }
}
