import type { Env } from './env.js';
import { loadPosition, loadWidgets } from './lazy.js';
import type { PlannedContent } from './plan.js';
import type { Cleanup, RenderCtx, Renderer } from './render.js';
import { locate, report, storedFingerprint } from './target/lookup.js';
import { placementOf } from './ui/anchor.js';
import { h } from './ui/dom.js';
import { type Button, card, rememberFocus } from './ui/surface.js';
import { isObject, safeUrl, str } from './util.js';
import type { AnnouncementRecord, BeaconRecord, ContentRecord, TooltipRecord } from './wire.js';

type Props = Record<string, unknown>;
const noop: Cleanup = () => {};

/**
 * Shows one content item when its trigger fires, and reports CONTENT_RENDERED when it is on
 * screen, FLOW_DISMISSED (with `contentId`) when the user closes it, FLOW_COMPLETED (with
 * `contentId`) when the user takes its action, SURVEY_RESPONSE / NPS_RESPONSE when answered,
 * and SELECTOR_NOT_FOUND + CONTENT_RENDER_FAILED when its target never appears. Every event
 * carries `contentId`, `contentType` and the item's journey context.
 */
export function showContent(env: Env, item: PlannedContent, manual: Map<string, () => void>): Cleanup {
  const { record } = item;
  const props: Props = { contentId: record.id, contentType: record.contentType, ...item.context };
  const render = RENDERERS[record.contentType];
  if (!render) return noop;
  let open: Cleanup | null = null;
  let cancelled = false;
  const show = () => {
    if (open || cancelled) return;
    const ctx: RenderCtx = {
      env,
      props,
      cancelled: () => cancelled,
      shown() {
        env.emit('CONTENT_RENDERED', props);
        env.notify('content:shown', props);
      },
      end(state, extra = {}) {
        const cleanup = open;
        open = null;
        cleanup?.();
        if (state === 'dismissed') {
          env.emit('FLOW_DISMISSED', { ...props, ...extra });
          env.notify('content:dismissed', props);
        } else if (state === 'completed') {
          env.emit('FLOW_COMPLETED', { ...props, ...extra });
        }
        if (state) env.markDone(record.id, state);
      },
    };
    open = noop;
    try {
      open = render(ctx, record as never);
    } catch (err) {
      open = null;
      env.emit('CONTENT_RENDER_FAILED', { ...props, reason: String(err) });
    }
  };
  let stopTrigger = noop;
  if (item.immediate) show();
  else stopTrigger = trigger(env, record, show, manual);
  return () => {
    cancelled = true;
    stopTrigger();
    open?.();
    open = null;
  };
}

/**
 * `triggerConfig`: none or url_match → now (the service matched the url); time_on_page →
 * after `delay` ms; scroll_depth → once the page is scrolled `percentage`% down; exit_intent →
 * when the pointer leaves through the top of the window; side_button → a tab on the side of the
 * window opens it; manual → `Guidance.showContent(id)`.
 */
function trigger(
  env: Env,
  record: ContentRecord,
  show: () => void,
  manual: Map<string, () => void>,
): Cleanup {
  const tc = record.triggerConfig;
  switch (tc?.type) {
    case 'manual':
      manual.set(record.id, show);
      return () => manual.delete(record.id);
    case 'time_on_page': {
      const timer = setTimeout(show, Math.max(0, tc.delay ?? 0));
      return () => clearTimeout(timer);
    }
    case 'scroll_depth': {
      const check = () => {
        const doc = document.documentElement;
        const depth = ((scrollY + innerHeight) / Math.max(doc.scrollHeight, 1)) * 100;
        if (depth >= (tc.percentage ?? 50)) {
          removeEventListener('scroll', check);
          show();
        }
      };
      addEventListener('scroll', check, { passive: true });
      check();
      return () => removeEventListener('scroll', check);
    }
    case 'exit_intent': {
      const leave = (e: MouseEvent) => {
        if (!e.relatedTarget && e.clientY <= 0) {
          document.removeEventListener('mouseout', leave);
          show();
        }
      };
      document.addEventListener('mouseout', leave);
      return () => document.removeEventListener('mouseout', leave);
    }
    case 'side_button': {
      const button = env.root.mount(
        h(
          'button',
          {
            type: 'button',
            class: tc.buttonPosition === 'left' ? 'g-side g-start' : 'g-side',
            onclick: show,
          },
          titleOf(record),
        ),
      );
      if (tc.buttonColor) button.style.background = tc.buttonColor;
      return () => button.remove();
    }
    default:
      show();
      return noop;
  }
}

const titleOf = (r: ContentRecord): string =>
  ('content' in r && isObject(r.content) && str(r.content, 'title')) || r.name;

/**
 * A tooltip or beacon's target: found (deep selector), checked or healed by its fingerprint,
 * reported (TARGET_LOOKUP); null (reported) when it never appears.
 */
async function targetOf(ctx: RenderCtx, record: TooltipRecord | BeaconRecord): Promise<Element | null> {
  const selector = record.targetSelector.trim();
  const key = `${record.id}||${selector}`;
  const since = Date.now();
  const r = await locate(selector, storedFingerprint(record), key, { cancelled: ctx.cancelled });
  if (!r || ctx.cancelled()) return null;
  const { env } = ctx;
  void report(
    (t, p) => env.emit(t, p),
    { itemKind: 'content', itemId: record.id, stepId: null },
    selector,
    key,
    r,
  );
  if (!r.el) {
    env.emit('SELECTOR_NOT_FOUND', { ...ctx.props, selector, waitedMs: Date.now() - since });
    env.emit('CONTENT_RENDER_FAILED', { ...ctx.props, reason: 'SELECTOR_NOT_FOUND' });
  }
  return r.el;
}

type Position = Awaited<ReturnType<typeof loadPosition>>;

/** A popover anchored to `target`; closing it dismisses the item. */
function popover(
  ctx: RenderCtx,
  pos: Position,
  target: Element,
  title: string | undefined,
  body: string,
  placement: unknown,
): Cleanup {
  const s = card(ctx.env.root, {
    kind: 'g-pop',
    title,
    body,
    onClose: () => ctx.end('dismissed'),
    closeLabel: ctx.env.labels.close,
  });
  const stop = pos.anchorTo(target, s.card, placementOf(placement));
  return () => {
    stop();
    s.remove();
  };
}

/** The target and the positioning chunk, loaded together; [null] when either is missing. */
const placed = (ctx: RenderCtx, record: TooltipRecord | BeaconRecord): Promise<[Element | null, Position]> =>
  Promise.all([targetOf(ctx, record), loadPosition()]).catch(() => {
    ctx.env.emit('CONTENT_RENDER_FAILED', { ...ctx.props, reason: 'CHUNK_LOAD_FAILED' });
    return [null, null as never];
  });

const tooltip: Renderer<TooltipRecord> = (ctx, r) => {
  let cleanup: Cleanup = noop;
  void placed(ctx, r).then(([target, pos]) => {
    if (!target || ctx.cancelled()) return;
    cleanup = popover(ctx, pos, target, str(r.content, 'title'), r.content.text, r.position);
    ctx.shown();
  });
  return () => cleanup();
};

const beacon: Renderer<BeaconRecord> = (ctx, r) => {
  const { env } = ctx;
  const cleanups: Cleanup[] = [];
  void placed(ctx, r).then(([target, pos]) => {
    if (!target || ctx.cancelled()) return;
    const still = r.animation === 'none' ? ' g-still' : r.animation === 'full' ? ' g-full' : '';
    const dot = env.root.mount(
      h('button', {
        type: 'button',
        class: `g-beacon${still}`,
        'aria-label': str(r.content, 'title') ?? env.labels.openHint,
        onclick: () => {
          dot.hidden = true;
          env.emit('ELEMENT_INTERACTION', { ...ctx.props, action: 'open' });
          const restore = rememberFocus(env.root);
          const close = popover(ctx, pos, target, str(r.content, 'title'), r.content.message, 'BOTTOM');
          cleanups.push(close, restore);
          (env.root.layer.lastElementChild?.querySelector('button') as HTMLElement | null)?.focus();
        },
      }),
    );
    cleanups.push(pos.pin(target, dot, env.root.isRtl), () => dot.remove());
    ctx.shown();
  });
  return () => {
    for (const fn of cleanups.splice(0)) fn();
  };
};

/** Announcements: MODAL, BANNER, SLIDEOUT or TOAST; `content.ctaLabel` + `content.ctaUrl` add an action. */
const announcement: Renderer<AnnouncementRecord> = (ctx, r) => {
  const { env } = ctx;
  const c = r.content;
  const ctaUrl = safeUrl(str(c, 'ctaUrl') ?? str(c, 'buttonUrl'));
  const ctaLabel = str(c, 'ctaLabel') ?? str(c, 'buttonText');
  const buttons: Button[] = [];
  if (ctaLabel || r.type === 'MODAL' || r.type === 'SLIDEOUT') {
    buttons.push({
      label: ctaLabel ?? env.labels.gotIt,
      onClick: () => {
        ctx.end('completed', { action: ctaUrl ? 'cta' : 'acknowledge' });
        if (ctaUrl) {
          if (c.ctaNewTab === true) open(ctaUrl, '_blank', 'noopener');
          else location.assign(ctaUrl);
        }
      },
    });
  }
  const kind = { MODAL: 'g-modal', BANNER: 'g-banner', SLIDEOUT: 'g-corner', TOAST: 'g-corner g-toast' }[
    r.type
  ];
  const modal = r.type === 'MODAL';
  const restore = modal ? rememberFocus(env.root) : noop;
  const s = card(env.root, {
    kind: kind ?? 'g-corner',
    title: c.title,
    body: c.body,
    image: safeUrl(str(c, 'imageUrl')),
    buttons: r.type === 'TOAST' ? [] : buttons,
    modal,
    onClose: () => ctx.end('dismissed'),
    closeLabel: env.labels.close,
  });
  if (modal) s.focus();
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (r.type === 'TOAST') {
    const ms = typeof c.duration === 'number' ? c.duration : 8000;
    timer = setTimeout(() => ctx.end('dismissed', { reason: 'timeout' }), ms);
  }
  ctx.shown();
  return () => {
    clearTimeout(timer);
    s.remove();
    restore();
  };
};

type WidgetName = 'survey' | 'nps' | 'taskList' | 'selfHelp';

/** A renderer from the widgets chunk: loaded, its styles added, then rendered (unless cancelled meanwhile). */
const lazyWidget =
  (name: WidgetName): Renderer<never> =>
  (ctx, record) => {
    let cleanup: Cleanup = noop;
    void loadWidgets().then(
      (widgets) => {
        if (ctx.cancelled()) return;
        widgets.addStyles(ctx.env.root);
        cleanup = (widgets[name] as Renderer<never>)(ctx, record);
      },
      () => ctx.env.emit('CONTENT_RENDER_FAILED', { ...ctx.props, reason: 'CHUNK_LOAD_FAILED' }),
    );
    return () => cleanup();
  };

const RENDERERS: Record<string, Renderer<never>> = {
  tooltips: tooltip as Renderer<never>,
  beacons: beacon as Renderer<never>,
  announcements: announcement as Renderer<never>,
  surveys: lazyWidget('survey'),
  'nps-surveys': lazyWidget('nps'),
  'task-lists': lazyWidget('taskList'),
  'self-help': lazyWidget('selfHelp'),
};
