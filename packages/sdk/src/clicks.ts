/**
 * Click analytics: CLICK (for heatmaps), RAGE_CLICK (≥ 3 clicks within 1 s on one element) and
 * DEAD_CLICK (a click on something that is not interactive and changes nothing within 1 s).
 */

export const RAGE_CLICKS = 3;
export const RAGE_WINDOW_MS = 1_000;
export const DEAD_WINDOW_MS = 1_000;

/**
 * Counts clicks per element in a sliding 1 s window; `click` answers the burst's click count
 * and time span the first time it reaches the threshold (once per burst; a pause of a full
 * window starts a new one).
 */
export class RageDetector<K> {
  private last: K | undefined;
  private times: number[] = [];
  private reported = false;

  click(key: K, at: number): { clickCount: number; timeSpanMs: number } | null {
    if (
      key !== this.last ||
      (this.times.length > 0 && at - this.times[this.times.length - 1]! > RAGE_WINDOW_MS)
    ) {
      this.last = key;
      this.times = [];
      this.reported = false;
    }
    this.times.push(at);
    while (at - this.times[0]! > RAGE_WINDOW_MS) this.times.shift();
    if (this.reported || this.times.length < RAGE_CLICKS) return null;
    this.reported = true;
    return { clickCount: this.times.length, timeSpanMs: at - this.times[0]! };
  }
}

const INTERACTIVE =
  'a[href],button,input,select,textarea,label,summary,details,video,audio,[onclick],[role=button],[role=link],[role=checkbox],[role=tab],[role=menuitem],[contenteditable=""],[contenteditable=true],[tabindex]:not([tabindex="-1"])';

/** Whether a click on `el` is expected to do something (a control, a link, a handler attribute). */
export const isInteractive = (el: Element): boolean => el.closest(INTERACTIVE) !== null;

/** A short CSS selector for an element: its id, else a path of tags and :nth-of-type (≤ 5 levels). */
export function selectorOf(el: Element): string {
  const parts: string[] = [];
  let node: Element | null = el;
  while (node && node.nodeType === 1 && parts.length < 5) {
    if (node.id && /^[A-Za-z][\w-]*$/.test(node.id)) {
      parts.unshift(`#${node.id}`);
      break;
    }
    let part = node.tagName.toLowerCase();
    const parent: Element | null = node.parentElement;
    if (parent) {
      const same = Array.from(parent.children).filter((c) => c.tagName === node!.tagName);
      if (same.length > 1) part += `:nth-of-type(${same.indexOf(node) + 1})`;
    }
    parts.unshift(part);
    if (part === 'body' || part === 'html') break;
    node = parent;
  }
  return parts.join(' > ');
}

export interface ClickSink {
  /** Clicks inside the SDK's own UI are not the host page's. */
  ignore(event: Event): boolean;
  report(type: 'CLICK' | 'RAGE_CLICK' | 'DEAD_CLICK', properties: Record<string, unknown>): void;
  trackAll: boolean;
}

/** Listens to clicks on the page; returns the cleanup. */
export function trackClicks(sink: ClickSink): () => void {
  const rage = new RageDetector<Element>();
  const onClick = (e: MouseEvent) => {
    if (sink.ignore(e) || !(e.target instanceof Element)) return;
    const el = e.target;
    const selector = selectorOf(el);
    const x = Math.round(e.pageX);
    const y = Math.round(e.pageY);
    if (sink.trackAll) {
      sink.report('CLICK', {
        tagName: el.tagName.toLowerCase(),
        id: el.id || undefined,
        className: typeof el.className === 'string' ? el.className.slice(0, 200) || undefined : undefined,
        text: (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 80) || undefined,
        x,
        y,
        selector,
      });
    }
    const burst = rage.click(el, e.timeStamp || Date.now());
    if (burst) sink.report('RAGE_CLICK', { selector, ...burst, x, y });
    if (!isInteractive(el)) watchDead(el, selector, x, y, sink);
  };
  document.addEventListener('click', onClick, true);
  return () => document.removeEventListener('click', onClick, true);
}

/** A click on a non-interactive element that changes nothing (DOM, url, focus) within 1 s is dead. */
function watchDead(el: Element, selector: string, x: number, y: number, sink: ClickSink): void {
  const url = location.href;
  const focus = document.activeElement;
  let changed = false;
  const observer = new MutationObserver(() => {
    changed = true;
  });
  observer.observe(document.documentElement, {
    childList: true,
    subtree: true,
    attributes: true,
    characterData: true,
  });
  setTimeout(() => {
    observer.disconnect();
    if (!changed && location.href === url && document.activeElement === focus && el.isConnected) {
      sink.report('DEAD_CLICK', { selector, tagName: el.tagName.toLowerCase(), x, y });
    }
  }, DEAD_WINDOW_MS);
}
