/*
 * The flow editor's live preview: this page (in an iframe of the dashboard, same origin) renders
 * one step with the real browser SDK (/sdk/guidance.js). The dashboard posts the draft flow;
 * the SDK's calls to /api/sdk/* are answered here from that draft (no API key, nothing
 * recorded), every other request (the SDK's lazy chunks) goes to the service.
 */
(() => {
  var flow = null;
  var realFetch = window.fetch.bind(window);
  var json = (status, body) =>
    Promise.resolve(
      new Response(JSON.stringify(body), { status: status, headers: { 'content-type': 'application/json' } }),
    );
  window.fetch = (input, init) => {
    var url = typeof input === 'string' ? input : input.url;
    var path = new URL(url, location.href).pathname;
    if (path === '/api/sdk/config') {
      return json(200, {
        data: {
          name: 'Preview',
          plan: 'preview',
          settings: {},
          features: {},
          locales: [],
          defaultLocale: null,
        },
      });
    }
    if (path === '/api/sdk/identify') return json(200, { data: { id: 'preview' } });
    if (path === '/api/sdk/session') {
      return json(201, {
        data: {
          sessionId: '00000000-0000-4000-8000-000000000000',
          endUserId: null,
          flows: flow ? [flow] : [],
          content: [],
          experiments: [],
          journeys: [],
        },
      });
    }
    if (path === '/api/sdk/events') return json(202, { data: { accepted: 0, correlationId: 'preview' } });
    return realFetch(input, init);
  };
  navigator.sendBeacon = () => true;
  // A fresh start each time, shared with no other preview: the SDK keeps progress and "already
  // seen" state in localStorage, and an iframe being replaced may still write there as it unloads.
  const memory = new Map();
  const storage = {
    getItem: (k) => (memory.has(k) ? memory.get(k) : null),
    setItem: (k, v) => memory.set(k, String(v)),
    removeItem: (k) => memory.delete(k),
    clear: () => memory.clear(),
    key: (i) => [...memory.keys()][i] ?? null,
    get length() {
      return memory.size;
    },
  };
  try {
    Object.defineProperty(window, 'localStorage', { value: storage, configurable: true });
  } catch {
    for (let i = localStorage.length - 1; i >= 0; i--) {
      const key = localStorage.key(i);
      if (key?.startsWith('guidance:')) localStorage.removeItem(key);
    }
  }
  // The SDK focuses what it shows (right for a real page): here that would take the focus from
  // the editor field being typed in each time the preview refreshes. Focus moves in only once
  // the user clicks into the preview.
  const focus = HTMLElement.prototype.focus;
  HTMLElement.prototype.focus = function (options) {
    if (document.hasFocus()) focus.call(this, options);
  };
  window.addEventListener('message', (e) => {
    if (e.origin !== location.origin || !e.data || e.data.type !== 'guidance-preview') return;
    flow = e.data.flow;
    const script = document.createElement('script');
    script.src = '/sdk/guidance.js';
    script.onload = () => {
      window.Guidance.init({ apiKey: 'preview', apiUrl: location.origin, userId: 'preview-user' }).then(
        () => {
          window.Guidance.startFlow(flow.id);
          document.documentElement.setAttribute('data-preview', 'ready');
        },
      );
    };
    script.onerror = () => {
      document.body.insertAdjacentHTML(
        'beforeend',
        '<p role="alert">The browser SDK is not built: run npm run build:sdk.</p>',
      );
    };
    document.head.appendChild(script);
  });
  parent.postMessage({ type: 'guidance-preview-ready' }, location.origin);
})();
