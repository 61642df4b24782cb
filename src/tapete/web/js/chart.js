// The end of a game in one picture: each player's score deal by deal as a line chart, the
// deals a player spent in the barrel marked on their line. Plain SVG, no library; every
// number comes from the view's sheet (the row's standing under the kind's score_key).

import { fmt } from "./dom.js";
import { t, tMaybe } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
const COLORS = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a"];
// the chart's width in its own units: a phone draws it narrower, so that its text, scaled
// down with the picture, stays readable (560 units on a 340 px phone made 11 px text 6 px)
const WIDE = 560;
const NARROW = 380;
const H = 240;
const chartWidth = () => (window.matchMedia?.("(max-width: 520px)").matches ? NARROW : WIDE);
// the legend has a band of its own above the plot (drawn inside it, on the target line, the
// lines and barrel marks near the target covered the names)
const LEGEND_Y = 6;
const PAD = { left: 44, right: 12, top: 32, bottom: 26 };

export function el(tag, attrs = {}, text = null) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) e.setAttribute(k, String(v));
  if (text !== null) e.textContent = text;
  return e;
}

// v: the final view; key: the rows' standing ("scores" for Mil, "match" for Mariage)
export function scoreChart(v, key) {
  const rows = (v.sheet || []).filter((r) => Array.isArray(r[key]));
  const players = v.players || [];
  if (!rows.length || !players.length) return null;
  const series = players.map((_, s) => [0, ...rows.map((r) => Number(r[key][s]) || 0)]);
  const all = series.flat().concat(typeof v.target === "number" ? [v.target] : []);
  const lo = Math.min(0, ...all);
  const hi = Math.max(1, ...all);
  const W = chartWidth();
  const x = (i) => PAD.left + (i * (W - PAD.left - PAD.right)) / Math.max(1, rows.length);
  const y = (n) => PAD.top + ((hi - n) * (H - PAD.top - PAD.bottom)) / (hi - lo || 1);
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "data-testid": "score-chart",
    "aria-label": t("chart_label", { n: rows.length }) });
  svg.append(el("title", {}, t("chart_label", { n: rows.length })));
  // axes: zero, the target, the first and last deal
  svg.append(el("line", { x1: PAD.left, x2: W - PAD.right, y1: y(0), y2: y(0), class: "axis" }));
  if (typeof v.target === "number") {
    svg.append(el("line", { x1: PAD.left, x2: W - PAD.right, y1: y(v.target), y2: y(v.target), class: "target" }));
    svg.append(el("text", { x: PAD.left - 4, y: y(v.target) + 4, "text-anchor": "end" }, fmt(v.target)));
  }
  svg.append(el("text", { x: PAD.left - 4, y: y(0) + 4, "text-anchor": "end" }, "0"));
  if (lo < 0) svg.append(el("text", { x: PAD.left - 4, y: y(lo) + 4, "text-anchor": "end" }, fmt(lo)));
  svg.append(el("text", { x: x(0), y: H - 8, "text-anchor": "middle" }, "0"));
  svg.append(el("text", { x: x(rows.length), y: H - 8, "text-anchor": "middle" }, String(rows.length)));
  svg.append(el("text", { x: (PAD.left + W) / 2, y: H - 8, "text-anchor": "middle", class: "caption" }, tMaybe(`chart_rounds_${v.game}`) ?? t("chart_deals")));
  series.forEach((pts, s) => {
    const color = COLORS[s % COLORS.length];
    svg.append(el("polyline", { points: pts.map((n, i) => `${x(i).toFixed(1)},${y(n).toFixed(1)}`).join(" "),
      fill: "none", stroke: color, "stroke-width": 2, "data-testid": `chart-line-${s}`, "data-points": pts.length }));
    rows.forEach((r, i) => {
      if (!r.in_barrel?.[s]) return;
      svg.append(el("rect", { x: x(i + 1) - 3.5, y: y(pts[i + 1]) - 3.5, width: 7, height: 7, fill: color, class: "barrel-mark",
        "data-testid": `chart-barrel-${s}` }, null));
    });
  });
  svg.append(legendBand(players, rows.some((r) => (r.in_barrel || []).some(Boolean)), W));
  return svg;
}

// the legend in one row above the plot: each player's colour and name (a long one cut), then
// the barrel's square when used. Placed first at about 7 units a letter, then, once the chart
// is drawn, by the names' measured widths: a name of wide letters ("MMMM…") ran into the
// next one; a row still wider than the plot is squeezed to fit.
const LEGEND_NAME = 14;
function legendBand(players, barrel, W) {
  const legend = el("g", { class: "legend" });
  const entries = players.map((name, s) => ({
    mark: el("rect", { y: LEGEND_Y + 4, width: 12, height: 4, fill: COLORS[s % COLORS.length] }),
    text: el("text", { y: LEGEND_Y + 10 }, name.length > LEGEND_NAME ? `${name.slice(0, LEGEND_NAME - 1)}…` : name),
    gap: 16,
  }));
  if (barrel) {
    entries.push({ mark: el("rect", { y: LEGEND_Y + 3, width: 7, height: 7, fill: "#555" }),
      text: el("text", { y: LEGEND_Y + 10 }, t("barrel")), gap: 11 });
  }
  for (const e of entries) legend.append(e.mark, e.text);
  layOut(entries, entries.map((e) => 7 * e.text.textContent.length), false, W);
  placeWhenDrawn(legend, entries, W);
  return legend;
}

// each entry's mark and name from the left, ``widths`` the names' widths; ``fit``: a row wider
// than the plot is squeezed (the names drawn narrower); W: the chart's width
function layOut(entries, widths, fit, W) {
  const names = widths.reduce((a, b) => a + b, 0);
  const fixed = entries.reduce((sum, e) => sum + e.gap + 20, -20); // (marks and spaces)
  const room = W - PAD.right - (PAD.left + 8);
  const squeeze = fit && fixed + names > room ? (room - fixed) / names : 1;
  let x = PAD.left + 8;
  entries.forEach((e, i) => {
    const w = widths[i] * squeeze;
    e.mark.setAttribute("x", x);
    e.text.setAttribute("x", x + e.gap);
    if (squeeze < 1) { e.text.setAttribute("textLength", w.toFixed(1)); e.text.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
    x += e.gap + w + 20;
  });
}

// (the chart is drawn once it is in the page: a window or section opened later waits for it;
// a few seconds at most)
function placeWhenDrawn(legend, entries, W, frames = 180) {
  requestAnimationFrame(() => {
    if (placeLegend(legend, entries, W) === false && frames > 0) placeWhenDrawn(legend, entries, W, frames - 1);
  });
}

function placeLegend(legend, entries, W) {
  if (!legend.isConnected) return false;
  const widths = entries.map((e) => e.text.getComputedTextLength());
  if (widths.some((w, i) => w === 0 && entries[i].text.textContent)) return false; // (not drawn yet)
  layOut(entries, widths, true, W);
  legend.dataset.placed = "true";
  return true;
}
