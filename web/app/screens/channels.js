// Channels: add by any URL `channel add` takes, sync, pause, remove, per-channel speed, each
// channel's errors and parse warnings, OPML import and export; /channels/{id} adds its items.
import { h, itemRow, relativeDate, confirmDialog, artwork } from '../ui.js';
import { busy, download, field, liveRegion, postDocument, problem, reloadOn } from './parts.js';
import { SPEED_CHOICES } from '../prefs.js';

export default {
  title: 'Channels',
  mount(root, ctx) {
    return ctx.params && ctx.params.id ? mountOne(root, ctx, ctx.params.id) : mountList(root, ctx);
  },
};

function syncText(result) {
  if (!result.success) return `Sync failed: ${result.error || 'unknown error'}`;
  return result.new_videos ? `Synced: ${plural(result.new_videos, 'new item')}` : 'Synced: nothing new';
}

function plural(count, noun) { return `${count} ${noun}${count === 1 ? '' : 's'}`; }

const CHANNELS_PER_PAGE = 100;

// The last sync's answer per channel id, so a card drawn again (a reload) still shows it.
const syncResults = new Map();

// One channel's status, errors, warnings and controls. `onRemoved` runs after it is removed.
function channelCard(channel, ctx, { onRemoved, onChanged, heading = 'h2', linkName = true }) {
  const card = h('article', { class: 'channel-card', 'data-channel-id': String(channel.id) });
  const result = h('p', { class: 'sync-result', role: 'status' }, syncResults.get(channel.id) || '');

  function render() {
    const name = channel.display_name || channel.name;
    const counts = `${plural(channel.video_count, 'item')} · ${channel.unwatched_count} unwatched`;
    const synced = channel.last_synced_at ? `synced ${relativeDate(channel.last_synced_at)}` : 'never synced';
    const sync = h('button', { type: 'button', 'aria-label': `Sync ${name} now` }, 'Sync now');
    const pause = h('button', { type: 'button', 'aria-label': `${channel.is_active ? 'Pause' : 'Resume'} ${name}` },
                    channel.is_active ? 'Pause' : 'Resume');
    const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${name}` }, 'Remove');
    // "Default" only until a speed is chosen: the library keeps a chosen speed, it does not forget one.
    const speed = h('select', { name: 'speed' },
                    channel.speed == null ? h('option', { value: '' }, 'Default') : null,
                    ...SPEED_CHOICES.map((rate) => h('option', { value: String(rate) }, `${rate}×`)));
    speed.value = channel.speed != null && SPEED_CHOICES.includes(channel.speed) ? String(channel.speed) : '';
    if (channel.speed != null && !SPEED_CHOICES.includes(channel.speed)) {
      speed.append(h('option', { value: String(channel.speed) }, `${channel.speed}×`));
      speed.value = String(channel.speed);
    }

    sync.addEventListener('click', () => busy(sync, async () => {
      result.textContent = `Syncing ${name}…`;
      const answer = await ctx.api.send('POST', `/api/channels/${channel.id}/sync`);
      Object.assign(channel, await ctx.api.get(`/api/channels/${channel.id}`));
      render();
      syncResults.set(channel.id, syncText(answer));
      result.textContent = syncText(answer);
      if (onChanged) onChanged(channel);
    }, (text) => { result.textContent = `Sync failed: ${text}`; }));
    pause.addEventListener('click', () => busy(pause, async () => {
      Object.assign(channel, await ctx.api.send('PUT', `/api/channels/${channel.id}`, { is_active: !channel.is_active }));
      render();
      card.querySelector('[data-action="pause"]').focus();
      ctx.toast(channel.is_active ? `Resumed ${name}` : `Paused ${name}: it is not polled until resumed`);
    }, ctx.toast));
    pause.dataset.action = 'pause';
    speed.addEventListener('change', async () => {
      if (!speed.value) return;
      try {
        Object.assign(channel, await ctx.api.send('PUT', `/api/channels/${channel.id}`, { speed: Number(speed.value) }));
        ctx.toast(`${name} plays at ${channel.speed}×`);
      } catch (error) { ctx.toast(problem(error)); }
    });
    remove.addEventListener('click', async () => {
      if (!(await confirmDialog(`Unsubscribe from ${name}? Its items leave your feed; your history stays.`))) return;
      busy(remove, async () => {
        await ctx.api.send('DELETE', `/api/channels/${channel.id}`);
        ctx.toast(`Removed ${name}`);
        onRemoved(channel);
      }, ctx.toast);
    });

    const title = linkName ? h('a', { href: `/channels/${channel.id}` }, name) : name;
    const problems = [];
    if (channel.last_sync_error) {
      const again = channel.consecutive_errors > 1 ? ` (${channel.consecutive_errors} syncs in a row)` : '';
      problems.push(h('p', { class: 'error' }, h('strong', {}, 'Last sync failed'), `${again}: ${channel.last_sync_error}`));
    }
    const warnings = channel.warnings || [];
    if (warnings.length) {
      problems.push(h('details', { class: 'warnings' },
                      h('summary', {}, `${warnings.length} parse ${warnings.length === 1 ? 'warning' : 'warnings'}`),
                      h('ul', {}, ...warnings.map((text) => h('li', {}, text)))));
    }
    card.replaceChildren(
      artwork(channel.avatar_url, 'art'),
      h('div', { class: 'card-body' },
        h(heading, { class: 'title' }, title, channel.is_active ? '' : h('span', { class: 'badge' }, ' paused')),
        h('p', { class: 'meta' }, `${channel.platform} · ${counts} · ${synced}`),
        ...problems,
        h('div', { class: 'actions' }, sync, pause, field(`Playback speed for ${name}`, speed), remove),
        result));
  }
  render();
  return card;
}

async function mountList(root, ctx) {
  const url = h('input', { type: 'text', name: 'url', inputmode: 'url', autocomplete: 'url', required: '', spellcheck: 'false',
                           placeholder: 'https://… feed, YouTube channel or playlist, Rumble channel, a site' });
  const add = h('button', { type: 'submit', class: 'primary' }, 'Add channel');
  const addForm = h('form', { class: 'inline-form' }, field('Channel or feed URL', url), add);
  const syncAll = h('button', { type: 'button' }, 'Sync all');
  const exportButton = h('button', { type: 'button' }, 'Export OPML');
  // The file input stays the control (keyboard and screen readers reach it); its label is what shows.
  const file = h('input', { type: 'file', accept: '.opml,.xml,text/x-opml,text/xml,application/xml', class: 'file-input', id: 'opml-file' });
  const importLabel = h('label', { class: 'button', for: 'opml-file' }, 'Import OPML');
  const report = h('div', { class: 'report', role: 'status' });
  const count = h('p', { class: 'meta' });
  const list = h('ul', { class: 'channel-list', 'aria-label': 'Channels' });
  const announcer = liveRegion();
  root.replaceChildren(h('h1', {}, 'Channels'), addForm, h('div', { class: 'toolbar' }, syncAll, exportButton, file, importLabel),
                       report, count, list, announcer);

  // A page at a time (a user may follow thousands): the first, then more on request.
  const more = h('button', { type: 'button', hidden: '' }, 'Show more channels');
  list.after(more);
  let channels = [];
  let total = 0;
  function render() {
    count.textContent = channels.length < total ? `${plural(total, 'channel')}, ${channels.length} shown` : plural(total, 'channel');
    list.replaceChildren(...channels.map((channel) => h('li', {}, channelCard(channel, ctx, {
      onRemoved: (gone) => {
        channels = channels.filter((c) => c.id !== gone.id);
        total -= 1;
        render();
        announcer.announce(`Removed ${gone.name}`);
      },
    }))));
    more.hidden = channels.length >= total;
    if (!total) list.append(h('li', { class: 'empty' }, 'No channels yet: add one by its URL above, or import an OPML file.'));
  }
  async function fetchPage(page) {
    return ctx.api.get('/api/channels', { page, per_page: CHANNELS_PER_PAGE });
  }
  // The pages shown so far, again (after a change here or on another device).
  async function load() {
    const pages = Math.max(1, Math.ceil(channels.length / CHANNELS_PER_PAGE));
    const answers = [];
    for (let page = 1; page <= pages; page++) answers.push(await fetchPage(page));
    channels = answers.flatMap((answer) => answer.items);
    total = answers[0].total;
    render();
  }
  more.addEventListener('click', () => busy(more, async () => {
    const answer = await fetchPage(Math.floor(channels.length / CHANNELS_PER_PAGE) + 1);
    const known = new Set(channels.map((c) => c.id));
    channels.push(...answer.items.filter((c) => !known.has(c.id)));
    total = answer.total;
    render();
  }, ctx.toast));

  addForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = url.value.trim();
    if (!value) return;
    busy(add, async () => {
      report.replaceChildren(`Adding ${value}…`);
      try {
        const channel = await ctx.api.send('POST', '/api/channels', { channel_url: value });
        url.value = '';
        report.replaceChildren(h('p', {}, `Added `, h('a', { href: `/channels/${channel.id}` }, channel.name),
                                 ` (${plural(channel.video_count, 'item')})`, channel.last_sync_error ? `; its first sync failed: ${channel.last_sync_error}` : ''));
        await load();
      } catch (error) {
        report.replaceChildren(h('p', { class: 'error' }, `Could not add ${value}: ${problem(error)}`));
      }
    });
  });
  syncAll.addEventListener('click', () => busy(syncAll, async () => {
    report.replaceChildren('Syncing every active channel…');
    const results = await ctx.api.send('POST', '/api/feed/sync');
    const failed = results.filter((r) => !r.success);
    const fresh = results.reduce((sum, r) => sum + (r.new_videos || 0), 0);
    report.replaceChildren(h('p', {}, `Synced ${results.length} channels: ${fresh} new items, ${failed.length} failed.`),
                           failed.length ? h('ul', {}, ...failed.map((r) => h('li', { class: 'error' }, `${r.channel_name}: ${r.error}`))) : '');
    await load();
  }, (text) => report.replaceChildren(h('p', { class: 'error' }, `Sync failed: ${text}`))));
  exportButton.addEventListener('click', () => busy(exportButton, async () => {
    download('feedctl-subscriptions.opml', await ctx.api.get('/api/channels/opml'), 'text/x-opml');
  }, ctx.toast));
  file.addEventListener('change', async () => {
    const chosen = file.files && file.files[0];
    if (!chosen) return;
    report.replaceChildren(`Importing ${chosen.name}…`);
    try {
      const text = await chosen.text();
      const answer = await postDocument('/api/channels/opml', text, 'text/x-opml');
      report.replaceChildren(h('p', {}, `Imported ${chosen.name}: ${answer.imported} added, ${answer.skipped} already followed, ${answer.failed} failed.`),
                             answer.errors.length ? h('ul', {}, ...answer.errors.map((line) => h('li', { class: 'error' }, line))) : '');
      await load();
    } catch (error) {
      report.replaceChildren(h('p', { class: 'error' }, `Could not import ${chosen.name}: ${problem(error)}`));
    } finally {
      file.value = '';
    }
  });
  try { await load(); } catch (error) { list.replaceChildren(h('li', { class: 'error', role: 'alert' }, problem(error))); }
  return reloadOn(ctx, ['subscription', 'sync', 'reset'], load);
}

async function mountOne(root, ctx, id) {
  let channel;
  try {
    channel = await ctx.api.get(`/api/channels/${id}`);
  } catch (error) {
    root.replaceChildren(h('h1', {}, 'Channel'), h('p', { class: 'error', role: 'alert' }, problem(error)),
                         h('a', { href: '/channels' }, 'All channels'));
    return;
  }
  const items = h('ul', { class: 'item-list', 'aria-label': `Items of ${channel.name}` });
  const more = h('button', { type: 'button', hidden: '' }, 'Load more');
  let page = 0;
  async function load(reset) {
    if (reset) { page = 0; items.replaceChildren(); }
    const answer = await ctx.api.get('/api/feed', { channel_ids: String(channel.id), page: page + 1, per_page: 50, sort_by: 'newest' });
    page += 1;
    for (const item of answer.items) items.append(h('li', {}, itemRow(item, ctx)));
    more.hidden = !answer.has_more;
    if (!answer.total) items.replaceChildren(h('li', { class: 'empty' }, 'No items yet.'));
  }
  const card = channelCard(channel, ctx, {
    heading: 'h1', linkName: false,
    onRemoved: () => ctx.navigate('/channels'),
    onChanged: () => load(true).catch((error) => ctx.toast(problem(error))),
  });
  more.addEventListener('click', () => busy(more, () => load(false), ctx.toast));
  root.replaceChildren(h('p', {}, h('a', { href: '/channels' }, '← All channels')), card, h('h2', {}, 'Items'), items, more);
  try { await load(true); } catch (error) { items.replaceChildren(h('li', { class: 'error', role: 'alert' }, problem(error))); }
}
