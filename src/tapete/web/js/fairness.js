// Fair deals (docs/server.md "Fair deals"): the current deal's commitment, shown short beside
// the deal number, and the link to the fairness page. The client only shows what the view
// says; `tapete replay` is what verifies.

import { h } from "./dom.js";
import { S } from "./state.js";
import { t } from "./i18n.js";
import { el } from "./chart.js";

export const fairnessUrl = () => `/static/fair/fairness.${S.lang}.html`;

// the view's `commitment` (null: a chosen deal, practice) as a small link to the fairness page
export function commitmentMark(v) {
  const c = v?.commitment;
  if (v?.over) return null;
  const label = c ? t("commitment_label", { c }) : t("practice_deal");
  return h("a", { class: "fairmark", testid: "commitment", href: fairnessUrl(), target: "_blank", rel: "noopener", title: label, "aria-label": label },
    c ? [lockIcon(), ` ${c.slice(0, 8)}`] : t("practice_short"));
}

// a padlock drawn, not the emoji: a machine without an emoji font showed an empty box
function lockIcon() {
  const svg = el("svg", { viewBox: "0 0 12 14", width: "0.8em", height: "0.95em", class: "lock", "aria-hidden": "true", focusable: "false" });
  svg.append(el("path", { d: "M3 6V4a3 3 0 0 1 6 0v2", fill: "none", stroke: "currentColor", "stroke-width": "1.6" }),
    el("rect", { x: "1", y: "6", width: "10", height: "7.5", rx: "1.5", fill: "currentColor" }));
  return svg;
}
