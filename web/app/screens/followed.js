// Followed collections: collections others published that you follow (on this server, or on
// another feedctl server), listed apart from your own and read-only, each with its owner and
// marked once its owner withdrew it. Follow one by pasting its link; its items play from their
// enclosures. Live: a `followed` event (its owner changed it or withdrew it, a sync read it
// anew, another of your devices followed or dropped one) redraws what is shown.
import { h, artwork, confirmDialog, formatDuration, relativeDate, safeURL } from '../ui.js';
import { busy, field, liveRegion, problem, reloadOn, savedTabs } from './parts.js';

export default {
  title: 'Followed',
  mount(root, ctx) {
    return ctx.params && ctx.params.id ? mountOne(root, ctx, ctx.params.id) : mountList(root, ctx);
  },
};

/** "by alice · 3 items · on feeds.example.org" */
function describe(followed) {
  const parts = [`by ${followed.owner_name}`];
  if (!followed.withdrawn) parts.push(`${followed.item_count} ${followed.item_count === 1 ? 'item' : 'items'}`);
  if (followed.remote) {
    try { parts.push(`on ${new URL(followed.source_url).host}`); } catch { /* shown without it */ }
  }
  return parts.join(' · ');
}

/** What a withdrawn or unreadable followed collection says beside its name. */
function notices(followed) {
  return [
    followed.withdrawn ? h('p', { class: 'withdrawn', role: 'status' }, 'Withdrawn by its owner: it is no longer shared.') : null,
    !followed.withdrawn && followed.last_error ? h('p', { class: 'meta error' }, `Last read failed: ${followed.last_error}`) : null,
  ];
}

async function unfollow(ctx, followed, button, after) {
  if (!(await confirmDialog(`Stop following “${followed.name}”?`, { ok: 'Unfollow' }))) return;
  busy(button, async () => {
    await ctx.api.send('DELETE', `/api/followed-collections/${followed.id}`);
    ctx.toast(`Stopped following “${followed.name}”`);
    await after();
  }, ctx.toast);
}

async function mountList(root, ctx) {
  const input = h('input', { type: 'text', name: 'url', required: true, autocomplete: 'off', inputmode: 'url', spellcheck: 'false' });
  const follow = h('button', { type: 'submit', class: 'primary' }, 'Follow');
  const form = h('form', { class: 'inline-form' }, field('Link to a published collection', input), follow);
  const list = h('ul', { class: 'collection-list followed-list', 'aria-label': 'Followed collections' });
  root.replaceChildren(savedTabs('/followed'), h('h1', {}, 'Followed'),
    h('p', { class: 'meta' }, 'Collections others published, that you follow: theirs, read-only here. '
      + 'Paste a link to one (from this server or another feedctl server) to follow it.'),
    form, list);

  async function load() {
    const answer = await ctx.api.get('/api/followed-collections');
    list.replaceChildren(...answer.items.map(row));
    if (!answer.items.length) list.append(h('li', { class: 'empty' }, 'You follow no collection yet: paste a link above.'));
  }

  function row(followed) {
    const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Unfollow ${followed.name}` }, 'Unfollow');
    remove.addEventListener('click', () => unfollow(ctx, followed, remove, load));
    return h('li', { class: `collection followed${followed.withdrawn ? ' is-withdrawn' : ''}`, 'data-followed-id': String(followed.id) },
      artwork(followed.cover_url, 'art'),
      h('div', { class: 'card-body' },
        h('h2', { class: 'title' }, h('a', { href: `/followed/${followed.id}` }, followed.name),
          followed.withdrawn ? h('span', { class: 'badge' }, 'Withdrawn') : null),
        h('p', { class: 'meta' }, describe(followed)),
        ...notices(followed),
        h('div', { class: 'actions' }, remove)));
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const url = input.value.trim();
    if (!url) return;
    busy(follow, async () => {
      const followed = await ctx.api.send('POST', '/api/followed-collections', { url });
      input.value = '';
      ctx.toast(`Following “${followed.name}” by ${followed.owner_name}`);
      await load();
    }, ctx.toast);
  });
  // A link handed over in the address (`/followed?follow=URL`) is put in the field, not followed unasked.
  if (ctx.query.get('follow')) input.value = ctx.query.get('follow');
  try { await load(); } catch (error) { list.replaceChildren(h('li', { class: 'error', role: 'alert' }, problem(error))); }
  return reloadOn(ctx, ['followed', 'reset'], load);
}

/** A followed collection's item as the player takes it: no library id, its enclosure as the media. */
function playable(item) {
  return {
    id: null, title: item.title, channel_name: item.channel_name, thumbnail_url: item.thumbnail_url,
    duration_seconds: item.duration_seconds, audio_url: safeURL(item.audio_url), platform: item.platform, video_url: safeURL(item.url),
  };
}

async function mountOne(root, ctx, id) {
  const announcer = liveRegion();
  const body = h('div');
  root.replaceChildren(h('p', {}, h('a', { href: '/followed' }, '← All followed collections')), body, announcer);
  let shown = null;

  async function load() {
    let followed;
    try {
      followed = await ctx.api.get(`/api/followed-collections/${id}`);
    } catch (error) {
      body.replaceChildren(h('h1', {}, 'Followed collection'), h('p', { class: 'error', role: 'alert' }, problem(error)));
      return;
    }
    if (shown && !shown.withdrawn && followed.withdrawn) announcer.announce(`${followed.name} was withdrawn by its owner`);
    else if (shown && shown.item_count !== followed.item_count) announcer.announce(`${followed.name} now has ${followed.item_count} items`);
    shown = followed;
    const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Unfollow ${followed.name}` }, 'Unfollow');
    remove.addEventListener('click', () => unfollow(ctx, followed, remove, () => ctx.navigate('/followed')));
    const items = h('ol', { class: 'collection-items followed-items', 'aria-label': `Items of ${followed.name}` },
      ...followed.items.map((item) => itemRow(item)));
    if (!followed.items.length && !followed.withdrawn) items.append(h('li', { class: 'empty' }, 'Its owner has put nothing in it yet.'));
    body.replaceChildren(...[
      h('h1', {}, followed.name),
      h('p', { class: 'meta' }, describe(followed)),
      followed.description ? h('p', {}, followed.description) : null,
      ...notices(followed),
      h('div', { class: 'actions' }, remove),
      followed.withdrawn ? null : items,
    ].filter(Boolean));   // (replaceChildren writes a null as the text "null")
  }

  function itemRow(item) {
    const media = playable(item);
    const play = h('button', { type: 'button', 'aria-label': `Play ${item.title}` }, 'Play');
    play.disabled = !media.audio_url;
    play.addEventListener('click', () => busy(play, () => ctx.player.play(media), ctx.toast));
    const page = safeURL(item.url);
    return h('li', { class: 'collection-item followed-item' },
      artwork(item.thumbnail_url, 'art'),
      h('div', { class: 'card-body' },
        h('h2', { class: 'title' }, page ? h('a', { href: page, target: '_blank', rel: 'noopener noreferrer' }, item.title) : item.title),
        h('p', { class: 'meta' }, [item.channel_name, relativeDate(item.published_at), formatDuration(item.duration_seconds)].filter(Boolean).join(' · ')),
        h('div', { class: 'actions' }, play)));
  }

  await load();
  return reloadOn(ctx, ['followed', 'reset'], load);
}
