// A small fetch wrapper for the Tally HTTP API (same origin). It never throws anything but ApiError,
// whose `message` is short and fit to show a visitor.

import { devUser } from './store.js';

const TIMEOUT_MS = 10_000;
const MAX_DETAIL = 160;

export class ApiError extends Error {
  /**
   * @param {string} message  short, for people
   * @param {object} info     status (0 for no answer), type (the problem slug, or 'network' / 'timeout' /
   *                          'bad-answer'), retryAfter (seconds, or null)
   */
  constructor(message, { status = 0, type = 'network', retryAfter = null } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.type = type;
    this.retryAfter = retryAfter;
  }
}

/** Retry-After: delay-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value) {
  if (!value) return null;
  const trimmed = String(value).trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed), 3600);
  const when = Date.parse(trimmed);
  if (Number.isFinite(when)) return Math.max(0, Math.min(Math.ceil((when - Date.now()) / 1000), 3600));
  return null;
}

function shorten(text) {
  const t = String(text ?? '').replace(/\s+/g, ' ').trim();
  return t.length > MAX_DETAIL ? `${t.slice(0, MAX_DETAIL - 1)}…` : t;
}

function slug(type) {
  if (typeof type !== 'string') return 'unknown';
  const i = type.lastIndexOf('/');
  return i >= 0 ? type.slice(i + 1) : type;
}

/** A failed answer as an ApiError: problem+json detail when there is one, otherwise by status. */
async function failure(response) {
  const retryAfter = retryAfterSeconds(response.headers.get('Retry-After'));
  let problem = null;
  try {
    const type = response.headers.get('Content-Type') || '';
    if (type.includes('json')) problem = await response.json();
  } catch {
    problem = null;
  }
  const kind = problem && typeof problem === 'object' ? slug(problem.type) : `http-${response.status}`;
  const detail = problem && typeof problem === 'object' && typeof problem.detail === 'string' ? shorten(problem.detail) : '';
  const info = { status: response.status, type: kind, retryAfter };
  switch (response.status) {
    case 401:
      return new ApiError(`You are not signed in, so this can't be counted${detail ? ` (${detail})` : ''}.`, info);
    case 429:
      return new ApiError(retryAfter != null
        ? `Too many votes — try again in ${retryAfter} s.`
        : 'Too many votes — try again in a moment.', info);
    case 503:
      if (kind === 'voting-disabled') return new ApiError('Voting is paused right now; counts still update.', info);
      return new ApiError(`The service is busy — nothing was changed. Try again${retryAfter != null ? ` in ${retryAfter} s` : ' shortly'}.`, info);
    default:
      if (response.status >= 500) return new ApiError('Something went wrong on the server — nothing was changed.', info);
      return new ApiError(detail || `The request was refused (${response.status}).`, info);
  }
}

/**
 * One request. Sends the dev identity header (see store.js) and the cookie of the same origin.
 * Resolves to { status, json, headers } for 2xx answers; rejects with ApiError otherwise.
 */
export async function api(path, { method = 'GET', body, headers = {}, timeoutMs = TIMEOUT_MS } = {}) {
  const controller = typeof AbortController === 'function' ? new AbortController() : null;
  const timer = controller ? setTimeout(() => controller.abort(), timeoutMs) : null;
  let response;
  try {
    const h = { Accept: 'application/json', 'X-Tally-User': devUser(), ...headers };
    const init = { method, headers: h, credentials: 'same-origin', cache: 'no-store' };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      h['Content-Type'] = 'application/json';
    }
    if (controller) init.signal = controller.signal;
    response = await fetch(path, init);
  } catch (e) {
    if (e && e.name === 'AbortError') {
      throw new ApiError('The server took too long to answer.', { type: 'timeout' });
    }
    throw new ApiError('Could not reach the server — check your connection.', { type: 'network' });
  } finally {
    if (timer) clearTimeout(timer);
  }
  if (!response.ok) {
    throw await failure(response);
  }
  let json = null;
  if (response.status !== 204) {
    try {
      json = await response.json();
    } catch {
      throw new ApiError('The server sent an answer this page cannot read.', { status: response.status, type: 'bad-answer' });
    }
  }
  return { status: response.status, json, headers: response.headers };
}
