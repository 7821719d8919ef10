// The service worker (issue 27's offline part fills it). Until then it caches nothing: every
// request goes to the network as if there were none.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
