// Tally demo page: thumbs, reactions, live counts, the top list and the ranked lists, in plain JavaScript.
//
// Ground rule, never let ratings break the product: every failure — a refused vote, a
// network error, a 429 or 503, a broken ranking, storage that throws — ends as a short message or a
// placeholder, never as a broken page. Text from the server is only ever set with textContent.

import { ITEMS, ITEM_TYPE } from './items.js';
import { api, ApiError } from './api.js';
import { cachedChoice, rememberChoice, randomId } from './store.js';

const VOTE_TIMEOUT_MS = 15_000;
const MESSAGE_MS = 8_000;
const TOP_REFRESH_MS = 30_000;
const TOP_PLACEHOLDER = 'Top posts are being updated';
const RANKED_REFRESH_MS = 2_000;
const RANKED_EMPTY = 'No posts in this list yet';
const RANKED_PLACEHOLDER = 'This list is not available right now';

/** Icons of the default reactions, shipped with the page; the registry's icon_url wins when set. */
const REACTION_ICONS = { like: '/icons/like.svg', love: '/icons/love.svg', haha: '/icons/haha.svg',
  wow: '/icons/wow.svg', sad: '/icons/sad.svg', angry: '/icons/angry.svg' };

/** Per item: its element and what the page shows. */
const items = new Map();
const TITLES = new Map(ITEMS.map((i) => [i.id, i.title]));
let reactionTypes = [];

const $ = (sel, root = document) => root.querySelector(sel);
const keyOf = (id) => `${ITEM_TYPE}:${id}`;
const count = (n) => (Number.isSafeInteger(n) && n >= 0 ? n : 0);

function setText(el, text) {
  if (el && el.textContent !== text) el.textContent = text;
}

// ---------------------------------------------------------------- rendering

function renderItems() {
  const list = $('#items');
  const template = $('#item-template');
  for (const spec of ITEMS) {
    const key = keyOf(spec.id);
    const node = template.content.firstElementChild.cloneNode(true);
    const article = $('article', node) || node;
    const titleId = `title-${ITEM_TYPE}-${spec.id}`;
    article.dataset.item = key;
    article.id = `${ITEM_TYPE}-${spec.id}`;
    article.setAttribute('aria-labelledby', titleId);
    const title = $('.item-title', article);
    title.id = titleId;
    title.textContent = spec.title;
    $('.item-blurb', article).textContent = spec.blurb;
    $('.votes', article).setAttribute('aria-label', `Vote on “${spec.title}”`);
    $('.reactions', article).setAttribute('aria-label', `React to “${spec.title}”`);
    list.appendChild(node);
    const cached = cachedChoice(key); // instant state on reload; the server's answer follows
    const state = {
      key, id: spec.id, title: spec.title, el: article,
      vote: cached ? cached.vote : 0, reaction: cached ? cached.reaction : null,
      counts: null, live: false, busy: false, clicks: 0, cooldownUntil: 0, messageTimer: null,
    };
    items.set(key, state);
    renderChoice(state);
  }
}

function renderChoice(state) {
  const up = $('[data-testid="upvote"]', state.el);
  const down = $('[data-testid="downvote"]', state.el);
  up.setAttribute('aria-pressed', String(state.vote === 1));
  down.setAttribute('aria-pressed', String(state.vote === -1));
  for (const button of state.el.querySelectorAll('[data-reaction]')) {
    button.setAttribute('aria-pressed', String(button.dataset.reaction === state.reaction));
  }
}

function renderCounts(state) {
  const c = state.counts;
  setText($('[data-testid="upvotes"]', state.el), c ? String(c.upvotes) : '–');
  setText($('[data-testid="downvotes"]', state.el), c ? String(c.downvotes) : '–');
  for (const button of state.el.querySelectorAll('[data-reaction]')) {
    const n = c ? count(c.reactions[button.dataset.reaction]) : 0;
    setText($('.reaction-count', button), n > 0 ? String(n) : '');
  }
}

function renderReactionBars() {
  for (const state of items.values()) {
    const bar = $('.reactions', state.el);
    bar.replaceChildren();
    for (const type of reactionTypes) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'reaction';
      button.dataset.reaction = type.code;
      button.dataset.testid = 'reaction';
      button.setAttribute('aria-pressed', 'false');
      button.title = type.label;
      const icon = type.icon_url || REACTION_ICONS[type.code];
      if (icon) {
        const img = document.createElement('img');
        img.src = icon;
        img.alt = '';
        img.width = 18;
        img.height = 18;
        img.addEventListener('error', () => img.remove(), { once: true }); // a broken icon leaves the label
        button.appendChild(img);
      }
      const label = document.createElement('span');
      label.className = 'reaction-label';
      label.textContent = type.label;
      const n = document.createElement('span');
      n.className = 'reaction-count';
      button.append(label, n);
      bar.appendChild(button);
    }
    bar.hidden = reactionTypes.length === 0;
    renderChoice(state);
    renderCounts(state);
  }
}

function showMessage(state, text, { sticky = false, tone = 'error' } = {}) {
  const el = $('[data-testid="message"]', state.el);
  clearTimeout(state.messageTimer);
  el.dataset.tone = tone;
  setText(el, text);
  if (text && !sticky) {
    state.messageTimer = setTimeout(() => setText(el, ''), MESSAGE_MS);
  }
}

function setLiveStatus(text, mode) {
  setText($('#live-status'), text);
  document.body.dataset.live = mode; // 'open' | 'connecting' | 'closed'
}

// ---------------------------------------------------------------- answers from the server

function parseCounts(o) {
  if (!o || typeof o !== 'object') return null;
  const reactions = o.reactions && typeof o.reactions === 'object' && !Array.isArray(o.reactions) ? o.reactions : {};
  return { upvotes: count(o.upvotes), downvotes: count(o.downvotes), reactions };
}

function applyChoice(state, vote, reaction) {
  state.vote = vote === 1 || vote === -1 ? vote : 0;
  state.reaction = typeof reaction === 'string' ? reaction : null;
  renderChoice(state);
  rememberChoice(state.key, state.vote, state.reaction);
}

/** The GET object: counts, and the visitor's state unless they clicked since the read began. */
function applyRead(o, clicksAtStart) {
  if (!o || typeof o !== 'object') return;
  const state = items.get(`${o.item_type}:${o.item_id}`);
  if (!state) return;
  const untouched = state.clicks === clicksAtStart[state.key] && !state.busy;
  if (untouched && !state.live) {
    // a live event or a vote's own answer is fresher than a read begun earlier
    state.counts = parseCounts(o) || state.counts;
    renderCounts(state);
  }
  if (untouched) {
    applyChoice(state, o.user_vote, o.user_reaction);
  }
}

async function loadItems() {
  const clicksAtStart = Object.fromEntries([...items.values()].map((s) => [s.key, s.clicks]));
  try {
    const ids = ITEMS.map((i) => encodeURIComponent(i.id)).join(',');
    const { json } = await api(`/v1/votes/${ITEM_TYPE}?ids=${ids}`);
    const list = json && Array.isArray(json.items) ? json.items : [];
    for (const o of list) applyRead(o, clicksAtStart);
    setText($('#page-message'), '');
  } catch (e) {
    setText($('#page-message'), `Counts could not be loaded: ${message(e)} Live updates will fill them in.`);
  }
}

async function refreshItem(state) {
  const clicksAtStart = { [state.key]: state.clicks };
  const { json } = await api(`/v1/votes/${ITEM_TYPE}/${encodeURIComponent(state.id)}`);
  applyRead(json, clicksAtStart);
}

async function loadReactions() {
  try {
    const { json } = await api('/v1/reactions');
    reactionTypes = Array.isArray(json)
      ? json.filter((t) => t && typeof t.code === 'string' && /^[a-z][a-z0-9_]{0,31}$/.test(t.code))
        .map((t) => ({ code: t.code, label: typeof t.label === 'string' && t.label ? t.label : t.code,
          icon_url: typeof t.icon_url === 'string' && /^(https:\/\/|\/)/.test(t.icon_url) ? t.icon_url : null }))
      : [];
  } catch {
    reactionTypes = []; // no reaction bar, the thumbs still work
  }
  renderReactionBars();
}

function message(e) {
  return e instanceof ApiError ? e.message : 'Something went wrong on this page.';
}

// ---------------------------------------------------------------- voting

/**
 * One click: POST it in toggle mode with a fresh Idempotency-Key, and render the answer. A request that
 * got no answer at all is sent once more with the same key — the server applies it at most once.
 */
async function vote(state, change) {
  if (state.busy) return; // one request per item at a time: a double click must not toggle twice
  const now = Date.now();
  if (state.cooldownUntil > now) {
    showMessage(state, `Too many votes — try again in ${Math.ceil((state.cooldownUntil - now) / 1000)} s.`);
    return;
  }
  state.busy = true;
  state.clicks += 1;
  state.el.setAttribute('aria-busy', 'true');
  const body = { item_type: ITEM_TYPE, item_id: state.id, ...change, mode: 'toggle' };
  const key = randomId().slice(0, 64);
  try {
    let answer;
    try {
      answer = await api('/v1/votes', { method: 'POST', body, headers: { 'Idempotency-Key': key }, timeoutMs: VOTE_TIMEOUT_MS });
    } catch (e) {
      if (!(e instanceof ApiError) || (e.type !== 'network' && e.type !== 'timeout')) throw e;
      await new Promise((r) => setTimeout(r, 1000));
      answer = await api('/v1/votes', { method: 'POST', body, headers: { 'Idempotency-Key': key }, timeoutMs: VOTE_TIMEOUT_MS });
    }
    const o = answer.json || {};
    if (answer.status === 202) {
      showMessage(state, 'Vote received — it will be counted in a moment.', { tone: 'info' });
      setTimeout(() => refreshItem(state).catch(() => {}), 1500);
      return;
    }
    applyChoice(state, o.user_vote, o.user_reaction);
    const counts = parseCounts(o.counts);
    if (counts) {
      state.counts = counts;
      renderCounts(state);
    }
    showMessage(state, '');
  } catch (e) {
    if (e instanceof ApiError && e.status === 429 && e.retryAfter) {
      state.cooldownUntil = Date.now() + e.retryAfter * 1000;
    }
    showMessage(state, message(e));
  } finally {
    state.busy = false;
    state.el.removeAttribute('aria-busy');
  }
}

function onClick(event) {
  try {
    const button = event.target instanceof Element ? event.target.closest('button') : null;
    const article = button ? button.closest('[data-item]') : null;
    const state = article ? items.get(article.dataset.item) : null;
    if (!state) return;
    if (button.dataset.testid === 'upvote') vote(state, { vote_value: 1 });
    else if (button.dataset.testid === 'downvote') vote(state, { vote_value: -1 });
    else if (button.dataset.reaction) vote(state, { reaction: button.dataset.reaction });
  } catch {
    // a click must never throw out of the page
  }
}

// ---------------------------------------------------------------- live counts (SSE)

let source = null;
let retryMs = 2000;

/**
 * EventSource reconnects by itself (with Last-Event-ID) after a dropped connection; when the server
 * refuses the stream outright (503 at its stream limit, or an error page) it gives up, so the page
 * tries again itself with a growing delay.
 */
function connectLive() {
  if (typeof EventSource !== 'function') {
    setLiveStatus('Live updates are not supported by this browser.', 'closed');
    return;
  }
  try {
    const keys = ITEMS.map((i) => keyOf(i.id)).join(',');
    source = new EventSource(`/v1/stream?items=${encodeURIComponent(keys)}`);
  } catch {
    scheduleReconnect();
    return;
  }
  setLiveStatus('Live updates: connecting…', 'connecting');
  source.addEventListener('open', () => {
    retryMs = 2000;
    setLiveStatus('Live updates: on', 'open');
  });
  source.addEventListener('counts', (event) => {
    try {
      const o = JSON.parse(event.data);
      const state = o && items.get(`${o.item_type}:${o.item_id}`);
      const counts = parseCounts(o);
      if (state && counts) {
        state.live = true;
        state.counts = counts;
        renderCounts(state);
      }
    } catch {
      // one unreadable event is skipped
    }
  });
  source.addEventListener('error', () => {
    if (source.readyState === EventSource.CLOSED) {
      source.close();
      scheduleReconnect();
    } else {
      setLiveStatus('Live updates: reconnecting…', 'connecting');
    }
  });
}

function scheduleReconnect() {
  setLiveStatus(`Live updates paused — retrying in ${Math.round(retryMs / 1000)} s.`, 'closed');
  setTimeout(connectLive, retryMs);
  retryMs = Math.min(retryMs * 2, 60_000);
}

// ---------------------------------------------------------------- top list

/** The artifact as served; anything off — status, shape, ranks — shows the placeholder instead. */
function validRanking(a) {
  if (!a || a.schemaVersion !== 1 || a.status !== 'ready' || !Array.isArray(a.items) || a.items.length === 0) return false;
  return a.items.every((it, i) => it && it.rank === i + 1 && it.item_type === ITEM_TYPE
    && typeof it.item_id === 'string' && Number.isFinite(it.up) && Number.isFinite(it.down));
}

async function loadTop() {
  const status = $('#top-status');
  const list = $('#top-list');
  let artifact = null;
  try {
    ({ json: artifact } = await api(`/v1/rankings/${ITEM_TYPE}/top`));
  } catch {
    artifact = null; // fails open: the list is cosmetic
  }
  if (!validRanking(artifact)) {
    list.replaceChildren();
    list.hidden = true;
    setText(status, TOP_PLACEHOLDER);
    status.hidden = false;
    return;
  }
  const rows = artifact.items.slice(0, 10).map((it) => rankedRow(it.item_id, `${count(it.up)} up · ${count(it.down)} down`));
  list.replaceChildren(...rows);
  list.hidden = false;
  status.hidden = true;
  setText(status, '');
}

/** One post of a list: its title, linked to it on this page, and a line of counts. */
function rankedRow(itemId, counts) {
  const li = document.createElement('li');
  const known = TITLES.get(itemId);
  const name = known ? document.createElement('a') : document.createElement('span');
  if (known) name.href = `#${ITEM_TYPE}-${itemId}`;
  name.textContent = known || `Post ${itemId}`; // not one of this page's posts: a plain name, not a key
  const meta = document.createElement('span');
  meta.className = 'top-meta';
  meta.textContent = counts;
  li.append(name, meta);
  return li;
}

// ---------------------------------------------------------------- ranked lists

/** The order the switcher shows; `window` only for top. */
let rankedOrder = { sort: 'hot', window: null };

/** A page of a live list as served; anything off shows the placeholder instead. */
function validPage(p) {
  return p && Array.isArray(p.items) && p.items.every((it, i) => it && it.rank === i + 1
    && typeof it.item_id === 'string' && Number.isFinite(it.upvotes) && Number.isFinite(it.downvotes));
}

async function loadRanked() {
  const status = $('#ranked-status');
  const list = $('#ranked-list');
  const order = rankedOrder;
  const query = `sort=${order.sort}${order.window ? `&window=${order.window}` : ''}&limit=10`;
  let page = null;
  try {
    ({ json: page } = await api(`/v1/rankings/${ITEM_TYPE}?${query}`));
  } catch {
    page = null; // fails open: the list is cosmetic
  }
  if (order !== rankedOrder) return; // the visitor chose another order meanwhile
  if (!validPage(page) || page.items.length === 0) {
    list.replaceChildren();
    list.hidden = true;
    setText(status, validPage(page) ? RANKED_EMPTY : RANKED_PLACEHOLDER);
    status.hidden = false;
    return;
  }
  list.replaceChildren(...page.items.map((it) => rankedRow(it.item_id, `${count(it.upvotes)} up · ${count(it.downvotes)} down`)));
  list.hidden = false;
  status.hidden = true;
  setText(status, '');
}

function onSort(event) {
  const button = event.target.closest('button[data-sort]');
  if (!button) return;
  rankedOrder = { sort: button.dataset.sort, window: button.dataset.window || null };
  for (const b of document.querySelectorAll('.sorts button')) {
    b.setAttribute('aria-pressed', String(b === button));
  }
  loadRanked();
}

// ---------------------------------------------------------------- start

function start() {
  renderItems();
  $('#items').addEventListener('click', onClick);
  connectLive();
  loadReactions();
  loadItems().finally(() => { document.body.dataset.loaded = 'true'; });
  loadTop();
  setInterval(() => loadTop().catch(() => {}), TOP_REFRESH_MS);
  $('.sorts').addEventListener('click', onSort);
  loadRanked();
  setInterval(() => loadRanked().catch(() => {}), RANKED_REFRESH_MS);
}

try {
  start();
} catch (e) {
  const el = document.getElementById('page-message');
  if (el) el.textContent = 'The demo could not start in this browser.';
}
