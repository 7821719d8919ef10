// The Saved screen: a placeholder until the `screens` part fills it (WEB.md's screens contract).
import { h } from '../ui.js';

export default {
  title: 'Saved',
  mount(root) {
    root.append(h('h1', {}, 'Saved'));
  },
};
