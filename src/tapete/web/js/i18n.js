// The client's words: i18n/{es,pt,en}.json, the language choice, and t(key, params).

import { h } from "./dom.js";
import { S, STORE_LANG, screen } from "./state.js";

export const LANGS = ["es", "pt", "en"];

// the string of `key` in the current language (English when missing), with {name} filled in
export function t(key, params = {}) {
  let s = S.dict[key] ?? S.fallback[key] ?? key;
  for (const [k, v] of Object.entries(params)) s = s.split(`{${k}}`).join(String(v));
  return s;
}

// t(key) for a count: `${key}_one` when `count` is 1 and the language has it ("1 free", "2 free")
export const tCount = (key, count, params = {}) => t(count === 1 && tMaybe(`${key}_one`) !== null ? `${key}_one` : key, params);

// a refusal of the server in this page's language: its `code` as err_sit_<code> (`sitting`: a
// sit-down's refusal) or err_<code>, else the server's own (English) sentence
export function refusal(res, sitting = false) {
  return codeWords(res, sitting) || res.body?.error || `HTTP ${res.status}`;
}

// the words of a refusal's `code` (err_<code>; err_sit_<code> first for a sit-down), or null
export function codeWords(res, sitting = false) {
  const code = res.body?.code;
  return code ? (sitting ? tMaybe(`err_sit_${code}`) : null) ?? tMaybe(`err_${code}`) : null;
}

// t(key) when the key exists, else null (for keys built from data, e.g. profile_<name>)
export const tMaybe = (key, params = {}) => (key in S.dict || key in S.fallback ? t(key, params) : null);

// a game's or a profile's own words for `key` (`${key}_${which}`: a Mariage deal is a "hand",
// casa's talon the "monte" and its marriage a "cante" in Spanish, where the club announces a
// "matrimonio") where the language has them, else the common ones
export const tOwn = (key, which, params = {}) => tMaybe(`${key}_${which}`, params) ?? t(key, params);

export async function loadLang(lang) {
  if (!LANGS.includes(lang)) lang = "en";
  const get = async (l) => (await fetch(`/static/i18n/${l}.json`)).json();
  if (!Object.keys(S.fallback).length) S.fallback = await get("en");
  S.dict = lang === "en" ? S.fallback : await get(lang);
  S.lang = lang;
  localStorage.setItem(STORE_LANG, lang);
  document.documentElement.lang = lang;
  document.title = t("app_title");
}

// the stored choice, else the browser's first language we speak, else English
export function initialLang() {
  const stored = localStorage.getItem(STORE_LANG);
  if (LANGS.includes(stored)) return stored;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const base = String(l).slice(0, 2).toLowerCase();
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

export async function setLang(lang) {
  await loadLang(lang);
  screen.all();
}

export function langButtons(prefix) {
  return h("div", { class: "langs", role: "group", "aria-label": t("language") },
    LANGS.map((l) => h("button", {
      type: "button", testid: `${prefix}-${l}`, lang: l, "aria-pressed": String(S.lang === l),
      "aria-label": `${t(`lang_name_${l}`)} (${l.toUpperCase()})`, onclick: () => setLang(l),
    }, l.toUpperCase())));
}
