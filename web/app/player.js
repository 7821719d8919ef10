// The player: one <audio> element ("This device", with the Media Session API) or the daemon
// through /api/player ("The server's speakers"), switchable while playing with the position
// kept; a mini player that stays across navigation; the up-next queue (kept in this browser);
// progress saved to the server (every 10 s while playing, on pause, seek, and when the page is
// hidden) through the progress route, so the watched rule is the server's.
import { api, ApiError } from './api.js';
import { h, iconButton, formatDuration, artwork, safeURL } from './ui.js';

const SKIP = 15;
const SAVE_EVERY_MS = 10_000;
const RATES = [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3];
const SERVER_EVENTS = ['tick', 'status', 'metadata', 'seeked', 'volume', 'rate', 'chapter', 'capabilities'];

/** What the queue keeps of an item (localStorage): enough to show and play it. */
function slim(item) {
  const { id, title, channel_name, thumbnail_url, duration_seconds, audio_url, watch_progress_seconds, is_watched, upload_date, platform, video_url, video_id, chapters } = item;
  return { id, title, channel_name, thumbnail_url, duration_seconds, audio_url, watch_progress_seconds, is_watched, upload_date, platform, video_url, video_id, chapters };
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
    this.queue = this.#load('feedctl.queue', []);
    this.rate = Number(localStorage.getItem('feedctl.rate')) || 1;
    this.sleepAt = null;          // ms since epoch, or 'end'
    this.remote = null;           // the daemon's last status (server output)
    this.remoteAt = 0;            // when it arrived
    this.lastSaved = { id: null, seconds: -1, at: 0 };
    this.#wireAudio();
    this.#wireMediaSession();
    addEventListener('pagehide', () => this.saveProgress({ keepalive: true }));
    document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') this.saveProgress({ keepalive: true }); });
  }

  #load(key, fallback) {
    try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch { return fallback; }
  }
  #changed() {
    localStorage.setItem('feedctl.queue', JSON.stringify(this.queue));
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
    this.queue = this.queue.filter((q) => q.id !== item.id);
    const from = start ?? (item.is_watched ? 0 : (item.watch_progress_seconds || 0));
    this.#setMetadata();
    this.#changed();
    if (this.output === 'server') return this.#remotePlay(this.current, from);
    return this.#devicePlay(this.current, from);
  }

  enqueue(item) {
    if (this.current?.id === item.id || this.queue.some((q) => q.id === item.id)) return;
    this.queue.push(slim(item));
    this.#changed();
  }
  removeFromQueue(index) { this.queue.splice(index, 1); this.#changed(); }
  moveInQueue(index, delta) {
    const to = index + delta;
    if (to < 0 || to >= this.queue.length) return;
    const [entry] = this.queue.splice(index, 1);
    this.queue.splice(to, 0, entry);
    this.#changed();
  }
  clearQueue() { this.queue = []; this.#changed(); }

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
  async seek(seconds) {
    const to = Math.max(0, Math.min(seconds, this.duration || seconds));
    if (this.output === 'server') return this.#remote('seek', { position: Math.floor(to) });
    this.audio.currentTime = to;
  }
  async setRate(rate) {
    this.rate = Math.min(3, Math.max(0.5, Number(rate) || 1));
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
    const item = this.queue.shift();
    if (!item) return;
    if (this.current) this.history = [this.current, ...(this.history || [])].slice(0, 20);
    await this.play(item);
  }
  async previous() {
    if (this.position > 5 || !this.history?.length) return this.seek(0);
    const [item, ...rest] = this.history;
    this.history = rest;
    if (this.current) this.queue.unshift(this.current);
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
    if (!item || this.output === 'server') return;   // the daemon keeps its own progress
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
    audio.src = `/api/items/${item.id}/audio`;
    audio.playbackRate = this.rate;
    audio.defaultPlaybackRate = this.rate;
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
      if (this.queue.length) this.next(); else this.#changed();
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
      await this.#remote('play', { item_id: item.id });
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
    if (this.output === 'server' && before === 'playing' && status.status === 'stopped' && this.queue.length && this.sleepAt !== 'end') this.next();
    this.dispatchEvent(new Event('time'));
    this.dispatchEvent(new Event('change'));
  }
  #listenRemote() {
    this.#unlistenRemote();
    const source = new EventSource('/api/player/events');
    for (const kind of SERVER_EVENTS) {
      source.addEventListener(kind, (event) => { try { this.#remoteUpdate(JSON.parse(event.data)); } catch { /* not a status */ } });
    }
    source.addEventListener('error', (event) => {
      if (event.data) { try { this.#error(JSON.parse(event.data).detail); } catch { /* */ } }
    });
    this.source = source;
    this.ticker = setInterval(() => { if (this.playing) this.dispatchEvent(new Event('time')); }, 1000);
  }
  #unlistenRemote() {
    this.source?.close();
    this.source = null;
    clearInterval(this.ticker);
  }

  // --- Media Session (lock screen, headset, car) ---------------------------------------------

  #wireMediaSession() {
    if (!('mediaSession' in navigator)) return;
    const handlers = {
      play: () => this.resume(),
      pause: () => this.pause(),
      seekbackward: (d) => this.skip(-(d.seekOffset || SKIP)),
      seekforward: (d) => this.skip(d.seekOffset || SKIP),
      seekto: (d) => this.seek(d.seekTime),
      nexttrack: () => this.next(),
      previoustrack: () => this.previous(),
    };
    for (const [action, handler] of Object.entries(handlers)) {
      try { navigator.mediaSession.setActionHandler(action, handler); } catch { /* not supported here */ }
    }
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
    root.replaceChildren(bar, art,
      h('div', { class: 'mini-text' }, title, h('div', { class: 'mini-sub' }, meta, time)),
      h('div', { class: 'mini-controls' },
        iconButton('back', 'Back 15 seconds', () => this.skip(-SKIP)),
        playButton,
        iconButton('forward', 'Forward 15 seconds', () => this.skip(SKIP)),
        iconButton('expand', 'Open the player', () => navigate('/player'))));
    let shownId = null;
    const render = () => {
      root.hidden = !this.current;
      document.body.classList.toggle('has-player', !!this.current);
      if (!this.current) return;
      if (shownId !== this.current.id) {
        shownId = this.current.id;
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

function iconFor(playing) {
  const button = iconButton(playing ? 'pause' : 'play', '');
  return button.firstChild;
}

export const RATE_CHOICES = RATES;
export const player = new Player();
export default player;
