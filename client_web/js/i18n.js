// Texts in five languages: English, Danish, German, Russian, Thai. The language comes from
// the browser unless the player picked one with the switch (kept in local storage).

export const LANGS = ["en", "da", "de", "ru", "th"];
const KEY = "seahaven.lang";

let lang = "en";
let texts = {};
let fallback = {};
const listeners = new Set();

/** The language to start with: the saved choice, else the browser's first known one. */
export function initialLang() {
  const saved = localStorage.getItem(KEY);
  if (saved && LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const base = String(l).toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

async function load(l) {
  const res = await fetch(`i18n/${l}.json`, { cache: "no-cache" });
  if (!res.ok) throw new Error(`i18n/${l}.json: ${res.status}`);
  return res.json();
}

// Languages asked for so far: a choice whose texts arrive after a later choice's gives way.
let asked = 0;

/** Switch language: load its texts, relabel the page, tell listeners. */
export async function setLang(l) {
  if (!LANGS.includes(l)) l = "en";
  const mine = ++asked;
  if (!Object.keys(fallback).length) fallback = await load("en");
  const chosen = l === "en" ? fallback : await load(l);
  if (mine !== asked) return; // chosen again while these texts loaded
  texts = chosen;
  lang = l;
  localStorage.setItem(KEY, l);
  document.documentElement.lang = l;
  applyTexts(document);
  for (const fn of listeners) fn(l);
}

export function currentLang() {
  return lang;
}

export function onLangChange(fn) {
  listeners.add(fn);
}

/** A text with plural forms is an object of CLDR categories ({one, few, many, other}). */
function isPlural(v) {
  return v != null && typeof v === "object" && typeof v.other === "string";
}

function lookup(dict, key) {
  let v = dict;
  for (const part of key.split(".")) {
    if (v == null || typeof v !== "object") return undefined;
    v = v[part];
  }
  return typeof v === "string" || isPlural(v) ? v : undefined;
}

/**
 * The text of `key` with `{name}` placeholders filled in. A text with plural forms takes the
 * one the language's rules (`Intl.PluralRules`) give for `params.n`: "1 move", "2 moves",
 * "5 ходов".
 */
export function t(key, params = {}) {
  let s = lookup(texts, key) ?? lookup(fallback, key) ?? key;
  if (isPlural(s)) s = s[new Intl.PluralRules(lang).select(Number(params.n ?? 0))] ?? s.other;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

/** The locale of dates: the page's language (its English is British, as its spelling). */
export function locale() {
  return lang === "en" ? "en-GB" : lang;
}

/**
 * A date (YYYY-MM-DD, a day of the server's calendar) in the page's language:
 * "1 December 2026", "1. Dezember 2026". `opts` are `Intl.DateTimeFormat`'s.
 */
export function formatDate(day, opts = { day: "numeric", month: "long", year: "numeric" }) {
  const [y, m, d] = String(day).split("-").map(Number);
  if (!y || !m || !d) return String(day);
  return new Intl.DateTimeFormat(locale(), { ...opts, timeZone: "UTC" }).format(new Date(Date.UTC(y, m - 1, d)));
}

/** Whether a key has a text (used to explain reason codes the client knows). */
export function has(key) {
  return lookup(texts, key) !== undefined || lookup(fallback, key) !== undefined;
}

/** Fill [data-i18n] elements (text), [data-i18n-title] and [data-i18n-placeholder]. */
export function applyTexts(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
  for (const el of root.querySelectorAll("[data-i18n-aria]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nAria));
  }
}

/** A card for screen readers: "10 of hearts", "Königin"... from the language's words. */
export function cardLabel(card) {
  const rank = t(`rank.${card[0]}`);
  const suit = t(`suit.${card[1]}`);
  return t("card", { rank, suit });
}

/** The explanation of a refusal's reason code (engine or server), or the server's text. */
export function reasonText(reason, message) {
  if (has(`reason.${reason}`)) return t(`reason.${reason}`);
  if (has(`error.${reason}`)) return t(`error.${reason}`);
  return message || reason;
}

/** The explanation of an error code, or the server's text. A code may also be a reason of
 * `reject` with another meaning (`busy`: Redis for an error, the solver for a reject).
 * `params` fill the text's placeholders (`slow_down`'s `{minutes}`). */
export function errorText(code, message, params = {}) {
  if (has(`error.${code}`)) return t(`error.${code}`, params);
  return message || code;
}

/** Milliseconds as m:ss.t */
export function formatTime(ms) {
  if (ms == null || !Number.isFinite(ms)) return "–";
  const total = Math.max(0, Math.floor(ms / 100));
  const tenths = total % 10;
  const s = Math.floor(total / 10) % 60;
  const m = Math.floor(total / 600);
  return `${m}:${String(s).padStart(2, "0")}.${tenths}`;
}
