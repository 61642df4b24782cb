// Fair deals (docs/server.md "Fair deals"): the current deal's commitment, shown short beside
// the deal number, and the link to the fairness page. The client only shows what the view
// says; `tapete replay` is what verifies.

import { h } from "./dom.js";
import { S } from "./state.js";
import { t } from "./i18n.js";

export const fairnessUrl = () => `/static/fair/fairness.${S.lang}.html`;

// the view's `commitment` (null: a chosen deal, practice) as a small link to the fairness page
export function commitmentMark(v) {
  const c = v?.commitment;
  if (v?.over) return null;
  const label = c ? t("commitment_label", { c }) : t("practice_deal");
  return h("a", { class: "fairmark", testid: "commitment", href: fairnessUrl(), target: "_blank", rel: "noopener", title: label, "aria-label": label },
    c ? `🔒 ${c.slice(0, 8)}` : t("practice_short"));
}
