// The player: one <audio> element ("This device", with the Media Session API) or the daemon
// through /api/player ("The server's speakers"), switchable while playing with the position
// kept; a mini player that stays across navigation; the up-next queue (the user's, on the
// server: /api/queue, the same one the CLI and the daemon use);
// progress saved to the server (every 10 s while playing, on pause, seek, and when the page is
// hidden) through the progress route, so the watched rule is the server's. An item of no
// library (a followed collection's: `id` null) plays its `audio_url` as it is, and keeps no
// progress: it is nobody's item here.
import { api, ApiError } from './api.js';
import { h, iconButton, formatDuration, artwork, safeURL } from './ui.js';
import { readPrefs } from './prefs.js';
import { sharedStream } from './stream.js';

const SAVE_EVERY_MS = 10_000;
const RATES = [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3];
const SERVER_EVENTS = ['tick', 'status', 'metadata', 'seeked', 'volume', 'rate', 'chapter', 'capabilities'];

/** What the queue keeps of an item (localStorage): enough to show and play it. */
function slim(item) {
  const { id, title, channel_id, channel_name, thumbnail_url, duration_seconds, audio_url, watch_progress_seconds, is_watched, upload_date, platform, video_url, video_id, chapters } = item;
  return { id, title, channel_id, channel_name, thumbnail_url, duration_seconds, audio_url, watch_progress_seconds, is_watched, upload_date, platform, video_url, video_id, chapters };
}

class Player extends EventTarget {
  constructor() {
    super();
    this.audio = new Audio();
    this.audio.id = 'player-audio';
    this.audio.preload = 'auto';
    this.audio.hidden = true;
    this.current = null;
    this.output = 'device';
    this.queue = [];              // the server's queue: slim items, each with its `entryId`
    this.rate = Number(localStorage.getItem('feedctl.rate')) || 1;   // the default speed
    this.skips = readPrefs();     // {skipBack, skipForward} seconds (Settings)
    this.sleepAt = null;          // ms since epoch, or 'end'
    this.remote = null;           // the daemon's last status (server output)
    this.remoteAt = 0;            // when it arrived
    this.lastSaved = { id: null, seconds: -1, at: 0 };
    this.#wireAudio();
    this.#wireMediaSession();
    addEventListener('feedctl-prefs', () => { this.skips = readPrefs(); this.#changed(); });
    addEventListener('pagehide', () => this.saveProgress({ keepalive: true }));
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') this.saveProgress({ keepalive: true });
      else this.refreshQueue();
    });
  }

  #changed() {
    this.dispatchEvent(new Event('change'));
  }

  // --- state ---------------------------------------------------------------------------------

  get playing() {
    if (this.output === 'server') return this.remote?.status === 'playing';
    return !!this.current && !this.audio.paused && !this.audio.ended;
  }
  get position() {
    if (this.output === 'server') {
      if (!this.remote) return 0;
      const moved = this.remote.status === 'playing' ? (Date.now() - this.remoteAt) / 1000 * (this.remote.rate || 1) : 0;
      return Math.min(this.duration || Infinity, (this.remote.position || 0) + moved);
    }
    return this.audio.currentTime || 0;
  }
  get duration() {
    if (this.output === 'server') return this.remote?.duration || this.current?.duration_seconds || 0;
    return Number.isFinite(this.audio.duration) ? this.audio.duration : (this.current?.duration_seconds || 0);
  }

  // --- commands (both outputs) ---------------------------------------------------------------

  /** Plays `item` from where it was left (its saved progress), or from `start`. */
  async play(item, { start } = {}) {
    await this.saveProgress();
    this.current = slim(item);
    const queued = item.id != null && this.queue.find((q) => q.id === item.id);
    if (queued) this.#queueCall('DELETE', `/api/queue/${queued.entryId}`);   // it plays now: out of the queue
    const from = start ?? (item.is_watched ? 0 : (item.watch_progress_seconds || 0));
    await this.#applyChannelSpeed(this.current);
    this.#setMetadata();
    this.#changed();
    if (this.output === 'server') return this.#remotePlay(this.current, from);
    return this.#devicePlay(this.current, from);
  }

  // --- the up-next queue: the user's on the server (the store's rule: an item waits once) ---

  /** Reads the queue again (another device, the CLI or the daemon may have changed it). */
  async refreshQueue() { return this.#queueCall('GET', '/api/queue'); }
  enqueue(item, { next = false } = {}) {
    if (item.id == null || (this.current?.id === item.id && !next)) return Promise.resolve();
    const added = { ...slim(item), entryId: null };   // shown so while the add waits offline
    return this.#queueCall('POST', '/api/queue', { item_id: item.id, next }, (q) => (next ? [added, ...q] : [...q, added]));
  }
  removeFromQueue(index) {
    const entry = this.queue[index];
    if (!entry) return Promise.resolve();
    if (entry.entryId === null) { this.#error('this item joins the queue when the server is reached again: remove it then'); return Promise.resolve(); }
    return this.#queueCall('DELETE', `/api/queue/${entry.entryId}`, undefined, (q) => q.filter((e) => e !== entry));
  }
  moveInQueue(index, delta) {
    const entry = this.queue[index], to = index + delta;
    if (!entry || to < 0 || to >= this.queue.length) return Promise.resolve();
    return this.#queueCall('PUT', `/api/queue/${entry.entryId}`, { position: to + 1 });
  }
  clearQueue() { return this.#queueCall('DELETE', '/api/queue'); }
  /** One queue route; the answer (the queue as it now is) replaces the page's copy. */
  async #queueCall(method, path, body, whileOffline) {
    try {
      const answer = method === 'GET' ? await api.get(path) : await api.send(method, path, body);
      if (answer?.kept_offline) {   // kept to be sent when the server is reached (offline.js)
        if (whileOffline) { this.queue = whileOffline(this.queue); this.#changed(); }
        return;
      }
      this.queue = (answer?.items || []).map((e) => ({ ...(e.item ? slim(e.item) : { id: null, title: e.title }), title: e.item?.title || e.title, entryId: e.id }));
      this.#changed();
    } catch (e) {
      // An entry gone meanwhile: show what is there (once: the list itself answering 404, a
      // server without the route, must not be asked again and again).
      if (e instanceof ApiError && e.status === 404 && method !== 'GET') return this.refreshQueue();
      if (!(e instanceof ApiError) || e.status !== 401) this.#error(e instanceof ApiError ? e.detail : String(e));
    }
  }

  toggle() { return this.playing ? this.pause() : this.resume(); }

  async pause() {
    if (this.output === 'server') return this.#remote('pause');
    this.audio.pause();
  }
  async resume() {
    if (!this.current) return;
    if (this.output === 'server') return this.#remote('resume');
    try { await this.audio.play(); } catch (e) { this.#error(e.message); }
  }
  skip(delta) { return this.seek(this.position + delta); }
  /** Back and Forward by the intervals chosen in Settings. */
  back() { return this.skip(-this.skips.skipBack); }
  forward() { return this.skip(this.skips.skipForward); }
  /** The item's channel's own speed (Channels), else the default one; the default stays as it was. */
  async #applyChannelSpeed(item) {
    let speed = null;
    if (item?.channel_id) {
      try { speed = (await api.get(`/api/channels/${item.channel_id}`))?.speed ?? null; } catch { /* the default, then */ }
    }
    this.itemRate = Number.isFinite(speed) && speed >= 0.5 && speed <= 3 ? speed : null;
    if (this.output === 'server') return;   // the daemon applies the channel's speed itself
    this.audio.playbackRate = this.currentRate;
    this.audio.defaultPlaybackRate = this.currentRate;
  }
  /** The speed this item plays at: its channel's, else the default. */
  get currentRate() { return this.itemRate ?? this.rate; }
  async seek(seconds) {
    const to = Math.max(0, Math.min(seconds, this.duration || seconds));
    if (this.output === 'server') return this.#remote('seek', { position: Math.floor(to) });
    this.audio.currentTime = to;
  }
  async setRate(rate) {
    this.rate = Math.min(3, Math.max(0.5, Number(rate) || 1));
    this.itemRate = null;   // chosen for this item: it wins over the channel's
    localStorage.setItem('feedctl.rate', String(this.rate));
    if (this.output === 'server') await this.#remote('speed', { rate: this.rate });
    else { this.audio.playbackRate = this.rate; this.audio.defaultPlaybackRate = this.rate; }
    this.#changed();
  }
  /** minutes, 'end' (end of this item) or null (off). */
  setSleep(choice) {
    clearTimeout(this.sleepTimer);
    this.sleepAt = null;
    if (choice === 'end') this.sleepAt = 'end';
    else if (choice) {
      this.sleepAt = Date.now() + choice * 60_000;
      this.sleepTimer = setTimeout(() => { this.sleepAt = null; this.pause(); this.#changed(); }, choice * 60_000);
    }
    this.#changed();
  }
  async next() {
    if (this.output === 'server') {
      // The daemon plays from the same queue: it takes the first entry itself.
      try { await this.#remote('next'); } catch { /* shown */ }
      return this.refreshQueue();
    }
    const item = this.queue.find((q) => q.id);   // a URL or file queued with the CLI is the daemon's to play
    if (!item) return;
    if (this.current) this.history = [this.current, ...(this.history || [])].slice(0, 20);
    await this.play(item);
  }
  async previous() {
    if (this.position > 5 || !this.history?.length) return this.seek(0);
    const [item, ...rest] = this.history;
    this.history = rest;
    if (this.current) await this.enqueue(this.current, { next: true });
    await this.play(item);
  }
  async stop() {
    await this.saveProgress();
    if (this.output === 'server') await this.#remote('stop').catch(() => {});
    this.audio.pause();
    this.audio.removeAttribute('src');
    this.audio.load();
    this.current = null;
    this.#changed();
  }

  /** Switches output, keeping the position (and playing if it was); the choice is kept. */
  async setOutput(output) {
    if (output === this.output) return;
    await this.#switchOutput(output);
    localStorage.setItem('feedctl.output', this.output);
  }

  /** A page opened with the server's speakers chosen before: follow the daemon (nothing starts). */
  async resumeOutput() {
    if (localStorage.getItem('feedctl.output') !== 'server' || this.current) return;
    try {
      const status = await api.get('/api/player');
      this.output = 'server';
      this.#listenRemote();
      this.#remoteUpdate(status);
      this.#changed();
    } catch { localStorage.setItem('feedctl.output', 'device'); }
  }

  async #switchOutput(output) {
    const item = this.current, at = this.position, wasPlaying = this.playing;
    if (output === 'server') {
      const status = await this.#remoteStatus();   // 403/503 stop here, with the server's line
      if (status === null) return;
      if (item) {
        await this.saveProgress({ force: true });
        this.audio.pause();
      }
      this.output = 'server';
      this.#listenRemote();
      if (item) await this.#remotePlay(item, at, wasPlaying);
    } else {
      if (item) await this.#remote('stop').catch(() => {});
      this.#unlistenRemote();
      this.output = 'device';
      if (item) await this.#devicePlay(item, at, wasPlaying);
    }
    this.#changed();
  }

  /** Saves the position to the server (the watched rule is its own). */
  async saveProgress({ keepalive = false, force = false } = {}) {
    const item = this.current;
    if (!item || item.id == null || this.output === 'server') return;   // the daemon keeps its own progress
    const seconds = Math.floor(this.audio.currentTime || 0);
    if (!force && this.lastSaved.id === item.id && this.lastSaved.seconds === seconds) return;
    if (seconds === 0 && !force && !this.audio.ended) return;
    this.lastSaved = { id: item.id, seconds, at: Date.now() };
    item.watch_progress_seconds = seconds;
    const path = `/api/feed/${item.id}/progress`, body = { watch_progress_seconds: seconds };
    if (keepalive) return api.keepalive('PATCH', path, body);
    try { await api.send('PATCH', path, body); } catch (e) { if (!(e instanceof ApiError) || e.status !== 401) console.warn('progress not saved:', e.detail || e); }
  }

  // --- this device ---------------------------------------------------------------------------

  async #devicePlay(item, from = 0, autoplay = true) {
    const audio = this.audio;
    this.fallbackTried = false;
    this.pendingFrom = from;
    audio.src = item.id != null ? `/api/items/${item.id}/audio` : item.audio_url;
    audio.playbackRate = this.currentRate;
    audio.defaultPlaybackRate = this.currentRate;
    await this.#startAt(from, autoplay);
  }

  async #startAt(from, autoplay) {
    const audio = this.audio;
    if (from > 0) {
      const seekWhenReady = () => { audio.currentTime = from; };
      if (audio.readyState >= 1) seekWhenReady(); else audio.addEventListener('loadedmetadata', seekWhenReady, { once: true });
    }
    if (autoplay) {
      try { await audio.play(); } catch (e) {
        if (e.name === 'NotAllowedError') this.#error('Press Play to start (the browser needs a tap first).');
        // Other failures arrive as the element's `error` event (the fallback below).
      }
    }
    this.#changed();
  }

  #wireAudio() {
    const audio = this.audio;
    let lastPeriodic = 0;
    audio.addEventListener('error', () => {
      const item = this.current;
      // Until /api/items/{id}/audio is served, a podcast plays its enclosure.
      if (item && !this.fallbackTried && item.audio_url && audio.src.includes('/api/items/')) {
        this.fallbackTried = true;
        const at = this.pendingFrom || 0;
        audio.src = item.audio_url;
        this.#startAt(at, true);
        return;
      }
      if (item) this.#error(`This item cannot be played in the browser (${audio.error?.message || 'media error'}).`);
    });
    audio.addEventListener('loadedmetadata', () => this.#positionState());
    audio.addEventListener('play', () => this.#changed());
    audio.addEventListener('pause', () => { this.saveProgress(); this.#changed(); });
    audio.addEventListener('seeked', () => { this.saveProgress(); this.#positionState(); this.dispatchEvent(new Event('time')); });
    audio.addEventListener('ratechange', () => this.#positionState());
    audio.addEventListener('timeupdate', () => {
      this.dispatchEvent(new Event('time'));
      const now = Date.now();
      if (now - lastPeriodic >= SAVE_EVERY_MS && this.playing) {
        lastPeriodic = now;
        this.saveProgress();
        this.#positionState();
      }
    });
    audio.addEventListener('ended', async () => {
      await this.saveProgress({ force: true });
      if (this.sleepAt === 'end') { this.sleepAt = null; this.#changed(); return; }
      if (this.queue.some((q) => q.id)) this.next(); else this.#changed();
    });
  }

  // --- the server's speakers -----------------------------------------------------------------

  async #remote(command, body = {}) {
    try {
      const status = await api.send('POST', `/api/player/${command}`, body);
      this.#remoteUpdate(status);
      return status;
    } catch (e) {
      this.#error(e instanceof ApiError ? e.detail : String(e));
      throw e;
    }
  }
  async #remoteStatus() {
    try { const status = await api.get('/api/player'); this.#remoteUpdate(status); return status; } catch (e) {
      // 503: no daemon yet, which play starts. 403: not the owner. Either way the line is shown.
      if (e instanceof ApiError && e.status === 503) return {};
      this.#error(e instanceof ApiError ? e.detail : String(e));
      return null;
    }
  }
  async #remotePlay(item, from = 0, autoplay = true) {
    try {
      await this.#remote('play', item.id != null ? { item_id: item.id } : { url: item.audio_url });
      if (Math.abs((this.remote?.position || 0) - from) > 2 && from > 0) await this.#remote('seek', { position: Math.floor(from) });
      if (!autoplay) await this.#remote('pause');
    } catch { /* shown */ }
    this.#changed();
  }
  #remoteUpdate(status) {
    if (!status || typeof status !== 'object') return;
    const before = this.remote?.status;
    this.remote = status;
    this.remoteAt = Date.now();
    // The daemon moved to another item (its queue, the CLI, another device): show that one.
    if (this.output === 'server' && status.item_id && status.item_id !== this.current?.id && status.item_id !== this.fetchingId) {
      this.fetchingId = status.item_id;
      api.get(`/api/feed/items/${status.item_id}`).then((item) => {
        if (this.output === 'server' && this.remote?.item_id === item.id) { this.current = slim(item); this.#setMetadata(); this.#changed(); }
      }).catch(() => {}).finally(() => { this.fetchingId = null; });
    }
    // The daemon moves on through the same queue by itself: show what is left of it.
    if (this.output === 'server' && before !== status.status) this.refreshQueue();
    this.dispatchEvent(new Event('time'));
    this.dispatchEvent(new Event('change'));
  }
  /** The signed-in user (`/api/auth/me`'s; null in open mode): pages of different users never share a stream. */
  setUser(user) { this.userID = user?.id ?? null; }
  // The daemon's events, one stream for all of this browser's pages of the user (stream.js): the
  // page holding it passes each on; a page that takes it over follows from the daemon's next event.
  #listenRemote() {
    this.#unlistenRemote();
    let source = null;
    const stream = sharedStream(`player:${this.userID ?? 'open'}`, {
      lead: () => {
        source = new EventSource('/api/player/events');
        for (const kind of SERVER_EVENTS) {
          source.addEventListener(kind, (event) => stream.say({ kind, data: event.data }));
        }
        source.addEventListener('error', (event) => {
          if (event.data) stream.say({ kind: 'error', data: event.data });
        });
      },
      stop: () => { source?.close(); source = null; },
      hear: ({ kind, data }) => {
        try {
          const said = JSON.parse(data);
          if (kind === 'error') this.#error(said.detail); else this.#remoteUpdate(said);
        } catch { /* not a status */ }
      },
    });
    this.stream = stream;
    this.ticker = setInterval(() => { if (this.playing) this.dispatchEvent(new Event('time')); }, 1000);
  }
  #unlistenRemote() {
    this.stream?.close();
    this.stream = null;
    clearInterval(this.ticker);
  }

  // --- Media Session (lock screen, headset, car) ---------------------------------------------

  #wireMediaSession() {
    if (!('mediaSession' in navigator)) return;
    const handlers = {
      play: () => this.resume(),
      pause: () => this.pause(),
      seekbackward: (d) => this.skip(-(d.seekOffset || this.skips.skipBack)),
      seekforward: (d) => this.skip(d.seekOffset || this.skips.skipForward),
      seekto: (d) => this.seek(d.seekTime),
      nexttrack: () => this.next(),
      previoustrack: () => this.previous(),
    };
    for (const [action, handler] of Object.entries(handlers)) {
      try { navigator.mediaSession.setActionHandler(action, handler); } catch { /* not supported here */ }
    }
    this.mediaSessionHandlers = handlers;   // what the lock screen calls; browser tests call them too
  }
  #setMetadata() {
    if (!('mediaSession' in navigator) || !this.current) return;
    const item = this.current;
    const art = safeURL(item.thumbnail_url);
    const artwork = art ? [{ src: art, sizes: '512x512' }] : [];
    navigator.mediaSession.metadata = new MediaMetadata({ title: item.title, artist: item.channel_name || '', album: 'feedctl', artwork });
  }
  #positionState() {
    if (!('mediaSession' in navigator) || !navigator.mediaSession.setPositionState) return;
    const duration = this.duration;
    if (!duration || !Number.isFinite(duration)) return;
    try {
      navigator.mediaSession.setPositionState({ duration, playbackRate: this.audio.playbackRate || 1, position: Math.min(duration, this.position) });
    } catch { /* a position past a stale duration */ }
  }

  #error(text) {
    this.lastError = text;
    this.dispatchEvent(new CustomEvent('error', { detail: text }));
    this.toast?.(text);
  }

  // --- the mini player -----------------------------------------------------------------------

  /** Renders the mini player into `root` (the shell's) and keeps it current. */
  mount(root, { navigate, toast }) {
    this.toast = toast;
    document.body.append(this.audio);   // the one <audio> element, in the page
    const art = h('div', { class: 'mini-art' });
    const title = h('a', { class: 'mini-title', href: '/player', 'data-link': true });
    const meta = h('div', { class: 'mini-meta' });
    const time = h('span', { class: 'mini-time' });
    const bar = h('div', { class: 'mini-bar', 'aria-hidden': 'true' }, h('span'));
    const playButton = iconButton('play', 'Play', () => this.toggle());
    const backButton = iconButton('back', skipName('Back', this.skips.skipBack), () => this.back());
    const forwardButton = iconButton('forward', skipName('Forward', this.skips.skipForward), () => this.forward());
    root.replaceChildren(bar, art,
      h('div', { class: 'mini-text' }, title, h('div', { class: 'mini-sub' }, meta, time)),
      h('div', { class: 'mini-controls' },
        backButton,
        playButton,
        forwardButton,
        iconButton('expand', 'Open the player', () => navigate('/player'))));
    let shownId = null;
    const render = () => {
      root.hidden = !this.current;
      document.body.classList.toggle('has-player', !!this.current);
      if (!this.current) return;
      const key = this.current.id ?? this.current.audio_url;
      if (shownId !== key) {
        shownId = key;
        art.replaceChildren(artwork(this.current.thumbnail_url, 'mini-img'));
        title.textContent = this.current.title;
        meta.textContent = this.current.channel_name || '';
      }
      const label = this.playing ? 'Pause' : 'Play';
      if (playButton.getAttribute('aria-label') !== label) {
        playButton.setAttribute('aria-label', label);
        playButton.title = label;
        playButton.replaceChildren(iconFor(this.playing));
      }
      nameSkip(backButton, skipName('Back', this.skips.skipBack));
      nameSkip(forwardButton, skipName('Forward', this.skips.skipForward));
      root.dataset.output = this.output;
      root.dataset.itemId = String(this.current.id);
      tick();
    };
    const tick = () => {
      if (!this.current) return;
      const d = this.duration;
      time.textContent = ` · ${formatDuration(this.position)}${d ? ' / ' + formatDuration(d) : ''}${this.output === 'server' ? ' · server' : ''}`;
      bar.firstChild.style.width = d ? `${Math.min(100, 100 * this.position / d)}%` : '0';
    };
    this.addEventListener('change', render);
    this.addEventListener('time', tick);
    render();
    this.resumeOutput();
  }
}

/** "Back 15 seconds", "Forward 30 seconds": what a screen reader says for a skip button. */
export function skipName(direction, seconds) { return `${direction} ${seconds} seconds`; }
export function nameSkip(button, name) {
  if (button.getAttribute('aria-label') === name) return;
  button.setAttribute('aria-label', name);
  button.title = name;
}

function iconFor(playing) {
  const button = iconButton(playing ? 'pause' : 'play', '');
  return button.firstChild;
}

export const RATE_CHOICES = RATES;
export const player = new Player();
export default player;
