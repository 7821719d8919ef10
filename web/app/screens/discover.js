// Discover: one search sent to every platform at once, each platform answered on its own
// (one request per platform), so its status and time show as soon as it answers.
import { h, formatDuration, artwork, safeURL } from '../ui.js';
import { busy, field, playItem, problem, section } from './parts.js';

export default {
  title: 'Discover',
  async mount(root, ctx) {
    let generation = 0;   // a newer search (or leaving the screen) makes older answers stale
    const input = h('input', { type: 'search', name: 'q', required: '', enterkeyhint: 'search',
                               placeholder: 'Podcasts, channels, episodes' });
    const kind = h('select', { name: 'type' }, h('option', { value: 'videos' }, 'Episodes and videos'),
                   h('option', { value: 'channels' }, 'Channels and podcasts'));
    const submit = h('button', { type: 'submit', class: 'primary' }, 'Search');
    const form = h('form', { class: 'discover-form', role: 'search', 'aria-label': 'Discover' },
                   field('Search for', input), field('Look for', kind), submit);
    const statusList = h('ul', { class: 'platform-status', 'aria-label': 'Platforms' });
    const results = h('div', { class: 'discover-results' });
    root.replaceChildren(h('h1', {}, 'Discover'), form, statusList, results);

    let platforms = [];
    try {
      platforms = (await ctx.api.get('/api/discover/platforms')).platforms.filter((p) => p.supports_search);
    } catch (error) {
      results.replaceChildren(h('p', { class: 'error', role: 'alert' }, problem(error)));
    }

    async function search(query, type) {
      const mine = ++generation;
      statusList.replaceChildren();
      results.replaceChildren();
      if (!platforms.length) {
        results.append(h('p', { class: 'empty' }, 'No platform can be searched on this server.'));
        return;
      }
      const started = performance.now();
      await Promise.all(platforms.map(async (platform) => {
        const state = h('span', { class: 'state' }, 'searching…');
        const row = h('li', { class: 'platform searching', 'data-platform': platform.id },
                      h('span', { class: 'name' }, platform.name), ' ', state);
        statusList.append(row);
        try {
          const answer = await ctx.api.send('POST', '/api/discover/search',
                                            { query, type, platforms: [platform.id], max_per_platform: 10 });
          if (mine !== generation) return;
          const timing = (answer.timings || [])[0];
          const ms = timing ? timing.duration_ms : Math.round(performance.now() - started);
          if (timing && !timing.success) {
            row.className = 'platform failed';
            state.textContent = `failed after ${ms} ms: ${timing.error || 'no answer'}`;
            return;
          }
          row.className = 'platform done';
          const count = answer.results.length;
          state.textContent = `${count} ${count === 1 ? 'result' : 'results'} in ${ms} ms`;
          if (count) results.append(platformResults(platform, answer.results, answer.search_type, ctx));
        } catch (error) {
          if (mine !== generation) return;
          row.className = 'platform failed';
          state.textContent = `failed: ${problem(error)}`;
        }
      }));
      if (mine === generation && !results.childElementCount) {
        results.append(h('p', { class: 'empty' }, `Nothing found for “${query}”.`));
      }
    }

    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const query = input.value.trim();
      if (!query) return;
      const params = new URLSearchParams({ q: query });
      if (kind.value === 'channels') params.set('type', 'channels');
      history.replaceState(history.state, '', `/discover?${params}`);   // a reload or Back shows this search again
      busy(submit, () => search(query, kind.value), ctx.toast);
    });
    if (ctx.query && ctx.query.get && ctx.query.get('q')) {
      input.value = ctx.query.get('q');
      if (ctx.query.get('type') === 'channels') kind.value = 'channels';
      busy(submit, () => search(input.value.trim(), kind.value), ctx.toast);
    }
    return () => { generation++; };
  },
};

function platformResults(platform, list, searchType, ctx) {
  const items = list.map((result) => h('li', {}, searchType === 'channels' ? channelCard(result, ctx) : videoCard(result, ctx)));
  return section(platform.name, h('ul', { class: 'cards' }, ...items));
}

function videoCard(result, ctx) {
  const actions = h('div', { class: 'actions' });
  const channelURL = result.feed_url || result.channel_url;
  if (result.item_id != null) {
    const play = h('button', { type: 'button', 'aria-label': `Play ${result.title}` }, 'Play');
    play.addEventListener('click', () => busy(play, () => playItem(ctx, result.item_id), ctx.toast));
    actions.append(play);
  } else if (channelURL) {
    // The app plays library items (their audio route): follow the channel, then play the episode from it.
    const name = result.channel_name || 'its channel';
    const play = h('button', { type: 'button', 'aria-label': `Subscribe to ${name} and play ${result.title}` }, 'Subscribe and play');
    play.addEventListener('click', () => busy(play, async () => {
      const channel = await ctx.api.send('POST', '/api/channels', { channel_url: channelURL });
      const page = await ctx.api.get('/api/feed', { channel_ids: channel.id, per_page: 200 });
      const same = (item) => (result.audio_url && item.audio_url === result.audio_url) || item.video_url === result.video_url
        || item.video_id === result.video_id;
      const item = page.items.find(same);
      if (!item) throw new Error(`Subscribed to ${channel.name}, but “${result.title}” is not in its feed: find it in the channel`);
      await ctx.player.play(item);
    }, ctx.toast));
    actions.append(play);
  }
  const save = h('button', { type: 'button', 'aria-label': `Save ${result.title}` }, 'Save');
  save.addEventListener('click', () => busy(save, async () => {
    await ctx.api.send('POST', '/api/saved-videos', savedBody(result));
    save.textContent = 'Saved';
    save.setAttribute('aria-label', `Saved ${result.title}`);
    ctx.toast(`Saved “${result.title}”`);
  }, ctx.toast));
  actions.append(save);
  if (channelURL) actions.append(subscribeButton(channelURL, result.channel_name || result.title, result.subscribed, ctx));
  const link = safeURL(result.video_url);
  const meta = [result.channel_name, result.duration_seconds ? formatDuration(result.duration_seconds) : null,
                result.upload_date ? result.upload_date.slice(0, 10) : null].filter(Boolean).join(' · ');
  return h('article', { class: 'card' }, artwork(result.thumbnail_url, 'art'),
           h('div', { class: 'card-body' },
             h('h3', {}, link ? h('a', { href: link, rel: 'noopener noreferrer nofollow', target: '_blank' }, result.title) : result.title),
             h('p', { class: 'meta' }, meta), actions));
}

function channelCard(result, ctx) {
  const actions = h('div', { class: 'actions' });
  const url = result.feed_url || result.channel_url;
  if (result.library_channel_id != null) {
    const open = h('a', { href: `/channels/${result.library_channel_id}`, class: 'button' }, `Open ${result.name}`);
    actions.append(open);
  } else if (url) {
    actions.append(subscribeButton(url, result.name, result.subscribed, ctx));
  }
  const meta = [result.video_count != null ? `${result.video_count} ${result.video_count === 1 ? 'episode' : 'episodes'}` : null, result.provider].filter(Boolean).join(' · ');
  return h('article', { class: 'card' }, artwork(result.avatar_url, 'art'),
           h('div', { class: 'card-body' }, h('h3', {}, result.name), h('p', { class: 'meta' }, meta),
             result.description ? h('p', { class: 'description' }, result.description) : '', actions));
}

function subscribeButton(url, name, subscribed, ctx) {
  const button = h('button', { type: 'button', 'aria-label': `Subscribe to ${name}` }, 'Subscribe');
  const done = () => {   // after busy() has given the button back
    button.textContent = 'Subscribed';
    button.setAttribute('aria-label', `Subscribed to ${name}`);
    button.disabled = true;
  };
  if (subscribed) { done(); return button; }
  button.addEventListener('click', () => busy(button, async () => {
    const channel = await ctx.api.send('POST', '/api/channels', { channel_url: url });
    ctx.toast(`Subscribed to ${channel.name} (${channel.video_count} ${channel.video_count === 1 ? 'episode' : 'episodes'})`);
    return true;
  }, ctx.toast).then((subscribedNow) => { if (subscribedNow) done(); }));
  return button;
}

// The backend's saved-video body, from a search result.
function savedBody(r) {
  return {
    platform: r.platform, video_id: r.video_id, video_url: r.video_url, title: r.title, description: r.description,
    thumbnail_url: r.thumbnail_url, duration_seconds: r.duration_seconds, view_count: r.view_count,
    upload_date: r.upload_date, channel_name: r.channel_name, channel_id: r.channel_id, channel_url: r.channel_url,
  };
}
