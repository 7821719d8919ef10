// The Settings screen: a placeholder until the `screens` part fills it (WEB.md's screens contract).
import { h } from '../ui.js';

export default {
  title: 'Settings',
  mount(root) {
    root.append(h('h1', {}, 'Settings'));
  },
};
