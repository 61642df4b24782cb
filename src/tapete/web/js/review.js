// Deal review: a window that steps through a finished deal with every hand open, draws the
// open-hand value curve (SVG), marks the person's inaccuracies, mistakes and blunders on the
// cards they played with the better choice beside them, and shows the talon and the best
// contract. Everything comes from GET /api/tables/{id}/review/{deal} (the server's analysis,
// docs/analysis.md): the client computes no rule. reviewBar(view) is the side panel's button,
// dealEndReview(deal) the end-of-deal moment's, reviewButton(...) any other; ←/→ (Home/End) step through the deal inside the window.

import { fmt, h, hideDialog, isNone, openDialog } from "./dom.js";
import { S, screen, watching } from "./state.js";
import { t, tCount, tOwn } from "./i18n.js";
import { cardName, shownCard } from "./cards.js";
import { actionText, dealEndText } from "./history.js";
import { api, seatHeaders } from "./session.js";

const R = { game: null, profile: null, table: null, token: null, seat: null, deal: 0, deals: 0, step: 0, data: null, error: null, retry: false, failures: 0, timer: null, ask: 0 };

// the chess marks people know: ?! inaccuracy, ? mistake, ?? blunder
const MARK = { inaccuracy: "?!", mistake: "?", blunder: "??" };

function reviewDialog() {
  let d = document.getElementById("review");
  if (!d) {
    d = h("dialog", { id: "review", testid: "review", class: "review", "aria-labelledby": "review-title" });
    d.addEventListener("keydown", onKey);
    d.addEventListener("close", () => {
      clearTimeout(R.timer); R.ask += 1;
      if (S.overAside) screen.table(); // (the end window it was opened from comes back)
    });
    document.body.append(d);
  }
  return d;
}

// the deals a review can open now: every finished deal of the table (the sheet's rows)
const finishedDeals = () => (S.view?.sheet || []).length;
// a seat's token opens the reviews while the game is on; a finished table's are anyone's
const allowed = () => Boolean(S.session && S.view && (S.view.over || (S.session.token && !watching())));

// "Review this deal": the last finished deal (for the side panel); null when there is none
export function reviewBar(v) {
  if (!(v?.sheet || []).length || !allowed()) return null;
  return h("div", { class: "reviewbar" }, reviewButton(v.sheet.length - 1, { label: tOwn("review_this_deal", v.game), testid: "review-deal" }));
}

// "Review this deal" inside the end-of-deal moment (deal_end.js): the deal just over, with
// `before` run first (the moment then waits for "Next deal"); null when it may not be reviewed
export function dealEndReview(deal, before) {
  if (!allowed()) return null;
  return reviewButton(deal, { label: tOwn("review_this_deal", S.view?.game), testid: "deal-end-review", before });
}

export function reviewButton(deal, { label = tOwn("review_this_deal", S.view?.game), testid = "review-open", before = null } = {}) {
  return h("button", { type: "button", testid, onclick: () => { if (before) before(); openReview(deal); } }, label);
}

// `table` (with its `token`, null for anyone's finished game) and its number of `deals`: the
// table on screen by default; the replay of a finished game passes its own, with its game and
// profile (whose words the review says). The viewer's seat is the one they hold at the table
// on screen, none at another table (a replay from a player page): that seat there is somebody
// else, whose marks are not "yours"
// the review's words in the game's own (English Mariage says "hand" where Mil says "deal")
const tr = (key, params) => tOwn(key, R.game, params);

export function openReview(deal, { table = S.session?.table, token = S.session?.token ?? null, deals = finishedDeals(), game = S.view?.game ?? null, profile = S.view?.profile ?? null } = {}) {
  R.game = game; R.profile = profile; R.table = table; R.token = token;
  R.seat = String(table) === String(S.session?.table) ? (S.view?.seat ?? null) : null;
  R.deals = deals;
  R.deal = Math.max(0, Math.min(deal, R.deals - 1));
  R.step = 0; R.data = null; R.error = null; R.retry = false; R.failures = 0;
  openDialog(reviewDialog().id);
  render();
  load();
}

async function load() {
  const ask = ++R.ask;
  clearTimeout(R.timer);
  const { table, token } = R;
  const url = `/api/tables/${encodeURIComponent(table)}/review/${R.deal}`;
  let res;
  try { res = await api(url, { headers: seatHeaders(token) }); } catch { res = { ok: false, status: 0, body: null }; }
  if (ask !== R.ask) return; // another deal was asked for meanwhile, or the window closed
  if (res.status === 202 || res.status === 503) { // being prepared, or the queue is full: ask again
    R.timer = setTimeout(load, 1000 * Math.min(10, Number(res.body?.retry_after) || 3));
    render();
    return;
  }
  // a failure that may pass (no answer, the server's 5xx) is asked again twice before the
  // window says so, with "Try again" (it used to stop at the first one, for good)
  const mayPass = !res.ok && (res.status === 0 || res.status >= 500);
  if (mayPass && R.failures < 2) {
    R.failures += 1;
    R.timer = setTimeout(load, 2000 * R.failures);
    return;
  }
  if (res.ok) R.data = res.body;
  else R.error = res.status === 409 ? tr("review_not_over") : (res.status === 403 ? tr("review_forbidden") : t("unavailable"));
  R.retry = mayPass;
  render();
}

function retry() {
  R.error = null; R.retry = false; R.failures = 0;
  render();
  load();
}

function goDeal(deal) {
  if (deal < 0 || deal >= R.deals || deal === R.deal) return;
  R.deal = deal; R.step = 0; R.data = null; R.error = null; R.retry = false; R.failures = 0;
  render();
  load();
}

function goStep(step) {
  const n = R.data?.steps?.length || 0;
  if (!n) return;
  R.step = Math.max(0, Math.min(step, n - 1));
  render();
}

function onKey(e) {
  if (!R.data || e.ctrlKey || e.metaKey || e.altKey) return;
  const moves = { ArrowRight: R.step + 1, ArrowLeft: R.step - 1, Home: 0, End: Infinity };
  if (!(e.key in moves)) return;
  e.preventDefault();
  goStep(moves[e.key]);
  reviewDialog().querySelector('[data-testid="review-step"]')?.focus();
}

// ------------------------------------------------------------------ the pieces

// the players of the reviewed table (the table on screen may be another one: a replay's review)
const names = () => R.data?.report?.players || S.view?.players || [];
const nameOf = (seat) => names()[seat] ?? `#${seat}`;
// an action in words with the reviewed table's names (actionText alone names the table on screen)
const doneText = (action, seat) => actionText(action, seat, "ev", nameOf, R.profile);
// whose marks the list shows: the viewer's seat, every seat for a spectator or another table
const mine = (d) => isNone(R.seat) || d.seat === R.seat;
const labelText = (label) => t(`review_label_${label}`);
const lossText = (d) => [
  isNone(d.expected_loss) ? null : t("review_expected_loss", { n: fmt(d.expected_loss) }),
  isNone(d.open_loss) ? null : t("review_open_loss", { n: fmt(d.open_loss) }),
].filter(Boolean).join(" · ");

// a card of the review, with its mark (?!, ?, ??) when it was a judged decision
function markedCard(card, label = null, cls = "") {
  const el = shownCard(card, `${cls} ${label ? `mark mark-${label}` : ""}`.trim());
  if (label) {
    el.append(h("span", { class: "markbadge", "aria-hidden": "true" }, MARK[label]));
    el.setAttribute("aria-label", `${cardName(card)}: ${labelText(label)}`);
  }
  return el;
}

// the decision's better choice: the card beside the card played, or the action in words
function betterEl(d) {
  if (!d.best) return null;
  if (d.best.type === "play" && d.best.card) {
    return h("span", { class: "better" }, h("span", { class: "note" }, t("review_better_card")),
      markedCard(d.best.card, null, "better"));
  }
  return h("span", { class: "better note" }, t("review_better", { what: doneText(d.best, d.seat) }));
}

function headline(rep) {
  const parts = [];
  if ("declarer" in rep) { // a game with contracts (the report's own keys say so)
    if (rep.annulled) parts.push(h("p", {}, t("annulled")));
    else if (!isNone(rep.declarer)) {
      const raw = rep.raw?.[rep.declarer];
      parts.push(h("p", { testid: "review-contract" }, rep.rospis
        ? t("review_rospis", { name: nameOf(rep.declarer), bid: rep.bid })
        : t("review_declarer", { name: nameOf(rep.declarer), bid: rep.bid, contract: rep.contract, raw: fmt(raw ?? 0) })));
    }
    if (Array.isArray(rep.talon) && rep.talon.length) {
      // (the table's own word: es casa's talon is the *monte*)
      const talonLabel = tOwn("review_talon", R.profile);
      parts.push(h("div", { class: "reviewtalon", testid: "review-talon", role: "group", "aria-label": talonLabel },
        h("span", { class: "lbl" }, talonLabel), rep.talon.map((c) => shownCard(c))));
    }
    if (!isNone(rep.best_contract)) {
      parts.push(h("p", { testid: "review-best-contract" }, t("review_best_contract", { value: rep.best_contract }),
        " ", isNone(rep.bid_makeable) ? "" : t(rep.bid_makeable ? "review_bid_makeable" : "review_bid_not_makeable")));
    } else if (!isNone(rep.open_best_value)) { // nothing makeable (a flat curve at 0: no trick at all)
      parts.push(h("p", { testid: "review-best-contract" }, t("review_no_contract", { value: fmt(rep.open_best_value) })));
    }
  } else if (rep.result) {
    const r = rep.result;
    parts.push(h("p", { testid: "review-contract" }, dealEndText(r, nameOf)));
  }
  if (rep.complete === false) parts.push(h("p", { class: "note" }, t("review_incomplete")));
  if (rep.quick) parts.push(h("p", { class: "note" }, t("review_quick")));
  return parts;
}

// the open-hand value before the first lead and after each trick, as a line (SVG, no library)
function curve(rep, currentTrick) {
  const values = rep.open_values || [];
  const known = values.filter((x) => typeof x === "number");
  if (!known.length) return h("p", { class: "note", testid: "review-curve-none" }, tr("review_no_curve"));
  // P: the points stay that far inside the axes, so that the current one (r 5.5 and its
  // stroke) never covers the value labels left of the y axis nor the numbers under the x axis
  const W = 360, H = 150, L = 36, B = 22, T = 10, P = 8;
  let lo = Math.min(...known), hi = Math.max(...known);
  if (typeof rep.contract === "number") { lo = Math.min(lo, rep.contract); hi = Math.max(hi, rep.contract); }
  if (hi === lo) { hi += 1; lo -= 1; }
  const x = (i) => L + P + (i * (W - L - P - 8)) / Math.max(1, values.length - 1);
  const y = (v) => T + P + ((hi - v) * (H - T - B - 2 * P)) / (hi - lo);
  const NS = "http://www.w3.org/2000/svg";
  const el = (tag, attrs, ...kids) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) if (!isNone(v)) e.setAttribute(k, String(v));
    for (const k of kids) e.append(k);
    return e;
  };
  const who = "declarer" in rep ? t("review_curve_declarer") : t("review_curve_seat", { name: nameOf(0) });
  const said = values.map((v, i) => `${i}: ${isNone(v) ? "—" : fmt(v)}`).join(", ");
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "curve", role: "img", "data-testid": "review-curve",
    "aria-label": t("review_curve_label", { who, values: said }) });
  svg.append(el("title", {}, `${t("review_curve")}: ${who}`));
  svg.append(el("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" }), el("line", { x1: L, y1: H - B, x2: W - 4, y2: H - B, class: "axis" }));
  for (const v of [lo, hi]) svg.append(el("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end", class: "tick" }, fmt(Math.round(v * 10) / 10)));
  if (typeof rep.contract === "number") {
    svg.append(el("line", { x1: L, y1: y(rep.contract), x2: W - 4, y2: y(rep.contract), class: "target" }));
  }
  // the line, broken where a value is unknown (null)
  let path = "", pen = false;
  values.forEach((v, i) => {
    if (isNone(v)) { pen = false; return; }
    path += `${pen ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)} `;
    pen = true;
  });
  svg.append(el("path", { d: path.trim(), class: "line" }));
  values.forEach((v, i) => {
    svg.append(el("text", { x: x(i), y: H - 6, "text-anchor": "middle", class: "tick" }, String(i)));
    if (isNone(v)) return;
    svg.append(el("circle", { cx: x(i), cy: y(v), r: i === currentTrick ? 5.5 : 3.5, class: i === currentTrick ? "point now" : "point" },
      el("title", {}, `${tCount("review_after_trick", i, { n: i })}: ${fmt(v)}`)));
  });
  return h("figure", { class: "curvebox" }, svg, h("figcaption", { class: "note" }, `${t("review_curve")}: ${who}`));
}

// the position before the step's action: every hand open, the trick, what was done and its judgement
function position(step, decision) {
  const rows = step.hands.map((hand, seat) => h("div", { class: `reviewhand${seat === step.seat ? " acting" : ""}`, role: "group",
    "aria-label": t("review_hand_of", { name: nameOf(seat) }), testid: `review-hand-${seat}` },
    h("span", { class: "lbl" }, nameOf(seat)),
    hand.map((c) => {
      const played = seat === step.seat && step.action?.card === c;
      return markedCard(c, played ? decision?.label : null, played ? "toplay" : "");
    })));
  const trick = step.trick || [];
  const table = h("div", { class: "reviewtrick", role: "group", "aria-label": t("current_trick") },
    h("span", { class: "lbl" }, t("current_trick")),
    trick.length ? trick.map((p) => h("span", { class: "played" }, shownCard(p.card), h("small", {}, nameOf(p.seat)))) : h("span", { class: "note" }, "—"));
  const what = h("p", { class: "reviewaction", testid: "review-action" },
    h("strong", {}, doneText(step.action, step.seat)),
    decision?.label ? h("span", { class: `badge mark-${decision.label}`, testid: "review-step-label" }, ` ${MARK[decision.label]} ${labelText(decision.label)}`) : null);
  const judged = decision && (decision.best || !isNone(decision.expected_loss) || !isNone(decision.open_loss))
    ? h("p", { class: "note reviewjudged" }, decision.best ? betterEl(decision) : t("review_was_best"), " ", lossText(decision))
    : null;
  return h("div", { class: "reviewpos" }, rows, table, what, judged);
}

function marksList(rep, steps) {
  const marked = rep.decisions.filter((d) => d.label && mine(d));
  const title = isNone(R.seat) ? t("review_marks_all") : t("review_marks_yours");
  const head = h("h3", { testid: "review-marks-title" }, title);
  if (!marked.length) return h("section", {}, head, h("p", { testid: "review-no-marks" }, t("review_no_marks")));
  return h("section", {}, head, h("ol", { class: "reviewmarks", testid: "review-marks" }, marked.map((d) => {
    const at = steps.findIndex((s) => s.index === d.index);
    const where = isNone(d.trick) ? "" : `${t("review_trick_n", { n: d.trick })}: `;
    const played = d.action?.type === "play" && d.action.card ? markedCard(d.action.card, d.label) : null;
    const go = h("button", { type: "button", testid: "review-mark", "data-label": d.label, disabled: at < 0,
      "aria-label": `${where}${doneText(d.action, d.seat)}: ${labelText(d.label)}. ${d.best ? t("review_better", { what: doneText(d.best, d.seat) }) : ""}`,
      onclick: () => goStep(at) }, `${where}${doneText(d.action, d.seat)}`);
    return h("li", { class: `mark-${d.label}` }, go, " ", played, h("span", { class: `badge mark-${d.label}` }, `${MARK[d.label]} ${labelText(d.label)}`), " ", betterEl(d), " ", h("small", { class: "note" }, lossText(d)));
  })));
}

function totals(rep) {
  const cols = ["decisions", "expected_loss", "open_loss", "mistakes", "blunders"];
  return h("table", { class: "data", testid: "review-totals" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("review_player")), cols.map((c) => h("th", { scope: "col" }, t(`review_col_${c}`))))),
    h("tbody", {}, rep.seats.map((s, i) => h("tr", {}, h("th", { scope: "row" }, nameOf(i)), cols.map((c) => h("td", {}, fmt(s[c])))))));
}

function render() {
  const d = reviewDialog();
  const closeBtn = h("button", { type: "button", testid: "review-close", onclick: () => hideDialog("review") }, t("close"));
  const dealNav = R.deals > 1 ? h("div", { class: "panel reviewdeals", role: "group", "aria-label": tr("review_deals") },
    h("button", { type: "button", testid: "review-prev-deal", disabled: R.deal <= 0, onclick: () => goDeal(R.deal - 1) }, tr("review_prev_deal")),
    h("span", { testid: "review-deal-no" }, tr("review_deal_of", { n: R.deal + 1, total: R.deals })),
    h("button", { type: "button", testid: "review-next-deal", disabled: R.deal >= R.deals - 1, onclick: () => goDeal(R.deal + 1) }, tr("review_next_deal"))) : null;
  const title = h("h2", { id: "review-title" }, tr("review_title", { n: R.deal + 1 }));
  if (!R.data) {
    const body = R.error ? h("p", { class: "error", role: "alert", testid: "review-error" }, R.error)
      : h("p", { role: "status", testid: "review-loading" }, tr("review_preparing"));
    const again = R.error && R.retry ? h("button", { type: "button", testid: "review-retry", onclick: retry }, t("try_again")) : null;
    d.replaceChildren(...[title, dealNav, body, h("div", { class: "dlgbuttons" }, again, closeBtn)].filter(Boolean));
    return;
  }
  const rep = R.data.report;
  const steps = R.data.steps || [];
  const step = steps[R.step];
  const byIndex = new Map(rep.decisions.filter((x) => !isNone(x.index)).map((x) => [x.index, x]));
  const decision = step && !isNone(step.index) ? byIndex.get(step.index) : null;
  const stepper = h("div", { class: "panel reviewsteps", role: "group", "aria-label": t("review_steps") },
    h("button", { type: "button", testid: "review-first", disabled: R.step <= 0, onclick: () => goStep(0), "aria-label": tr("review_first") }, "«"),
    h("button", { type: "button", testid: "review-prev", disabled: R.step <= 0, onclick: () => goStep(R.step - 1), "aria-label": t("review_prev") }, "◀"),
    h("span", { tabindex: "0", testid: "review-step", role: "status", "aria-live": "polite" }, t("review_step_of", { n: R.step + 1, total: steps.length })),
    h("button", { type: "button", testid: "review-next", disabled: R.step >= steps.length - 1, onclick: () => goStep(R.step + 1), "aria-label": t("review_next") }, "▶"),
    h("button", { type: "button", testid: "review-last", disabled: R.step >= steps.length - 1, onclick: () => goStep(steps.length - 1), "aria-label": t("review_last") }, "»"));
  d.replaceChildren(...[title, dealNav,
    h("section", { class: "reviewhead", testid: "review-head" }, headline(rep)),
    curve(rep, step ? step.tricks_done : null),
    h("section", { class: "reviewstepper" }, h("h3", {}, tr("review_the_deal")), stepper, step ? position(step, decision) : null,
      h("p", { class: "note" }, t("review_keys"))),
    marksList(rep, steps),
    h("details", {}, h("summary", {}, t("review_totals")), totals(rep)),
    h("div", { class: "dlgbuttons" }, closeBtn)].filter(Boolean));
}
