// Collections: the list (create, rename, delete, export) and one collection's items in order
// (reorder by dragging, by the Move up/down buttons, or Alt+↑/↓ on a row; remove; copy or move
// one item, or those selected, to another collection); publishing one (its link shown and
// copyable) and withdrawing it.
import { h, confirmDialog, artwork, showDialog } from '../ui.js';
import { busy, download, field, liveRegion, playItem, problem, reloadOn, savedTabs } from './parts.js';

export default {
  title: 'Collections',
  mount(root, ctx) {
    return ctx.params && ctx.params.id ? mountOne(root, ctx, ctx.params.id) : mountList(root, ctx);
  },
};

async function exportCollection(ctx, collection) {
  const exported = await ctx.api.get(`/api/collections/export/${collection.id}`);
  download(`${collection.slug || 'collection'}.json`, JSON.stringify(exported, null, 2), 'application/json');
}

/** A collection's Export and Delete buttons, as the list and the collection's page both have them;
 * `afterDelete` is where each goes once it is gone. */
function wireExportAndDelete(ctx, collection, exportButton, remove, afterDelete) {
  exportButton.addEventListener('click', () => busy(exportButton, () => exportCollection(ctx, collection), ctx.toast));
  remove.addEventListener('click', async () => {
    if (!(await confirmDialog(`Delete the collection “${collection.name}”? Its items stay in your library.`))) return;
    busy(remove, async () => {
      await ctx.api.send('DELETE', `/api/collections/${collection.id}`);
      ctx.toast(`Deleted “${collection.name}”`);
      await afterDelete();
    }, ctx.toast);
  });
}

// A small inline form asking for a new name (no prompt(): it cannot be styled or named).
function renameForm(current, label, onSave, onCancel) {
  const input = h('input', { type: 'text', name: 'name', required: '', autocomplete: 'off' });
  input.value = current;
  const save = h('button', { type: 'submit', class: 'primary' }, 'Save name');
  const cancel = h('button', { type: 'button' }, 'Cancel');
  const form = h('form', { class: 'inline-form' }, field(label, input), save, cancel);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = input.value.trim();
    if (name) busy(save, () => onSave(name));
  });
  cancel.addEventListener('click', onCancel);
  form.addEventListener('keydown', (event) => { if (event.key === 'Escape') onCancel(); });
  queueMicrotask(() => { input.focus(); input.select(); });
  return form;
}

async function mountList(root, ctx) {
  const name = h('input', { type: 'text', name: 'name', required: '', autocomplete: 'off' });
  const create = h('button', { type: 'submit', class: 'primary' }, 'Create collection');
  const form = h('form', { class: 'inline-form' }, field('New collection name', name), create);
  const list = h('ul', { class: 'collection-list', 'aria-label': 'Collections' });
  root.replaceChildren(savedTabs('/collections'), h('h1', {}, 'Collections'), form, list);

  async function load() {
    const answer = await ctx.api.get('/api/collections');
    list.replaceChildren(...answer.items.map((collection) => collectionRow(collection)));
    if (!answer.items.length) list.append(h('li', { class: 'empty' }, 'No collections yet: name one above.'));
  }

  function collectionRow(collection) {
    const row = h('li', { class: 'collection', 'data-collection-id': String(collection.id) });
    const show = () => {
      const count = `${collection.item_count} ${collection.item_count === 1 ? 'item' : 'items'}`;
      const rename = h('button', { type: 'button', 'aria-label': `Rename ${collection.name}` }, 'Rename');
      const exportButton = h('button', { type: 'button', 'aria-label': `Export ${collection.name}` }, 'Export');
      const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${collection.name}` }, 'Delete');
      rename.addEventListener('click', () => {
        row.replaceChildren(renameForm(collection.name, `New name for ${collection.name}`, async (newName) => {
          try {
            Object.assign(collection, await ctx.api.send('PUT', `/api/collections/${collection.id}`, { name: newName }));
            show();
            row.querySelector('a').focus();
          } catch (error) { ctx.toast(problem(error)); }
        }, () => { show(); rename.focus(); }));
      });
      wireExportAndDelete(ctx, collection, exportButton, remove, load);
      row.replaceChildren(artwork(collection.cover_url, 'art'),
                          h('div', { class: 'card-body' }, h('h2', { class: 'title' }, h('a', { href: `/collections/${collection.id}` }, collection.name)),
                            h('p', { class: 'meta' }, collection.description ? `${count} · ${collection.description}` : count),
                            h('div', { class: 'actions' }, rename, exportButton, remove)));
    };
    show();
    return row;
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = name.value.trim();
    if (!value) return;
    busy(create, async () => {
      const created = await ctx.api.send('POST', '/api/collections', { name: value });
      name.value = '';
      ctx.toast(`Created “${created.name}”`);
      await load();
    }, ctx.toast);
  });
  try { await load(); } catch (error) { list.replaceChildren(h('li', { class: 'error', role: 'alert' }, problem(error))); }
  // Not while a rename is being typed here.
  return reloadOn(ctx, ['collection', 'reset'], async () => { if (!list.querySelector('form')) await load(); });
}

async function mountOne(root, ctx, id) {
  let collection;
  try {
    collection = await ctx.api.get(`/api/collections/${id}`);
  } catch (error) {
    root.replaceChildren(h('h1', {}, 'Collection'), h('p', { class: 'error', role: 'alert' }, problem(error)),
                         h('a', { href: '/collections' }, 'All collections'));
    return;
  }
  const heading = h('h1', {}, collection.name);
  const headerSlot = h('div', { class: 'collection-header' });
  const announcer = liveRegion();
  const list = h('ol', { class: 'collection-items', 'aria-label': `Items of ${collection.name}` });
  const hint = h('p', { class: 'meta', id: 'reorder-hint' }, 'Drag an item, use its Move buttons, or press Alt+↑ or Alt+↓ on it to reorder.');
  // Items ticked for "Copy or move selected", by id (kept while the rows are redrawn).
  const selected = new Set();
  const transferSelected = h('button', { type: 'button', disabled: true }, 'Copy or move selected');
  transferSelected.addEventListener('click', () => transfer(items.filter((item) => selected.has(item.id)), transferSelected));
  const toolbar = h('div', { class: 'actions collection-toolbar' }, transferSelected);
  root.replaceChildren(h('p', {}, h('a', { href: '/collections' }, '← All collections')), headerSlot, sharePanel(ctx, collection),
                       hint, toolbar, list, announcer);

  function header() {
    const rename = h('button', { type: 'button', 'aria-label': `Rename ${collection.name}` }, 'Rename');
    const exportButton = h('button', { type: 'button', 'aria-label': `Export ${collection.name}` }, 'Export');
    const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${collection.name}` }, 'Delete');
    heading.textContent = collection.name;
    list.setAttribute('aria-label', `Items of ${collection.name}`);
    rename.addEventListener('click', () => {
      headerSlot.replaceChildren(renameForm(collection.name, `New name for ${collection.name}`, async (newName) => {
        try {
          Object.assign(collection, await ctx.api.send('PUT', `/api/collections/${collection.id}`, { name: newName }));
          header();
          render();   // the rows' button names carry the collection's name
          headerSlot.querySelector('button').focus();
        } catch (error) { ctx.toast(problem(error)); }
      }, () => { header(); headerSlot.querySelector('button').focus(); }));
    });
    wireExportAndDelete(ctx, collection, exportButton, remove, () => ctx.navigate('/collections'));
    headerSlot.replaceChildren(heading, collection.description ? h('p', {}, collection.description) : '',
                               h('div', { class: 'actions' }, rename, exportButton, remove));
  }
  header();

  let items = collection.items.slice();

  function selectionChanged() {
    for (const id of selected) if (!items.some((item) => item.id === id)) selected.delete(id);
    transferSelected.disabled = selected.size === 0;
    transferSelected.textContent = selected.size ? `Copy or move ${selected.size} selected` : 'Copy or move selected';
  }

  // Asks where to (the available targets) and whether to copy or move `chosen`, does it, and
  // says what happened in words; then shows the collection as the server has it.
  async function transfer(chosen, invoker) {
    if (!chosen.length) return;
    let targets;
    try {
      targets = (await ctx.api.get(`/api/collections/${collection.id}/available-targets`)).collections;
    } catch (error) { ctx.toast(problem(error)); return; }
    const what = chosen.length === 1 ? `“${chosen[0].title || chosen[0].url}”` : `${chosen.length} items`;
    if (!targets.length) {
      await showDialog(`Copy or move ${what}`, h('p', {}, 'There is no other collection yet: make one under All collections first.'),
                       [['Close', 'close', true]]);
      invoker.focus();
      return;
    }
    const select = h('select', { name: 'target' }, targets.map((target) => h('option', { value: String(target.id) },
      `${target.name} (${target.item_count} ${target.item_count === 1 ? 'item' : 'items'}${target.has_items ? ', has some of these already' : ''})`)));
    const keep = h('input', { type: 'checkbox', name: 'preserve_metadata' });
    const body = h('div', {}, field('To collection', select),
                   h('p', {}, h('label', { class: 'check' }, keep, 'Keep their places and when they were added')));
    const operation = await showDialog(`Copy or move ${what}`, body, [['Cancel', 'cancel'], ['Move', 'move'], ['Copy', 'copy', true]]);
    if (operation !== 'copy' && operation !== 'move') { invoker.focus(); return; }
    const target = targets.find((candidate) => String(candidate.id) === select.value);
    let said;
    try {
      const answer = chosen.length === 1
        ? await ctx.api.send('POST', `/api/collections/${collection.id}/items/${chosen[0].id}/${operation}`,
                             { target_collection_id: target.id, preserve_metadata: keep.checked })
        : await ctx.api.send('POST', '/api/collections/bulk-operation', {
          operation, source_collection_id: collection.id, target_collection_id: target.id,
          items: chosen.map((item) => ({ item_id: item.id })), preserve_metadata: keep.checked });
      said = answer.message.charAt(0).toUpperCase() + answer.message.slice(1);
      if (answer.errors && answer.errors.length) said += `; not found: ${answer.errors.map((failure) => failure.error).join('; ')}`;
    } catch (error) {
      if (error.status !== 409) { ctx.toast(problem(error)); invoker.focus(); return; }
      said = `${what} is already in “${target.name}”: nothing was ${operation === 'copy' ? 'copied' : 'moved'}`;
    }
    announcer.announce(said);
    ctx.toast(said);
    selected.clear();
    try {
      const fresh = await ctx.api.get(`/api/collections/${collection.id}`);
      items = fresh.items;
      collection.item_count = fresh.item_count;
    } catch (error) { ctx.toast(problem(error)); }
    selectionChanged();
    render();
    const again = invoker.isConnected ? invoker : list.querySelector(`[data-item-id="${chosen[0].id}"] [data-transfer]`);
    (again && !again.disabled ? again : list.querySelector('.collection-item'))?.focus();
  }

  // Moves `itemID` to `index`, shows it, and stores the order (put back if the server refuses).
  async function move(itemID, index, focusAfter) {
    const from = items.findIndex((item) => item.id === itemID);
    if (from < 0 || index < 0 || index >= items.length || index === from) return;
    const before = items.slice();
    const [moved] = items.splice(from, 1);
    items.splice(index, 0, moved);
    render(focusAfter ? itemID : null, focusAfter);
    announcer.announce(`Moved ${moved.title} to position ${index + 1} of ${items.length}`);
    try {
      await ctx.api.send('POST', `/api/collections/${collection.id}/items/reorder`, { item_ids: items.map((item) => item.id) });
    } catch (error) {
      items = before;
      render();
      ctx.toast(`The new order was not kept: ${problem(error)}`);
    }
  }

  let dragged = null;
  function render(focusID = null, focusWhich = null) {
    list.replaceChildren(...items.map((item, index) => itemRow(item, index)));
    if (!items.length) list.append(h('li', { class: 'empty' }, 'This collection is empty: add items from the feed.'));
    if (focusID != null) {
      const row = list.querySelector(`[data-item-id="${focusID}"]`);
      const target = row && (focusWhich === 'row' ? row : row.querySelector(`[data-move="${focusWhich}"]`));
      (target && !target.disabled ? target : row)?.focus();
    }
  }

  function itemRow(item, index) {
    const title = item.title || item.url;
    const up = h('button', { type: 'button', 'data-move': 'up', 'aria-label': `Move ${title} up` }, '↑');
    const down = h('button', { type: 'button', 'data-move': 'down', 'aria-label': `Move ${title} down` }, '↓');
    up.disabled = index === 0;
    down.disabled = index === items.length - 1;
    up.addEventListener('click', () => move(item.id, index - 1, 'up'));
    down.addEventListener('click', () => move(item.id, index + 1, 'down'));
    const play = h('button', { type: 'button', 'aria-label': `Play ${title}` }, 'Play');
    play.addEventListener('click', () => busy(play, () => playItem(ctx, item.id), ctx.toast));
    const transferOne = h('button', { type: 'button', 'data-transfer': '', 'aria-label': `Copy or move ${title}` }, 'Copy or move…');
    transferOne.addEventListener('click', () => transfer([item], transferOne));
    const pick = h('input', { type: 'checkbox', 'aria-label': `Select ${title}`, checked: selected.has(item.id) });
    pick.addEventListener('change', () => {
      if (pick.checked) selected.add(item.id); else selected.delete(item.id);
      selectionChanged();
    });
    const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${title} from ${collection.name}` }, 'Remove');
    remove.addEventListener('click', () => busy(remove, async () => {
      await ctx.api.send('DELETE', `/api/collections/${collection.id}/items/${item.id}`);
      items = items.filter((other) => other.id !== item.id);
      selectionChanged();
      render();
      announcer.announce(`Removed ${title}`);
    }, ctx.toast));
    const handle = h('span', { class: 'drag-handle', 'aria-hidden': 'true', title: 'Drag to reorder' }, '⠿');
    const row = h('li', { class: 'collection-item', draggable: 'true', tabindex: '0', 'data-item-id': String(item.id),
                          'aria-label': `${title}, ${index + 1} of ${items.length}`, 'aria-describedby': 'reorder-hint' },
                  handle, artwork(item.thumbnail_url, 'art'),
                  h('div', { class: 'card-body' },
                    h('h2', { class: 'title' }, h('a', { href: `/item/${item.id}` }, title)),
                    h('p', { class: 'meta' }, [item.channel_name, item.domain, item.is_watched ? 'watched' : null].filter(Boolean).join(' · ')),
                    h('div', { class: 'actions' }, h('label', { class: 'check' }, pick, 'Select'), up, down, play, transferOne, remove)));
    row.addEventListener('keydown', (event) => {
      if (!event.altKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return;
      event.preventDefault();
      move(item.id, index + (event.key === 'ArrowUp' ? -1 : 1), event.target === row ? 'row' : event.key === 'ArrowUp' ? 'up' : 'down');
    });
    row.addEventListener('dragstart', (event) => {
      dragged = item.id;
      row.classList.add('dragging');
      event.dataTransfer.effectAllowed = 'move';
      event.dataTransfer.setData('text/plain', String(item.id));
    });
    row.addEventListener('dragend', () => { dragged = null; row.classList.remove('dragging'); });
    row.addEventListener('dragover', (event) => {
      if (dragged == null || dragged === item.id) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'move';
      row.classList.add('drop-target');
    });
    row.addEventListener('dragleave', () => row.classList.remove('drop-target'));
    row.addEventListener('drop', (event) => {
      event.preventDefault();
      row.classList.remove('drop-target');
      if (dragged != null && dragged !== item.id) move(dragged, index, null);
    });
    return row;
  }
  render();
}

/** A link as the browser opens it: the server answers paths when it knows no public address. */
function whole(url) { return new URL(url, location.origin).href; }

/**
 * Publishing: a link anyone may open (a page, a podcast feed, JSON) showing the collection's
 * name, description and items and nothing else of its owner; shown and copyable while published.
 * Unpublishing withdraws it for good (it answers 410, followers see it withdrawn); publishing
 * again makes a new link.
 */
function sharePanel(ctx, collection) {
  const heading = h('h2', { id: 'share-heading' }, 'Sharing');
  const panel = h('section', { class: 'panel share', 'aria-labelledby': 'share-heading' }, heading);
  const route = `/api/collections/${collection.id}`;
  function show(state) {
    if (!state.published) {
      const publish = h('button', { type: 'button', class: 'primary' }, 'Publish');
      publish.addEventListener('click', () => busy(publish, async () => {
        show(await ctx.api.send('POST', `${route}/publish`));
        ctx.toast('Published: anyone with the link can see this collection');
        panel.querySelector('input')?.focus();
      }, ctx.toast));
      panel.replaceChildren(heading,
        h('p', { class: 'meta' }, 'Not published. Publishing makes a link anyone can open: a page, a podcast feed and JSON, '
          + 'with this collection\'s name, description and items, nothing else of yours.'),
        h('div', { class: 'actions' }, publish));
      return;
    }
    const url = whole(state.url);
    const link = h('input', { type: 'text', readonly: true, class: 'share-link' });
    link.value = url;
    link.addEventListener('focus', () => link.select());
    const copy = h('button', { type: 'button' }, 'Copy link');
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(url);
        ctx.toast('Link copied');
      } catch {
        link.focus();   // selected: the system's copy takes it
        ctx.toast('Select the link and copy it (the browser did not allow it here)');
      }
    });
    const unpublish = h('button', { type: 'button', class: 'danger' }, 'Unpublish');
    unpublish.addEventListener('click', async () => {
      if (!(await confirmDialog(`Unpublish “${collection.name}”? Its link stops working for good and its followers see it withdrawn; `
                                + 'publishing again makes a new link.', { ok: 'Unpublish' }))) return;
      busy(unpublish, async () => {
        show(await ctx.api.send('POST', `${route}/unpublish`));
        ctx.toast(`Unpublished “${collection.name}”`);
        panel.querySelector('button')?.focus();
      }, ctx.toast);
    });
    panel.replaceChildren(heading,
      h('p', { class: 'meta' }, 'Published: anyone with the link can see it, and follow it.'),
      field('Link', link),
      h('div', { class: 'actions' }, copy,
        h('a', { href: url, target: '_blank', rel: 'noopener' }, 'Open its page'),
        h('a', { href: whole(state.rss_url), target: '_blank', rel: 'noopener' }, 'Podcast feed (RSS)'),
        unpublish));
  }
  ctx.api.get(`${route}/publish`).then(show, (error) => panel.append(h('p', { class: 'error', role: 'alert' }, problem(error))));
  return panel;
}
