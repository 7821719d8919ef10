// One server event stream for all of this browser's pages of the app.
//
// Over HTTP/1.1 a browser opens at most six connections to one server, and an EventSource holds
// one for as long as its page is open: six pages each holding their own stream would stall
// every request of the seventh (its screens would never load). So the pages share: the one
// holding the Web Lock named after the stream opens it and passes on what it hears over a
// BroadcastChannel of the same name; the others listen there. When that page goes (closed,
// reloaded, left for the back/forward cache) its lock passes to the next page waiting, which
// opens the stream again. A browser without Web Locks or BroadcastChannel opens one per page.

/**
 * Joins the stream `name` (its user in it: pages of different users never share).
 *   lead(took)  this page is to hold the stream now: open it. `took` is true when it took over
 *               from another page, whose stream is gone: what was said in between was not heard.
 *   stop()      this page is to close the stream it holds (it is leaving).
 *   hear(msg)   a message of the stream: what this page's stream says (`say`) or another's passed on.
 * Returns { name, say(msg): the holder's stream said it (heard here and on every other page);
 * close(): leave }.
 */
export function sharedStream(name, { lead, stop, hear }) {
  if (!navigator.locks || typeof BroadcastChannel === 'undefined') {
    lead(false);
    return { name, say: hear, close() { stop(); } };
  }
  const key = `feedctl-stream:${name}`;
  const channel = new BroadcastChannel(key);
  channel.onmessage = (event) => hear(event.data);
  const waiting = new AbortController();
  let leave = null, closed = false;
  const holding = (took) => new Promise((resolve) => { leave = resolve; lead(took); });
  // Free now: this page opens it. Held: wait for it (in the order pages asked) and take over.
  navigator.locks.request(key, { ifAvailable: true }, (lock) => {
    if (closed) return undefined;   // left before the answer
    if (lock) return holding(false);
    navigator.locks.request(key, { signal: waiting.signal }, () => (closed ? undefined : holding(true))).catch(() => { /* left before its turn */ });
    return undefined;
  }).catch(() => {});
  return {
    name,
    say(message) {
      hear(message);
      if (leave) channel.postMessage(message);
    },
    close() {
      if (closed) return;
      closed = true;
      waiting.abort();
      if (leave) { stop(); leave(); leave = null; }
      channel.close();
    },
  };
}
