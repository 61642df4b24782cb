// Accounts: the top bar's Sign in button (or your name, which opens your page, and Sign out),
// and the window that signs in or up (POST /api/signin, /api/signup). The session is an
// HttpOnly cookie; session.js keeps who is signed in (S.user) and the CSRF token it sends.
// Guests need none of this: they play under a chosen name, unrated.

import { h, hideDialog, oneAtATime, openDialog } from "./dom.js";
import { S, screen } from "./state.js";
import { codeWords, t } from "./i18n.js";
import { api, setMe } from "./session.js";

// what the window shows: signing in or up, and the last refusal (a key and its parameters)
const form = { mode: "signin", error: null };

function accountDialog() {
  let d = document.getElementById("account");
  if (!d) {
    d = h("dialog", { id: "account", testid: "account", "aria-labelledby": "account-title" });
    document.body.append(d);
  }
  return d;
}

export function showAccount(mode = "signin") {
  Object.assign(form, { mode, error: null });
  renderAccount();
  openDialog("account");
  document.getElementById("account-name")?.focus();
}

// the server's answer in the person's language (its own sentences are English): its `code`
// as err_<code> when it gives one (a name in several alphabets, or like an account's)
function accountRefusal(res) {
  const worded = codeWords(res);
  if (worded) return worded;
  if (res.status === 401) return t("account_wrong");
  if (res.status === 409) return t("account_taken");
  if (res.status === 429) return t("account_wait", { n: res.body?.error?.match(/(\d+) s/)?.[1] ?? "30" });
  if (res.status === 400) return t("account_rules");
  return t("unavailable");
}

function renderAccount() {
  const d = accountDialog();
  const signup = form.mode === "signup";
  const name = h("input", { id: "account-name", testid: "account-name", type: "text", required: true,
    minlength: "3", maxlength: "24", autocomplete: "username", autocapitalize: "none", spellcheck: "false" });
  const password = h("input", { id: "account-password", testid: "account-password", type: "password", required: true,
    minlength: signup ? "8" : null, maxlength: "256", autocomplete: signup ? "new-password" : "current-password" });
  const err = h("p", { class: "error", testid: "account-error", role: "alert" }, form.error ?? "");
  // (one request at a time: a double press of Sign up sent a second one, refused 409 "taken")
  const submit = (e) => { e.preventDefault(); return send(); };
  const send = oneAtATime("account", async () => {
    // (the form does not let the browser check it: its bubble spoke the browser's language,
    // not the page's, and left this line empty)
    const bad = [name, password].find((input) => !input.checkValidity());
    if (bad) {
      form.error = t(signup ? "account_rules" : "account_wrong");
      err.textContent = form.error;
      bad.focus();
      return;
    }
    const res = await api(signup ? "/api/signup" : "/api/signin", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ name: name.value.trim(), password: password.value }),
    }).catch(() => ({ ok: false, status: 0, body: null }));
    if (!res.ok) { form.error = accountRefusal(res); err.textContent = form.error; return; }
    setMe(res.body);
    hideDialog("account");
    screen.all();
  });
  d.replaceChildren(h("form", { class: "account", novalidate: true, onsubmit: submit },
    h("h2", { id: "account-title" }, t(signup ? "sign_up" : "sign_in")),
    h("p", { class: "note" }, t("account_why")),
    h("label", { for: "account-name" }, t("user_name")), name,
    h("label", { for: "account-password" }, t("password")), password,
    signup ? h("p", { class: "note", testid: "account-rules" }, t("account_rules")) : null,
    err,
    h("div", { class: "dlgbuttons" },
      h("button", { type: "button", testid: "account-switch", onclick: () => showAccount(signup ? "signin" : "signup") },
        t(signup ? "account_have" : "account_new")),
      h("button", { type: "button", testid: "account-cancel", onclick: () => hideDialog("account") }, t("cancel")),
      h("button", { type: "submit", class: "primary", testid: "account-submit" }, t(signup ? "sign_up" : "sign_in")))));
}

export async function signOut() {
  await api("/api/signout", { method: "POST" }).catch(() => null);
  setMe(null);
  screen.all();
}

// the top bar's part: Sign in, or your page and Sign out
export function accountTools() {
  if (!S.user) {
    return h("button", { type: "button", testid: "open-account", onclick: () => showAccount("signin") }, t("sign_in"));
  }
  return h("span", { class: "account-tools", role: "group", "aria-label": t("account") },
    h("button", { type: "button", testid: "my-page", "aria-label": t("my_page", { name: S.user.name }),
      onclick: () => screen.player(S.user.name) }, S.user.name),
    h("button", { type: "button", testid: "sign-out", onclick: signOut }, t("sign_out")));
}
