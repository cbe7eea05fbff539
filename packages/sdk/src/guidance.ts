import { trackClicks } from './clicks.js';
import { showContent } from './content.js';
import type { Env, GuidanceEventName, HelpArticle } from './env.js';
import { type FlowProgress, FlowRunner, PROGRESS_KEY, PROGRESS_TTL_MS } from './flow.js';
import { isRtlLocale, type Labels, resolveLabels } from './labels.js';
import { loadPicker, setChunkBase } from './lazy.js';
import { watchNavigation } from './navigation.js';
import { type Context, type Plan, planSession } from './plan.js';
import { EventQueue } from './queue.js';
import type { PickVerifyResponse } from './target/types.js';
import { Api } from './transport.js';
import { Root } from './ui/root.js';
import { guard, isDebug, isObject, setDebug, store, uuid, VERSION, warn } from './util.js';
import type {
  EventType,
  HelpSearchResponse,
  IdentifyResponse,
  SdkConfigResponse,
  SdkEvent,
  SessionRequest,
  SessionResponse,
} from './wire.js';

export interface InitOptions {
  /** The tenant's SDK key (`wfx_…`). */
  apiKey: string;
  /** The service's origin; defaults to where guidance.js was loaded from (else this page's origin). */
  apiUrl?: string;
  /** Your id of the signed-in user (else the visitor is anonymous until identify()). */
  userId?: string;
  traits?: Record<string, unknown>;
  /** BCP 47 code; defaults to <html lang>, then the browser's language. */
  locale?: string;
  /** Send CLICK events for heatmaps (default true). Rage and dead clicks are always reported. */
  trackClicks?: boolean;
  /** Replaces the SDK's own words (Next, Back, Done, Close…). */
  labels?: Partial<Labels>;
  /** Knowledge-base search for the self-help widget (see Env.searchKnowledgeBase). */
  searchKnowledgeBase?: (query: string) => Promise<HelpArticle[]>;
  /** Log every problem to the console, not just the first. */
  debug?: boolean;
}

export type GuidanceCallback = (detail: Record<string, unknown>) => void;

/** The public API: `window.Guidance` (script tag) or the ESM export. Nothing here ever throws. */
export interface GuidanceApi {
  readonly version: string;
  /** config → identify → session for the current URL → render what is due. Resolves when done (never rejects). */
  init(options: InitOptions): Promise<void>;
  identify(userId: string, traits?: Record<string, unknown>): Promise<void>;
  /** A CUSTOM event named `name`. */
  track(name: string, properties?: Record<string, unknown>): void;
  /** A PAGE_VIEW, and a new session when the URL changed (called by itself on SPA navigation). */
  page(): void;
  /** Starts a flow of the current session (MANUAL flows are served on every page); false if unknown. Before init() has finished, it waits for it. */
  startFlow(flowId: string): boolean;
  /** Shows a content item whose trigger is `manual`; false if unknown. */
  showContent(contentId: string): boolean;
  /** Reports an EXPERIMENT_CONVERSION for the user's variant. */
  conversion(experimentId: string, properties?: Record<string, unknown>): void;
  /** Forgets the user (logout): new anonymous id, nothing shown that was theirs. */
  reset(): void;
  /** Sends every queued event now. */
  flush(): Promise<void>;
  /** `flow:started`, `flow:step`, `flow:completed`, `flow:dismissed`, `flow:skipped`, `content:shown`, `content:dismissed`, `survey:submitted`; returns the unsubscribe. */
  on(name: GuidanceEventName, callback: GuidanceCallback): () => void;
}

type Done = Record<string, 'completed' | 'dismissed'>;
const MAX_EARLY_EVENTS = 100;
const MAX_DONE = 200;

/** The runtime behind one GuidanceApi. */
class Runtime {
  private api: Api | null = null;
  private queue: EventQueue | null = null;
  private config: SdkConfigResponse['data'] | null = null;
  private options: InitOptions | null = null;
  private ready: Promise<void> | null = null;
  private started = false;
  /** init() has finished, successfully or not. */
  private settled = false;
  private dead = false;
  private locale = 'en';
  private labels = resolveLabels('en', undefined, undefined);
  private userId: string | undefined;
  private traits: Record<string, unknown> | undefined;
  private anonymousId = '';
  private sessionId: string | undefined;
  private sessionUrl: string | undefined;
  private pageViewUrl: string | undefined;
  private plan: Plan | null = null;
  private generation = 0;
  private runner: FlowRunner | null = null;
  private shown: (() => void)[] = [];
  private readonly manual = new Map<string, () => void>();
  private readonly listeners = new Map<string, Set<GuidanceCallback>>();
  private readonly early: SdkEvent[] = [];
  private done: Done = {};
  /** A pick token from the URL (`#guidance-pick=…`): the element picker runs instead of guidance. */
  private pickToken: string | null = null;
  readonly root = new Root();

  /** What renderers see of the runtime. */
  private readonly env: Env;

  constructor(private readonly defaultApiUrl: string | undefined) {
    const rt = this;
    this.env = {
      root: this.root,
      get labels() {
        return rt.labels;
      },
      emit: (type, properties) => this.event(type, properties),
      notify: (name, detail) => this.notify(name, detail),
      on: (name, callback) => this.on(name, callback),
      startFlow: (flowId, context) => this.startFlow(flowId, context),
      markDone: (id, state) => this.markDone(id, state),
      searchKnowledgeBase: async (query) => {
        const search = this.options?.searchKnowledgeBase;
        if (search) {
          const found = await search(query);
          return Array.isArray(found)
            ? found.filter((a) => isObject(a) && typeof a.title === 'string')
            : null;
        }
        // The service's own knowledge base, where the plan has AI (it answers 4xx until configured).
        if (!this.api || !this.config?.features.ai) return null;
        const reply = await this.api.call<HelpSearchResponse>(
          'GET',
          `/api/sdk/knowledge-base?limit=5&q=${encodeURIComponent(query)}`,
        );
        return reply.status === 200 && reply.body
          ? reply.body.data.map((a) => ({ title: a.title, body: a.excerpt, url: a.url ?? undefined }))
          : null;
      },
    };
  }

  // ---- public API ----

  init(options: InitOptions): Promise<void> {
    if (this.ready) return this.ready;
    if (!options || typeof options.apiKey !== 'string' || !options.apiKey) {
      warn('init() needs { apiKey }');
      return Promise.resolve();
    }
    setDebug(options.debug === true);
    this.options = options;
    const base = (options.apiUrl ?? this.defaultApiUrl ?? location.origin).replace(/\/+$/, '');
    const api = new Api(base, options.apiKey);
    this.api = api;
    setChunkBase(base);
    this.anonymousId = store.get<string>('anon') ?? uuid();
    store.set('anon', this.anonymousId);
    this.userId = options.userId ?? store.get<string>('user');
    this.traits = options.traits;
    this.done = store.get<Done>('done') ?? {};

    const queue = new EventQueue({
      send: (events) => api.call('POST', '/api/sdk/events', { events }),
      beacon: (events) => api.beacon(events),
      persist: (events) => store.set('queue', events),
      onProblem: (message) => warn(message),
    });
    this.queue = queue;
    const leftover = store.get<SdkEvent[]>('queue');
    store.set('queue', undefined);
    if (Array.isArray(leftover) && leftover.length > 0) queue.push(...leftover);
    if (this.early.length > 0) queue.push(...this.early.splice(0));

    this.pickToken = takePickToken();
    // The hotkey that takes the keyboard to the step on screen, and back (Alt+Shift+G); keys
    // typed in the page keep a modal step from taking the keyboard (root.typing()).
    addEventListener(
      'keydown',
      guard((e: KeyboardEvent) => {
        if (
          e.altKey &&
          e.shiftKey &&
          !e.ctrlKey &&
          !e.metaKey &&
          e.code === 'KeyG' &&
          this.root.toggleFocus()
        ) {
          e.preventDefault();
        } else {
          const field = e.composedPath()[0] as HTMLElement | undefined;
          if (field?.isContentEditable || /^(?:INPUT|TEXTAREA|SELECT)$/.test(field?.tagName ?? '')) {
            if (!this.root.owns(e)) this.root.typedAt = Date.now();
          }
        }
      }, 'hotkey'),
      true,
    );
    const hide = () => queue.beaconAll();
    addEventListener('pagehide', hide);
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') hide();
    });
    watchNavigation(guard(() => this.page(), 'navigation'));
    trackClicks({
      ignore: (e) => this.root.owns(e),
      report: (type, properties) => this.event(type, properties),
      trackAll: options.trackClicks !== false,
    });

    this.ready = this.start(options)
      .catch((err: unknown) => warn('init failed', err))
      .finally(() => {
        this.settled = true;
      });
    return this.ready;
  }

  private async start(options: InitOptions): Promise<void> {
    const api = this.api!;
    const reply = await api.call<SdkConfigResponse>('GET', '/api/sdk/config');
    if (reply.status !== 200 || !reply.body?.data) {
      if (reply.status === 401) {
        this.dead = true;
        this.queue?.clear();
        warn('the API key was refused (401): check Guidance.init({ apiKey })');
      } else {
        warn(
          `the guidance service is unreachable (${reply.status || 'network error'}); nothing is shown on this page`,
        );
      }
      return;
    }
    const config = reply.body.data;
    this.config = config;
    this.locale =
      options.locale || document.documentElement.lang || navigator.language || config.defaultLocale || 'en';
    const sdkSettings = isObject(config.settings.sdk) ? config.settings.sdk : {};
    this.labels = resolveLabels(this.locale, options.labels, sdkSettings.labels);
    this.root.configure({
      rtl: isRtlLocale(this.locale, config.locales ?? []),
      lang: this.locale,
      primary: brandColor(config.settings),
    });
    if (this.userId) await this.sendIdentify(this.userId, this.traits);
    if (this.pickToken && (await this.pick(this.pickToken))) return;
    this.started = true;
    await this.refresh();
    this.pageView();
  }

  /**
   * The element picker, when the service vouches for the pick token (`POST /api/sdk/pick/verify`):
   * nothing else is shown on this page then. False (guidance as usual) for a refused token.
   */
  private async pick(token: string): Promise<boolean> {
    const api = this.api!;
    const reply = await api.call<PickVerifyResponse>('POST', '/api/sdk/pick/verify', { token });
    if (reply.status !== 200 || !reply.body?.data) {
      warn(
        `the pick link was refused (${reply.status || 'network error'}): open it again from the dashboard`,
      );
      return false;
    }
    const picker = await loadPicker().catch(() => null);
    if (!picker) return false;
    picker.startPicker({
      root: this.root,
      token,
      send: async (body) => (await api.call('POST', '/api/sdk/pick/result', body)).status,
    });
    return true;
  }

  async identify(userId: string, traits?: Record<string, unknown>): Promise<void> {
    if (typeof userId !== 'string' || !userId) {
      warn('identify() needs a userId');
      return;
    }
    const changed = userId !== this.userId;
    this.userId = userId;
    this.traits = traits;
    store.set('user', userId);
    // Before init has finished, init identifies with these values itself.
    if (!this.started) return;
    await this.sendIdentify(userId, traits);
    if (changed) await this.refresh();
  }

  private async sendIdentify(userId: string, traits: Record<string, unknown> | undefined): Promise<void> {
    const reply = await this.api!.call<IdentifyResponse>('POST', '/api/sdk/identify', {
      userId,
      ...(traits ? { traits } : {}),
      anonymousId: this.anonymousId,
    });
    if (reply.status !== 200) warn(`identify failed (${reply.status || 'network error'})`);
  }

  track(name: string, properties?: Record<string, unknown>): void {
    if (typeof name !== 'string' || !name.trim()) {
      warn('track() needs an event name');
      return;
    }
    this.event('CUSTOM', isObject(properties) ? properties : undefined, name.trim().slice(0, 255));
  }

  page(): void {
    if (!this.started) return;
    if (location.href !== this.sessionUrl) {
      this.clearContent();
      void this.refresh().then(() => this.pageView());
    } else {
      this.pageView();
    }
  }

  private pageView(): void {
    if (this.pageViewUrl === location.href) return;
    this.pageViewUrl = location.href;
    this.event('PAGE_VIEW', {
      title: document.title,
      path: location.pathname,
      referrer: document.referrer || undefined,
    });
  }

  startFlow(flowId: string, context: Context = {}): boolean {
    if (!this.plan && this.ready && !this.settled) {
      // Called while init() is still on its way (a button clicked early): start once it is done.
      void this.ready.then(() => this.startFlow(flowId, context));
      return true;
    }
    const planned = this.plan?.flows.find((f) => f.flow.id === flowId);
    if (!planned) {
      warn(`startFlow: flow ${flowId} is not served to this user on this page`);
      return false;
    }
    this.runner?.stop();
    this.run(planned.flow, { ...planned.context, ...context });
    return true;
  }

  showContent(contentId: string): boolean {
    const show = this.manual.get(contentId);
    show?.();
    return show !== undefined;
  }

  conversion(experimentId: string, properties?: Record<string, unknown>): void {
    const variantId = this.plan?.variants[experimentId];
    this.event('EXPERIMENT_CONVERSION', {
      ...(isObject(properties) ? properties : {}),
      experimentId,
      ...(variantId ? { variantId } : {}),
    });
  }

  reset(): void {
    void this.queue?.flush();
    this.runner?.stop();
    this.runner = null;
    this.clearContent();
    this.userId = undefined;
    this.traits = undefined;
    this.anonymousId = uuid();
    this.sessionId = undefined;
    this.sessionUrl = undefined;
    this.plan = null;
    this.done = {};
    for (const key of ['user', 'done', 'fp', PROGRESS_KEY]) store.set(key, undefined);
    store.set('anon', this.anonymousId);
    if (this.started) void this.refresh();
  }

  async flush(): Promise<void> {
    await this.ready;
    await this.queue?.flush();
  }

  on(name: GuidanceEventName, callback: GuidanceCallback): () => void {
    if (typeof callback !== 'function') return () => {};
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    set.add(callback);
    return () => set.delete(callback);
  }

  // ---- internals ----

  private notify(name: GuidanceEventName, detail: Record<string, unknown>): void {
    for (const callback of this.listeners.get(name) ?? []) guard(callback, `on('${name}') callback`)(detail);
  }

  private event(type: EventType, properties?: Record<string, unknown>, name?: string): void {
    if (this.dead) return;
    const e: SdkEvent = {
      id: uuid(),
      type,
      timestamp: new Date().toISOString(),
      url: location.href.slice(0, 4096),
      anonymousId: this.anonymousId || undefined,
      metadata: { sdkVersion: VERSION },
    };
    if (name) e.name = name;
    if (properties) e.properties = properties;
    if (this.userId) e.userId = this.userId;
    if (this.sessionId) e.sessionId = this.sessionId;
    if (this.queue) this.queue.push(e);
    else if (this.early.length < MAX_EARLY_EVENTS) this.early.push(e);
  }

  /** A new session for this user on this URL, then everything it serves is shown. */
  private async refresh(): Promise<void> {
    const generation = ++this.generation;
    const body: SessionRequest = {
      anonymousId: this.anonymousId,
      url: location.href.slice(0, 4096),
      locale: this.locale,
      device: device(),
    };
    if (this.userId) body.userId = this.userId;
    // Debug mode: the service lists what it held back and why (reason codes only, never rules).
    if (isDebug()) (body as SessionRequest & { debug?: boolean }).debug = true;
    this.sessionUrl = location.href;
    const reply = await this.api!.call<SessionResponse>('POST', '/api/sdk/session', body);
    if (generation !== this.generation) return;
    if (reply.status !== 201 || !reply.body?.data) {
      warn(`no guidance for this page: the session request failed (${reply.status || 'network error'})`);
      return;
    }
    this.sessionId = reply.body.data.sessionId;
    const held = (reply.body.data as { decisions?: { kind: string; id: string; reason: string }[] })
      .decisions;
    if (held?.length)
      console.info('[guidance] not shown:', held.map((d) => `${d.kind} ${d.id} ${d.reason}`).join(', '));
    this.plan = planSession(reply.body.data);
    this.render(this.plan);
  }

  private clearContent(): void {
    for (const cleanup of this.shown.splice(0)) guard(cleanup, 'cleanup')();
    this.manual.clear();
  }

  private isDone(id: string): boolean {
    const state = this.done[id];
    if (!state) return false;
    const f = isObject(this.config?.settings.frequency) ? this.config.settings.frequency : {};
    return state === 'completed' ? f.repeatCompleted !== true : f.repeatDismissed !== true;
  }

  private markDone(id: string, state: 'completed' | 'dismissed'): void {
    this.done[id] = state;
    const ids = Object.keys(this.done);
    if (ids.length > MAX_DONE) delete this.done[ids[0]!];
    store.set('done', this.done);
  }

  private render(plan: Plan): void {
    this.clearContent();
    for (const j of plan.missing) {
      this.event('CONTENT_RENDER_FAILED', { ...j, reason: 'NOT_IN_SESSION' });
    }
    for (const item of plan.content) {
      if (this.isDone(item.record.id)) continue;
      this.shown.push(showContent(this.env, item, this.manual));
    }
    if (this.runner) return;
    const progress = store.get<FlowProgress>(PROGRESS_KEY);
    if (progress && Date.now() - progress.at < PROGRESS_TTL_MS && progress.flow?.id === progress.id) {
      const planned = plan.flows.find((f) => f.flow.id === progress.id);
      this.run(
        planned?.flow ?? progress.flow,
        planned?.context ?? progress.context ?? {},
        progress.step,
        progress.startedAt,
      );
      return;
    }
    const next = plan.flows.find((f) => f.auto && !this.isDone(f.flow.id));
    if (next) this.run(next.flow, next.context);
  }

  private run(flow: FlowProgress['flow'], context: Context, step?: number, startedAt?: number): void {
    const runner = new FlowRunner(
      this.env,
      flow,
      context,
      (ended) => {
        if (this.runner === ended) this.runner = null;
      },
      startedAt,
    );
    this.runner = runner;
    runner.start(step ?? 0, step !== undefined);
  }
}

/** Takes `#guidance-pick=<token>` out of the URL (history.replaceState), answering the token. */
function takePickToken(): string | null {
  const m = /(?:^#|&)guidance-pick=([\w.~-]{8,512})/.exec(location.hash);
  if (!m) return null;
  const rest = location.hash
    .slice(1)
    .split('&')
    .filter((p) => !p.startsWith('guidance-pick='))
    .join('&');
  history.replaceState(history.state, '', location.pathname + location.search + (rest ? `#${rest}` : ''));
  return m[1]!;
}

/** `settings.theme.primaryColor` (or `settings.brandColor`) when it is a CSS colour. */
function brandColor(settings: Record<string, unknown>): string | undefined {
  const theme = isObject(settings.theme) ? settings.theme : {};
  const value = theme.primaryColor ?? settings.brandColor;
  return typeof value === 'string' && typeof CSS !== 'undefined' && CSS.supports('color', value)
    ? value
    : undefined;
}

/** Device type and browser for audience rules (`device.type`, `device.browser`). */
function device(): { type: string; browser: string } {
  const ua = navigator.userAgent;
  const type = /iPad|Tablet/i.test(ua) ? 'tablet' : /Mobi|Android|iPhone/i.test(ua) ? 'mobile' : 'desktop';
  const browser = /Edg\//.test(ua)
    ? 'edge'
    : /OPR\//.test(ua)
      ? 'opera'
      : /Firefox\//.test(ua)
        ? 'firefox'
        : /Chrom(e|ium)\//.test(ua)
          ? 'chrome'
          : /Safari\//.test(ua)
            ? 'safari'
            : 'other';
  return { type, browser };
}

/** A Guidance instance. `defaultApiUrl`: the service origin when init() names none. */
export function createGuidance(defaultApiUrl?: string): GuidanceApi {
  const rt = new Runtime(defaultApiUrl);
  return {
    version: VERSION,
    init: guard((o: InitOptions) => rt.init(o), 'init') as GuidanceApi['init'],
    identify: guard(
      (u: string, t?: Record<string, unknown>) => rt.identify(u, t),
      'identify',
    ) as GuidanceApi['identify'],
    track: guard((n: string, p?: Record<string, unknown>) => rt.track(n, p), 'track'),
    page: guard(() => rt.page(), 'page'),
    startFlow: (id: string) => guard(() => rt.startFlow(id), 'startFlow')() ?? false,
    showContent: (id: string) => guard(() => rt.showContent(id), 'showContent')() ?? false,
    conversion: guard((id: string, p?: Record<string, unknown>) => rt.conversion(id, p), 'conversion'),
    reset: guard(() => rt.reset(), 'reset'),
    flush: guard(() => rt.flush(), 'flush') as GuidanceApi['flush'],
    on: (name, cb) => guard(() => rt.on(name, cb), 'on')() ?? (() => {}),
  };
}
