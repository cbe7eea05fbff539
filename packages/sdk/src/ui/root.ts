import { h } from './dom.js';

/** The stylesheet, minified by the build (scripts/build.mjs) from ui/styles.css. */
declare const __GUIDANCE_CSS__: string;

/**
 * The one host element (`<div data-guidance-root>`, appended to <body>) and its open shadow
 * root: every surface the SDK shows is mounted in `layer`. Created on first use, and again if
 * the host page removed it (SPAs that re-render <body>).
 */
export class Root {
  private host: HTMLElement | null = null;
  private ui: HTMLDivElement | null = null;
  private dir: 'ltr' | 'rtl' = 'ltr';
  private lang = '';
  private primary = '';
  /** Where the hotkey took the keyboard from. */
  private back: HTMLElement | null = null;
  /** When the user last pressed a key in a page field (see typing()). */
  typedAt = 0;
  /** Stylesheets added by lazy chunks, by name (kept across a re-created host). */
  private readonly styles = new Map<string, string>();

  get layer(): HTMLDivElement {
    if (!this.host?.isConnected || !this.ui) {
      const host = h('div', { 'data-guidance-root': true });
      const shadow = host.attachShadow({ mode: 'open' });
      this.ui = h('div', { class: 'g-ui' });
      shadow.append(h('style', null, typeof __GUIDANCE_CSS__ === 'string' ? __GUIDANCE_CSS__ : ''), this.ui);
      for (const css of this.styles.values()) shadow.append(h('style', null, css));
      (document.body ?? document.documentElement).append(host);
      this.host = host;
      this.apply();
    }
    return this.ui;
  }

  /** Writing direction, language and brand colour of everything shown from now on. */
  configure(opts: { rtl?: boolean; lang?: string; primary?: string }): void {
    if (opts.rtl !== undefined) this.dir = opts.rtl ? 'rtl' : 'ltr';
    if (opts.lang !== undefined) this.lang = opts.lang;
    if (opts.primary !== undefined) this.primary = opts.primary;
    this.apply();
  }

  private apply(): void {
    if (!this.ui) return;
    this.ui.dir = this.dir;
    if (this.lang) this.ui.lang = this.lang;
    if (this.primary) this.ui.style.setProperty('--g-primary', this.primary);
  }

  get isRtl(): boolean {
    return this.dir === 'rtl';
  }

  /** Adds a stylesheet to the shadow root once (a lazy chunk's). */
  addStyle(name: string, css: string): void {
    if (this.styles.has(name)) return;
    this.styles.set(name, css);
    this.host?.shadowRoot?.append(h('style', null, css));
  }

  mount<T extends Node>(node: T): T {
    this.layer.append(node);
    return node;
  }

  /** The focused element inside the shadow root, if any. */
  activeElement(): Element | null {
    return this.host?.shadowRoot?.activeElement ?? null;
  }

  /** Says `text` to screen readers (a polite live region in the shadow root). */
  announce(text: string): void {
    const live =
      this.layer.querySelector('.g-sr') ??
      this.mount(h('div', { class: 'g-sr', role: 'status', 'aria-live': 'polite' }));
    live.textContent = '';
    setTimeout(() => {
      live.textContent = text;
    }, 50);
  }

  /**
   * The hotkey (Alt+Shift+G): takes the keyboard to the card on screen (its primary button), or
   * from there back to where it was in the page. False when there is nothing to go to.
   */
  toggleFocus(): boolean {
    if (this.activeElement()) {
      this.back?.focus();
      this.back = null;
      return true;
    }
    const card = [...(this.ui?.querySelectorAll<HTMLElement>('.g-card') ?? [])].pop();
    if (!card) return false;
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    this.back = active as HTMLElement | null;
    ([...card.querySelectorAll<HTMLElement>('.g-btn')].pop() ?? card).focus();
    return true;
  }

  /** Whether the user is typing in a page field (a key there in the last 2 s, and it still has the keyboard). */
  typing(): boolean {
    const el = document.activeElement as HTMLElement | null;
    return Date.now() - this.typedAt < 2000 && !!el && el !== document.body && !this.activeElement();
  }

  /** Whether a DOM event came from the SDK's own UI. */
  owns(event: Event): boolean {
    return this.host !== null && event.composedPath().includes(this.host);
  }

  destroy(): void {
    this.host?.remove();
    this.host = null;
    this.ui = null;
  }
}
