/**
 * Lazy chunk `chunks/picker.js`: the element picker, loaded only on a page opened from the step
 * editor with a pick token the service verified. An outline follows the element under the
 * pointer (through open shadow roots and same-origin iframes) with the selector it would get;
 * a click picks it (the page never sees that click), Escape cancels, ↑ picks the parent. The
 * selector and the fingerprint go to `POST /api/sdk/pick/result`. Everything is drawn inside
 * the SDK's shadow root: the page is never restyled.
 */
import { innerRoot, walk } from '../target/deep.js';
import { fingerprint } from '../target/fingerprint.js';
import { propose } from '../target/propose.js';
import type { PickResultRequest } from '../target/types.js';
import { h } from '../ui/dom.js';
import type { Root } from '../ui/root.js';

export interface PickerOptions {
  root: Root;
  token: string;
  /** Sends the result; answers the HTTP status (0: no answer). */
  send(body: PickResultRequest): Promise<number>;
  /** The picker closed (picked and sent, failed, or cancelled). */
  onEnd?(outcome: 'sent' | 'failed' | 'cancelled'): void;
}

const CSS = `.g-pick-box{position:fixed;z-index:2147483646;pointer-events:none;border:2px solid var(--g-primary);background:color-mix(in srgb,var(--g-primary) 12%,transparent);border-radius:3px;transition:all .06s linear}
.g-pick-bar{position:fixed;z-index:2147483647;left:50%;bottom:16px;transform:translateX(-50%);display:flex;gap:12px;align-items:center;max-width:calc(100vw - 32px);padding:10px 14px;border-radius:10px;background:#111827;color:#f9fafb;box-shadow:var(--g-shadow);font-size:13px}
.g-pick-bar.g-top{bottom:auto;top:16px}
.g-pick-bar span{min-width:200px}
.g-pick-bar code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#374151;padding:3px 6px;border-radius:5px;max-width:min(560px,60vw);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.g-pick-bar button{font:inherit;padding:5px 10px;border-radius:6px;border:0;background:#f9fafb;color:#111827;cursor:pointer}`;

const INTERACTIVE = /^(?:A|BUTTON|INPUT|SELECT|TEXTAREA|LABEL|SUMMARY|OPTION)$/;
const BLOCKED = [
  'click',
  'mousedown',
  'mouseup',
  'pointerdown',
  'pointerup',
  'dblclick',
  'auxclick',
  'contextmenu',
  'submit',
];

/** What a pointer on `raw` picks: the element itself, or its button/link/field when it is inside one (an icon). */
export function pickable(raw: Element): Element {
  let el = raw;
  while (
    el.namespaceURI === 'http://www.w3.org/2000/svg' &&
    el.tagName.toLowerCase() !== 'svg' &&
    el.parentElement
  ) {
    el = el.parentElement;
  }
  for (let a: Element | null = el, i = 0; a && i < 4; a = a.parentElement, i++) {
    if (
      INTERACTIVE.test(a.tagName) ||
      /^(?:button|link|tab|menuitem|checkbox|radio)$/.test(a.getAttribute('role') ?? '')
    )
      return a;
  }
  return el;
}

/** `el`'s rectangle in the top window's viewport (adding the iframes it is in). */
function viewportRect(el: Element): DOMRect {
  const r = el.getBoundingClientRect();
  let x = r.left;
  let y = r.top;
  for (
    let win: Window | null = el.ownerDocument.defaultView, i = 0;
    win?.frameElement && i < 10;
    win = win.parent, i++
  ) {
    const f = win.frameElement.getBoundingClientRect();
    x += f.left + win.frameElement.clientLeft;
    y += f.top + win.frameElement.clientTop;
  }
  return new DOMRect(x, y, r.width, r.height);
}

/** Starts the picker; returns its stop function. */
export function startPicker(o: PickerOptions): () => void {
  const { root } = o;
  root.addStyle('picker', CSS);
  const box = root.mount(h('div', { class: 'g-pick-box', 'aria-hidden': 'true', hidden: true }));
  const code = h('code', null, '');
  const status = h(
    'span',
    { role: 'status' },
    'Pick an element: click it. Esc cancels, ↑ selects the parent.',
  );
  const cancel = h('button', { type: 'button', onclick: () => end('cancelled') }, 'Cancel');
  const bar = root.mount(
    h('div', { class: 'g-pick-bar', role: 'region', 'aria-label': 'Element picker' }, status, code, cancel),
  );
  let current: Element | null = null;
  let selector: string | null = null;
  let sending = false;
  const docs = new Set<Document>();

  const show = (el: Element | null) => {
    current = el;
    if (!el) {
      box.hidden = true;
      return;
    }
    const r = viewportRect(el);
    Object.assign(box.style, {
      left: `${r.left - 2}px`,
      top: `${r.top - 2}px`,
      width: `${r.width + 4}px`,
      height: `${r.height + 4}px`,
    });
    box.hidden = false;
    bar.classList.toggle('g-top', r.bottom > innerHeight - 90);
    selector = propose(el);
    code.textContent = selector ?? '(no unique selector: the fingerprint will find it)';
  };

  const ours = (e: Event) => root.owns(e);
  const onMove = (e: Event) => {
    if (sending || ours(e)) return;
    const t = e.composedPath()[0];
    if (t instanceof Element || (t && (t as Node).nodeType === 1)) {
      const el = pickable(t as Element);
      if (el !== current && !innerRootIsFrame(el)) show(el);
    }
  };
  const block = (e: Event) => {
    if (ours(e)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    if (e.type === 'click' && current && !sending) void pick(current);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopImmediatePropagation();
      end('cancelled');
    } else if (e.key === 'ArrowUp' && current && !sending) {
      const parent =
        current.parentElement ?? ((current.getRootNode() as ShadowRoot).host as Element | undefined);
      if (parent && parent.tagName !== 'HTML') {
        e.preventDefault();
        show(parent);
      }
    }
  };

  const listen = (doc: Document, on: boolean) => {
    const method = on ? 'addEventListener' : 'removeEventListener';
    const win = doc.defaultView;
    if (!win) return;
    win[method]('mousemove', onMove, true);
    win[method]('keydown', onKey as EventListener, true);
    for (const type of BLOCKED) win[method](type, block, true);
  };
  /** The top document and every same-origin iframe document (re-scanned: iframes load late). */
  const attach = () => {
    const found = [document];
    walk(document, (el) => {
      const inner = innerRoot(el);
      if (inner && 'defaultView' in inner) found.push(inner);
      return true;
    });
    for (const doc of found) {
      if (docs.has(doc)) continue;
      docs.add(doc);
      listen(doc, true);
    }
  };
  attach();
  const rescan = setInterval(attach, 1000);
  const refresh = () => current && show(current);
  addEventListener('scroll', refresh, true);
  addEventListener('resize', refresh);

  async function pick(el: Element) {
    sending = true;
    status.textContent = 'Sending…';
    let code = 0;
    try {
      code = await o.send({
        token: o.token,
        selector: selector ?? propose(el) ?? '',
        fingerprint: fingerprint(el),
      });
    } catch {
      code = 0;
    }
    const ok = code >= 200 && code < 300;
    status.textContent = ok
      ? 'Sent to the dashboard'
      : `Could not send it (${code || 'network error'}): pick again from the dashboard`;
    box.hidden = true;
    setTimeout(() => end(ok ? 'sent' : 'failed'), ok ? 1500 : 4000);
  }

  let ended = false;
  function end(outcome: 'sent' | 'failed' | 'cancelled') {
    if (ended) return;
    ended = true;
    clearInterval(rescan);
    for (const doc of docs) listen(doc, false);
    removeEventListener('scroll', refresh, true);
    removeEventListener('resize', refresh);
    box.remove();
    bar.remove();
    o.onEnd?.(outcome);
  }
  return () => end('cancelled');
}

/** An iframe is outlined as itself only until its document is reachable (then its elements are picked). */
function innerRootIsFrame(el: Element): boolean {
  return el.tagName === 'IFRAME' && innerRoot(el) !== null;
}
