// The Discover screen: a placeholder until the `screens` part fills it (WEB.md's screens contract).
import { h } from '../ui.js';

export default {
  title: 'Discover',
  mount(root) {
    root.append(h('h1', {}, 'Discover'));
  },
};
