import type { Env } from './env.js';
import { fill } from './labels.js';
import { loadPosition, loadWidgets } from './lazy.js';
import type { Context } from './plan.js';
import { type Located, locate, report, storedFingerprint } from './target/lookup.js';
import { placementOf, reveal } from './ui/anchor.js';
import { h } from './ui/dom.js';
import { type Button, card, rememberFocus, type Surface } from './ui/surface.js';
import { num, safeUrl, sameDocument, store, str } from './util.js';
import type { Flow, FlowStep } from './wire.js';

/** A flow in progress, kept in localStorage so that it survives reloads and NAVIGATE steps. */
export interface FlowProgress {
  id: string;
  step: number;
  flow: Flow;
  context: Context;
  startedAt: number;
  at: number;
}

export const PROGRESS_KEY = 'flow';
/** Progress older than this is dropped rather than resumed. */
export const PROGRESS_TTL_MS = 30 * 60_000;

type Position = Awaited<ReturnType<typeof loadPosition>>;
type Widgets = Awaited<ReturnType<typeof loadWidgets>>;

/** Steps that act on the page rather than show a card (the user or the SDK performs them). */
const ACTIONS = ['CLICK', 'NAVIGATE', 'WAIT', 'INPUT', 'SCROLL'];
/** Steps that need their target element. */
const TARGETED = ['TOOLTIP', 'BEACON', 'CLICK', 'INPUT'];
/** Elements a user acts on: a step pointing at one may be followed by a step waiting for the result. */
const INTERACTIVE = /^(?:INPUT|TEXTAREA|SELECT|BUTTON|A)$/;

/**
 * What a flow does when a step's target stays missing (no selector match, no confident healing)
 * for 10 s: `settings.targetMissing` of the step, else of the flow: `end` (SELECTOR_NOT_FOUND,
 * FLOW_SKIPPED, the flow ends), `skip` (on to the next step), `wait` (keeps waiting, showing
 * so). Unset: `end`, except for a step after one that asked the user to act (it waits).
 */
export type MissingMode = 'end' | 'skip' | 'wait';
export const missingMode = (flow: Flow, step: FlowStep): MissingMode | undefined => {
  const v = step.settings?.targetMissing ?? flow.settings?.targetMissing;
  return v === 'skip' || v === 'wait' || v === 'end' ? v : undefined;
};

/**
 * Runs one flow, step by step: renders each step type, waits for missing targets (10 s, then
 * SELECTOR_NOT_FOUND and FLOW_SKIPPED), and reports FLOW_STARTED, STEP_VIEWED, STEP_COMPLETED,
 * FLOW_COMPLETED and FLOW_DISMISSED with `flowId`, `flowName`, `stepIndex`, `stepId`,
 * `stepType`, `totalSteps` (plus the experiment or journey context).
 */
export class FlowRunner {
  readonly steps: FlowStep[];
  private index = -1;
  private cleanups: (() => void)[] = [];
  private generation = 0;
  private shownAt = 0;
  private readonly restoreFocus: () => void;
  private ended = false;
  /** The step last shown pointed at a field, button or link (or was CLICK / INPUT). */
  private actedOn = -1;

  constructor(
    private readonly env: Env,
    readonly flow: Flow,
    private readonly context: Context,
    private readonly onEnd: (runner: FlowRunner) => void,
    private readonly startedAt: number = Date.now(),
  ) {
    this.steps = [...(flow.steps ?? [])].sort((a, b) => a.order - b.order);
    this.restoreFocus = rememberFocus(env.root);
  }

  get id(): string {
    return this.flow.id;
  }

  /** Shows step `at`; a resumed flow (reload, navigation) does not report FLOW_STARTED again. */
  start(at = 0, resumed = false) {
    if (this.steps.length === 0) return this.finish(false);
    if (!resumed) {
      this.env.emit('FLOW_STARTED', this.base());
      this.env.notify('flow:started', this.base());
    }
    void this.show(Math.min(Math.max(at, 0), this.steps.length - 1));
  }

  /** Tears the flow down without reporting anything (reset, a new identity). */
  stop(keepProgress = false): void {
    this.clear();
    this.ended = true;
    if (!keepProgress) store.set(PROGRESS_KEY, undefined);
  }

  private base(): Record<string, unknown> {
    return { flowId: this.flow.id, flowName: this.flow.name, totalSteps: this.steps.length, ...this.context };
  }

  private stepProps(i = this.index): Record<string, unknown> {
    const s = this.steps[i];
    return { ...this.base(), stepIndex: i, stepId: s?.id, stepType: s?.type };
  }

  private clear(): void {
    this.generation++;
    for (const fn of this.cleanups.splice(0)) {
      try {
        fn();
      } catch {
        // a cleanup never blocks the next step
      }
    }
  }

  private save(step: number): void {
    const progress: FlowProgress = {
      id: this.flow.id,
      step,
      flow: this.flow,
      context: this.context,
      startedAt: this.startedAt,
      at: Date.now(),
    };
    store.set(PROGRESS_KEY, progress);
  }

  private async show(i: number): Promise<void> {
    // The keyboard was in the SDK's UI (Next pressed with Enter): the next step may take it.
    const ours = this.env.root.activeElement() !== null;
    this.clear();
    const generation = this.generation;
    const stale = () => this.generation !== generation || this.ended;
    this.index = i;
    this.save(i);
    const step = this.steps[i]!;
    const selector = step.targetSelector?.trim() ?? '';
    const targeted = TARGETED.includes(step.type);
    const needsTarget = selector !== '' && (targeted || step.type === 'SCROLL' || step.type === 'WAIT');
    // A step after one that asked the user to act (type, click) waits for the result, saying so
    // (for as long as the flow's setting says: unset, until it comes).
    const userActs = step.settings?.waitFor === 'user' || (i > 0 && this.actedOn === i - 1);
    const setting = missingMode(this.flow, step);
    const mode = setting ?? (userActs ? 'wait' : 'end');
    const keep = mode === 'wait';
    const key = `${this.flow.id}|${step.id}|${selector}`;
    const item = { itemKind: 'flow' as const, itemId: this.flow.id, stepId: step.id };
    const told = (r: Located) => void report((t, p) => this.env.emit(t, p), item, selector, key, r);
    const since = Date.now();
    let waiting: Surface | null = null;
    // A chunk that fails to load degrades the step (no arrow, no ring), never the flow.
    const [found, pos, widgets] = await Promise.all([
      needsTarget
        ? locate(selector, storedFingerprint(step), key, {
            cancelled: stale,
            keepWaiting: keep,
            onSlow: () => {
              if ((keep || userActs) && !stale()) waiting = this.waiting(i, ours);
            },
            onTimeout: told,
          })
        : null,
      targeted ? loadPosition().catch(() => null) : null,
      step.type === 'FORM' ? loadWidgets().catch(() => null) : null,
    ]);
    (waiting as Surface | null)?.remove();
    if (stale()) return;
    if (found) told(found);
    const target = found?.el ?? null;
    if (needsTarget && !target && (targeted || step.type === 'WAIT'))
      return this.missing(i, selector, mode, Date.now() - since);
    this.actedOn =
      target && (INTERACTIVE.test(target.tagName) || (target as HTMLElement).isContentEditable) ? i : -1;
    if (step.type === 'CLICK' || step.type === 'INPUT') this.actedOn = i;
    this.shownAt = Date.now();
    this.env.emit('STEP_VIEWED', this.stepProps(i));
    this.env.notify('flow:step', this.stepProps(i));
    this.render(step, i, target, pos, widgets, ours);
  }

  /** A step waiting for its target (the user's action): a quiet card saying so, Back to the step before. */
  private waiting(i: number, focus: boolean): Surface {
    const { labels } = this.env;
    const prev = this.steps[i - 1];
    const s = card(this.env.root, {
      kind: 'g-corner g-wait',
      title: str(prev?.content, 'title') ?? str(this.steps[i]!.content, 'title'),
      body: labels.waiting,
      buttons: prev ? [{ label: labels.back, secondary: true, onClick: () => this.back() }] : [],
      onClose: () => this.dismiss(),
      closeLabel: labels.close,
      label: this.flow.name,
    });
    this.env.root.announce(labels.waiting);
    if (focus) s.focus();
    this.cleanups.push(() => s.remove());
    return s;
  }

  /** The target stayed missing: the flow's `targetMissing` setting says what next. */
  private missing(i: number, selector: string, mode: MissingMode, waitedMs: number): void {
    if (mode === 'skip' && i < this.steps.length - 1) {
      this.env.emit('SELECTOR_NOT_FOUND', { ...this.stepProps(i), selector, waitedMs, action: 'skip' });
      void this.show(i + 1);
      return;
    }
    this.skip(selector, waitedMs);
  }

  private buttons(i: number, withNext = true): Button[] {
    const c = this.steps[i]!.content;
    const last = i === this.steps.length - 1;
    const { labels } = this.env;
    const out: Button[] = [];
    if (i > 0 && !ACTIONS.includes(this.steps[i - 1]!.type)) {
      out.push({ label: str(c, 'backLabel') ?? labels.back, secondary: true, onClick: () => this.back() });
    }
    if (withNext) {
      out.push({
        label: last ? (str(c, 'doneLabel') ?? labels.done) : (str(c, 'nextLabel') ?? labels.next),
        onClick: () => this.next(),
      });
    }
    return out;
  }

  private surface(
    i: number,
    kind: string,
    opts: { modal?: boolean; extra?: (Node | null)[]; buttons?: Button[] },
  ): Surface {
    const c = this.steps[i]!.content;
    const total = this.steps.length;
    const { root, labels } = this.env;
    const progress = fill(labels.progress, { current: i + 1, total });
    const title = `${progress}: ${str(c, 'title') ?? this.flow.name}`;
    root.announce(opts.modal || root.activeElement() ? title : `${title}. ${labels.hotkey}`);
    const s = card(root, {
      kind,
      title: str(c, 'title'),
      body: str(c, 'body') ?? str(c, 'text') ?? str(c, 'description'),
      image: safeUrl(str(c, 'imageUrl')),
      extra: opts.extra ?? [],
      buttons: opts.buttons ?? this.buttons(i),
      progress: total > 1 ? progress : undefined,
      modal: opts.modal ?? false,
      onClose: () => this.dismiss(),
      closeLabel: this.env.labels.close,
      label: this.flow.name,
    });
    this.cleanups.push(() => s.remove());
    return s;
  }

  private render(
    step: FlowStep,
    i: number,
    target: Element | null,
    pos: Position | null,
    widgets: Widgets | null,
    ours: boolean,
  ) {
    const { root } = this.env;
    const settings = step.settings ?? {};
    // Modal steps take the keyboard; the others only when it was already in the SDK's UI (else
    // they are announced, and reached with Alt+Shift+G or Tab from their target).
    const quiet = (s: Surface) => {
      if (ours) s.focus();
    };
    // …and a modal one not while the user is typing in the page (it is reached with the hotkey)
    const modal = (s: Surface) => {
      if (ours || !root.typing()) s.focus();
    };
    switch (step.type) {
      case 'BANNER':
        return quiet(this.surface(i, 'g-banner', {}));
      case 'SLIDEOUT':
        return quiet(this.surface(i, 'g-corner', {}));
      case 'VIDEO':
        return modal(this.surface(i, 'g-modal g-video', { modal: true, extra: [videoFrame(step)] }));
      case 'FORM': {
        if (!widgets) return modal(this.surface(i, 'g-modal', { modal: true }));
        widgets.addStyles(root);
        const { form, values } = widgets.formFields(step.content.fields);
        const buttons = this.buttons(i);
        const next = buttons[buttons.length - 1]!;
        next.onClick = () => {
          if (form.reportValidity()) this.next({ values: values() });
        };
        return modal(this.surface(i, 'g-modal', { modal: true, extra: [form], buttons }));
      }
      case 'TOOLTIP':
      case 'BEACON': {
        if (!target || !pos) return modal(this.surface(i, 'g-modal', { modal: true }));
        reveal(target);
        const showTip = (focus: boolean) => {
          const s = this.surface(i, 'g-pop', {});
          this.cleanups.push(
            pos.anchorTo(target, s.card, placementOf(settings.position ?? step.content.position)),
          );
          this.cleanups.push(pos.ring(root, target), pos.tabAfter(target, s, root));
          if (focus) s.focus();
        };
        if (step.type === 'TOOLTIP') return showTip(ours);
        const dot = root.mount(
          h('button', {
            type: 'button',
            class: 'g-beacon',
            'aria-label': str(step.content, 'title') ?? this.env.labels.openHint,
            onclick: () => {
              dot.remove();
              showTip(true);
            },
          }),
        );
        this.cleanups.push(pos.pin(target, dot, root.isRtl), () => dot.remove());
        return;
      }
      case 'CLICK':
      case 'INPUT':
        return this.act(step, i, target!, pos);
      case 'SCROLL': {
        if (target) target.scrollIntoView({ block: 'center', behavior: 'smooth' });
        else scrollTo({ top: num(settings, 'y') ?? num(step.content, 'y') ?? 0, behavior: 'smooth' });
        return this.later(() => this.next(), 700);
      }
      case 'WAIT': {
        if (target) return this.next();
        const ms = Math.min(num(settings, 'duration') ?? num(step.content, 'duration') ?? 1000, 60_000);
        return this.later(() => this.next(), ms);
      }
      case 'NAVIGATE':
        return this.navigate(step, i);
      default:
        // MODAL, and any type a newer service may send: a modal card is always readable.
        return modal(this.surface(i, 'g-modal', { modal: true }));
    }
  }

  private later(fn: () => void, ms: number): void {
    const t = setTimeout(fn, ms);
    this.cleanups.push(() => clearTimeout(t));
  }

  /**
   * CLICK and INPUT: with `settings.auto` the SDK clicks (or types `settings.value`) itself;
   * otherwise it highlights the target with the step's hint and moves on when the user does it.
   */
  private act(step: FlowStep, i: number, target: Element, pos: Position | null) {
    const settings = step.settings ?? {};
    const el = target as HTMLElement;
    if (settings.auto === true) {
      if (step.type === 'CLICK') el.click();
      else if ('value' in el) {
        (el as HTMLInputElement).value = String(settings.value ?? '');
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }
      return this.later(() => this.next(), 300);
    }
    reveal(target);
    if (pos) {
      this.cleanups.push(pos.ring(this.env.root, target));
      if (str(step.content, 'title') || str(step.content, 'body') || str(step.content, 'text')) {
        const s = this.surface(i, 'g-pop', { buttons: this.buttons(i, false) });
        this.cleanups.push(
          pos.anchorTo(target, s.card, placementOf(settings.position)),
          pos.tabAfter(target, s, this.env.root),
        );
      }
    }
    let debounce: ReturnType<typeof setTimeout> | undefined;
    const done = (e: Event) => {
      if (step.type === 'CLICK') return this.next();
      clearTimeout(debounce);
      const value = (e.target as HTMLInputElement).value;
      if (e.type === 'change' ? value !== '' : value.trim() !== '') {
        debounce = setTimeout(() => this.next(), e.type === 'change' ? 0 : 800);
      }
    };
    const events = step.type === 'CLICK' ? ['click'] : ['input', 'change'];
    for (const type of events) target.addEventListener(type, done, true);
    this.cleanups.push(() => {
      clearTimeout(debounce);
      for (const type of events) target.removeEventListener(type, done, true);
    });
  }

  /** NAVIGATE: `content.url` (or `settings.url`); the flow resumes at the next step on the new page. */
  private navigate(step: FlowStep, i: number) {
    const url = safeUrl(str(step.content, 'url') ?? str(step.settings, 'url'));
    if (!url || url === location.href) return this.next();
    const last = i === this.steps.length - 1;
    this.env.emit('STEP_COMPLETED', { ...this.stepProps(i), duration: 0 });
    if (last) this.complete();
    else this.save(i + 1);
    if (step.settings?.spa === true || sameDocument(url, location.href)) {
      if (sameDocument(url, location.href)) location.hash = new URL(url).hash;
      else {
        history.pushState(history.state, '', url);
        dispatchEvent(new PopStateEvent('popstate', { state: history.state }));
      }
      if (!last) void this.show(i + 1);
    } else {
      location.assign(url);
    }
  }

  next(extra: Record<string, unknown> = {}): void {
    if (this.ended) return;
    this.env.emit('STEP_COMPLETED', { ...this.stepProps(), duration: Date.now() - this.shownAt, ...extra });
    if (this.index >= this.steps.length - 1) this.complete();
    else void this.show(this.index + 1);
  }

  back(): void {
    if (!this.ended && this.index > 0) void this.show(this.index - 1);
  }

  dismiss(): void {
    if (this.ended) return;
    const props = { ...this.stepProps(), duration: Date.now() - this.startedAt };
    this.env.emit('FLOW_DISMISSED', props);
    this.env.markDone(this.flow.id, 'dismissed');
    this.env.notify('flow:dismissed', props);
    this.finish();
  }

  private complete(): void {
    const props = {
      ...this.base(),
      stepsCompleted: this.steps.length,
      duration: Date.now() - this.startedAt,
    };
    this.env.emit('FLOW_COMPLETED', props);
    this.env.markDone(this.flow.id, 'completed');
    this.env.notify('flow:completed', props);
    this.finish();
  }

  /** The target never appeared: report it and skip the flow, leaving the page as it was. */
  private skip(selector: string, waitedMs: number): void {
    this.env.emit('SELECTOR_NOT_FOUND', { ...this.stepProps(), selector, waitedMs });
    const props = { ...this.stepProps(), reason: 'SELECTOR_NOT_FOUND' };
    this.env.emit('FLOW_SKIPPED', props);
    this.env.notify('flow:skipped', props);
    this.finish();
  }

  private finish(restore = true): void {
    this.clear();
    this.ended = true;
    store.set(PROGRESS_KEY, undefined);
    if (restore) this.restoreFocus();
    this.onEnd(this);
  }
}

/** A VIDEO step's player: YouTube and Vimeo links embedded, anything else a <video>. */
function videoFrame(step: FlowStep): Node | null {
  const raw = str(step.content, 'videoUrl') ?? str(step.content, 'url');
  const url = safeUrl(raw);
  if (!url) return null;
  const title = str(step.content, 'title') ?? 'Video';
  const yt = /(?:youtube\.com\/(?:watch\?v=|embed\/)|youtu\.be\/)([\w-]{11})/.exec(url);
  const vimeo = /vimeo\.com\/(?:video\/)?(\d+)/.exec(url);
  const embed = yt
    ? `https://www.youtube-nocookie.com/embed/${yt[1]}`
    : vimeo
      ? `https://player.vimeo.com/video/${vimeo[1]}`
      : null;
  return embed
    ? h('iframe', {
        class: 'g-frame',
        src: embed,
        title,
        allow: 'autoplay; fullscreen; picture-in-picture',
        allowfullscreen: true,
      })
    : h('video', {
        class: 'g-frame',
        src: url,
        poster: safeUrl(str(step.content, 'posterUrl')),
        controls: true,
        playsinline: true,
        title,
      });
}
