// The API client: same-origin fetch with the session cookie (never a token kept by the page),
// JSON in and out. A failure throws ApiError {status, detail}: the server's one-line `detail`,
// shown to the person as it is. A 401 tells the app (event `unauthorized`), which opens /login.
import { offline } from './offline.js';   // offline hook: writes kept while the server cannot be reached

export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
  }
}

/** Fired on `api` when a private route answers 401 (the session ended or never was). */
export const events = new EventTarget();

function url(path, query) {
  const u = new URL(path.startsWith('/') ? path : `/api/${path}`, location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== '') u.searchParams.set(k, String(v));
  }
  return u.pathname + u.search;
}

async function detailOf(response) {
  try {
    const body = await response.json();
    if (body && typeof body.detail === 'string') return body.detail;
    if (body && typeof body.message === 'string') return body.message;
  } catch { /* not JSON */ }
  return `${response.status} ${response.statusText || 'error'}`.trim();
}

async function request(method, path, { query, body, keepalive = false, signal } = {}) {
  const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' }, keepalive, signal };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url(path, query), init);
  } catch (error) {
    if (error && error.name === 'AbortError') throw error;
    // offline hook: a write offline.js keeps (watched, progress, save) is sent when the network is back.
    if (method !== 'GET') { const kept = await offline.keepWrite(method, url(path, query), body); if (kept !== undefined) return kept; }
    throw new ApiError(0, 'The server cannot be reached: check the connection and try again.');
  }
  if (!response.ok) {
    const detail = await detailOf(response);
    if (response.status === 401 && !path.includes('/auth/')) events.dispatchEvent(new CustomEvent('unauthorized', { detail }));
    throw new ApiError(response.status, detail);
  }
  if (response.status === 204) return null;
  const type = response.headers.get('Content-Type') || '';
  return type.includes('json') ? response.json() : response.text();
}

export const api = {
  /** GET `path` (`/api/...`, or relative to /api/) with `query`; parsed JSON. */
  get(path, query, options = {}) { return request('GET', path, { ...options, query }); },
  /** `method` `path` with a JSON `body` (omitted when undefined). */
  send(method, path, body, options = {}) { return request(method, path, { ...options, body }); },
  /** A write that outlives the page (pagehide): fetch keepalive with the JSON the server requires. */
  keepalive(method, path, body) {
    return request(method, path, { body, keepalive: true }).catch(() => null);
  },
  events,
};

export default api;
