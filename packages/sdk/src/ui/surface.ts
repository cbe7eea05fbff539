import { h, nextId } from './dom.js';
import type { Root } from './root.js';

export interface Button {
  label: string;
  onClick: () => void;
  secondary?: boolean;
}

export interface CardOptions {
  /** Layout classes: g-modal, g-pop, g-banner, g-corner, g-toast... */
  kind: string;
  title?: string | undefined;
  /** Paragraphs of plain text (never parsed as HTML). */
  body?: string | undefined;
  image?: string | undefined;
  /** Extra nodes after the body (forms, questions, lists). */
  extra?: (Node | null)[];
  buttons?: Button[];
  /** "2 of 5" */
  progress?: string | undefined;
  /** Dimmed backdrop, `aria-modal`, focus trap. */
  modal?: boolean;
  /** Shows the Close (×) button and handles Escape. */
  onClose?: () => void;
  closeLabel: string;
  /** Accessible name when there is no title. */
  label?: string;
}

export interface Surface {
  card: HTMLElement;
  /** Moves keyboard focus into the card (its primary button, else the card). */
  focus(): void;
  remove(): void;
}

const FOCUSABLE =
  'button:not([disabled]),[href],input:not([disabled]),select:not([disabled]),textarea:not([disabled]),iframe,[tabindex]:not([tabindex="-1"])';

export const focusables = (el: ParentNode): HTMLElement[] =>
  Array.from(el.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (e) => !e.hidden && e.getClientRects().length > 0,
  );

/**
 * A dialog surface: `role="dialog"` named by its title (`aria-labelledby`), a Close button,
 * Escape to close, and for modal ones a backdrop, `aria-modal="true"` and a focus trap. Text is
 * always set as text.
 */
export function card(root: Root, o: CardOptions): Surface {
  const titleId = nextId('g-t');
  const title = o.title ? h('h2', { class: 'g-title', id: titleId }, o.title) : null;
  const paragraphs = (o.body ?? '')
    .split(/\n{2,}/)
    .filter((p) => p.trim())
    .map((p) => h('p', { class: 'g-body' }, p));
  const buttons = (o.buttons ?? []).map((b) =>
    h(
      'button',
      { type: 'button', class: b.secondary ? 'g-btn g-sec' : 'g-btn', onclick: b.onClick },
      b.label,
    ),
  );
  const foot =
    buttons.length > 0 || o.progress
      ? h(
          'div',
          { class: 'g-foot' },
          o.progress ? h('span', { class: 'g-prog' }, o.progress) : null,
          h('div', { class: 'g-btns' }, buttons),
        )
      : null;
  const close = o.onClose
    ? h('button', { type: 'button', class: 'g-x', 'aria-label': o.closeLabel, onclick: o.onClose }, '×')
    : null;
  const el = h(
    'div',
    {
      class: `g-card ${o.kind}`,
      role: 'dialog',
      tabindex: -1,
      'aria-modal': o.modal ? 'true' : undefined,
      'aria-labelledby': title ? titleId : undefined,
      'aria-label': title ? undefined : (o.label ?? o.body?.slice(0, 80)),
    },
    close,
    o.image ? h('img', { class: 'g-img', src: o.image, alt: '' }) : null,
    title,
    paragraphs,
    o.extra ?? [],
    foot,
  );
  el.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && o.onClose) {
      e.stopPropagation();
      o.onClose();
    } else if (e.key === 'Tab' && o.modal) {
      trapTab(el, root, e);
    }
  });
  const overlay = o.modal ? root.mount(h('div', { class: 'g-overlay' })) : null;
  root.mount(el);
  return {
    card: el,
    focus() {
      const primary = buttons[buttons.length - 1] ?? focusables(el)[0] ?? el;
      primary.focus();
    },
    remove() {
      el.remove();
      overlay?.remove();
    },
  };
}

/** Tab and Shift+Tab cycle inside a modal card: focus never reaches the page behind it. */
function trapTab(el: HTMLElement, root: Root, e: KeyboardEvent): void {
  const items = focusables(el);
  if (items.length === 0) {
    e.preventDefault();
    return;
  }
  const first = items[0]!;
  const last = items[items.length - 1]!;
  const active = root.activeElement();
  if (e.shiftKey && (active === first || active === el)) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && active === last) {
    e.preventDefault();
    first.focus();
  }
}

/**
 * Remembers what had focus before the SDK took it, and gives it back: the host page's keyboard
 * position survives a tour or a modal.
 */
export function rememberFocus(root: Root): () => void {
  const before = document.activeElement as HTMLElement | null;
  return () => {
    // Only if focus is still ours (or lost to <body>): never steal it from where the user went.
    const active = document.activeElement;
    const ours = active === document.body || active === null || root.activeElement() !== null;
    if (ours && before?.isConnected && before !== document.body) before.focus?.();
  };
}
