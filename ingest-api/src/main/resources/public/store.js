// The visitor's own choices, cached in localStorage so the buttons show their state at once on reload,
// before the server answers. The server stays the truth: whatever it answers replaces the cache.
//
// Every access is guarded: private browsing modes throw on write (some on read), storage can be full or
// disabled, and another script may have left garbage under our key. None of that may break the page —
// without storage the page simply starts from the server's answer.

const CHOICES_KEY = 'tally.choices.v1';
const DEV_USER_KEY = 'tally.devUser';

/** At most this many items are remembered; the least recently used are dropped first. */
export const MAX_ENTRIES = 256;

function storage() {
  try {
    return window.localStorage || null; // the getter itself throws when storage is blocked
  } catch {
    return null;
  }
}

function read(key) {
  try {
    const s = storage();
    return s ? s.getItem(key) : null;
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    const s = storage();
    if (!s) return false;
    s.setItem(key, value);
    return true;
  } catch {
    return false; // quota exceeded, private mode: forget it, the page works without
  }
}

/** A random id: crypto.randomUUID where the context allows it, otherwise random bytes. */
export function randomId() {
  try {
    if (window.crypto && typeof window.crypto.randomUUID === 'function') {
      return window.crypto.randomUUID();
    }
    const bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  } catch {
    return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
  }
}

let sessionUser = null;

/**
 * DEV ONLY: a stable per-browser voter id for the dev profile, which trusts the `X-Tally-User` header
 * (TALLY_TRUST_USER_HEADER=true). Generated once and kept under `tally.devUser`; without storage it
 * lasts for this page view. Outside dev the server ignores the header and identifies the visitor by
 * its anonymous HttpOnly cookie `tally_vid` (or a JWT) instead, so sending it there is harmless.
 */
export function devUser() {
  const stored = read(DEV_USER_KEY);
  if (stored && /^[A-Za-z0-9_-]{8,64}$/.test(stored)) {
    return stored;
  }
  if (!sessionUser) {
    sessionUser = `visitor-${randomId()}`;
    write(DEV_USER_KEY, sessionUser);
  }
  return sessionUser;
}

function validVote(v) {
  return v === 1 || v === -1 || v === 0;
}

function validReaction(r) {
  return r === null || (typeof r === 'string' && /^[a-z][a-z0-9_]{0,31}$/.test(r));
}

/** Every well-formed entry, as { key: {v, r, t} }; anything unreadable counts as empty. */
function loadAll() {
  const raw = read(CHOICES_KEY);
  if (!raw) return {};
  let parsed;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return {};
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const out = {};
  for (const [key, e] of Object.entries(parsed)) {
    if (e && typeof e === 'object' && validVote(e.v) && validReaction(e.r ?? null) && Number.isFinite(e.t)) {
      out[key] = { v: e.v, r: e.r ?? null, t: e.t };
    }
  }
  return out;
}

/** Keeps the MAX_ENTRIES most recently used entries. */
function pruned(all, max = MAX_ENTRIES) {
  const entries = Object.entries(all);
  if (entries.length <= max) return all;
  entries.sort((a, b) => b[1].t - a[1].t);
  return Object.fromEntries(entries.slice(0, max));
}

/** The cached choice of an item ({vote, reaction}), or null when none is known. */
export function cachedChoice(key) {
  const e = loadAll()[key];
  return e ? { vote: e.v, reaction: e.r } : null;
}

/**
 * Remembers the visitor's choice on an item (most recent use now). An item with no vote and no reaction
 * is forgotten: only what the visitor chose takes room.
 */
export function rememberChoice(key, vote, reaction) {
  try {
    const all = loadAll();
    const v = validVote(vote) ? vote : 0;
    const r = validReaction(reaction ?? null) ? reaction ?? null : null;
    if (v === 0 && r === null) {
      if (!(key in all)) return;
      delete all[key];
    } else {
      const before = all[key];
      if (before && before.v === v && before.r === r && Date.now() - before.t < 60_000) return; // nothing new
      all[key] = { v, r, t: Date.now() };
    }
    const kept = pruned(all);
    if (!write(CHOICES_KEY, JSON.stringify(kept))) {
      // full: try once more with the newest quarter, then give up quietly
      write(CHOICES_KEY, JSON.stringify(pruned(kept, Math.floor(MAX_ENTRIES / 4))));
    }
  } catch {
    // never let the cache break a vote
  }
}
