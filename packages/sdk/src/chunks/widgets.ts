/**
 * Lazy chunk `chunks/widgets.js`: surveys, NPS, task lists, self-help and FORM steps, with their
 * stylesheet (added to the SDK's shadow root on load). Loaded the first time a page shows one.
 */
import type { HelpArticle } from '../env.js';
import type { Cleanup, RenderCtx, Renderer } from '../render.js';
import { deepQuery } from '../target/deep.js';
import { h, nextId } from '../ui/dom.js';
import { type Field, picker, questionField, validate } from '../ui/fields.js';
import type { Root } from '../ui/root.js';
import { card, type Surface } from '../ui/surface.js';
import { isObject, safeUrl, sameDocument, store, str } from '../util.js';
import type { NpsSurveyRecord, SelfHelpRecord, SurveyRecord, TaskListRecord } from '../wire.js';

export { formFields } from '../ui/fields.js';

/** The widgets' stylesheet, minified by the build from ui/widgets.css. */
declare const __WIDGETS_CSS__: string;

/** Adds the widgets' styles to the SDK's shadow root (once per root). */
export function addStyles(root: Root): void {
  root.addStyle('widgets', typeof __WIDGETS_CSS__ === 'string' ? __WIDGETS_CSS__ : '');
}

type Props = Record<string, unknown>;

/** A thank-you note in place of an answered survey, gone after a moment. */
function thank(ctx: RenderCtx, kind: string): void {
  const s = card(ctx.env.root, {
    kind,
    title: ctx.env.labels.thanks,
    onClose: () => s.remove(),
    closeLabel: ctx.env.labels.close,
  });
  setTimeout(() => s.remove(), 2500);
}

export const survey: Renderer<SurveyRecord> = (ctx, r) => {
  const { env } = ctx;
  const questions = [...(r.questions ?? [])].sort((a, b) => a.order - b.order);
  const fields: Field[] = questions.map((q) => questionField(q, env.labels));
  const submit = () => {
    if (!validate(fields, env.labels)) return;
    const answers: Props = {};
    fields.forEach((f, i) => {
      const v = f.value();
      if (v !== undefined) answers[questions[i]!.key] = v;
    });
    const detail = { ...ctx.props, surveyId: r.id, answers };
    env.emit('SURVEY_RESPONSE', detail);
    env.notify('survey:submitted', detail);
    ctx.end('completed');
    thank(ctx, 'g-corner');
  };
  const s = card(env.root, {
    kind: 'g-corner',
    title: r.name,
    extra: [
      h(
        'form',
        { class: 'g-form', onsubmit: (e: Event) => e.preventDefault() },
        fields.map((f) => f.el),
      ),
    ],
    buttons: [{ label: env.labels.submit, onClick: submit }],
    onClose: () => ctx.end('dismissed'),
    closeLabel: env.labels.close,
  });
  ctx.shown();
  return () => s.remove();
};

/** NPS: scores 0…10 as buttons named "0"…"10", then the follow-up question if there is one. */
export const nps: Renderer<NpsSurveyRecord> = (ctx, r) => {
  const { env } = ctx;
  let score: number | undefined;
  const commentId = nextId('g-c');
  const comment = h('textarea', { class: 'g-input', id: commentId, maxlength: 10000 });
  const follow = r.followUpQuestion
    ? h(
        'div',
        { class: 'g-field', hidden: true },
        h('label', { class: 'g-q', for: commentId }, r.followUpQuestion),
        comment,
      )
    : null;
  const submit = () => {
    if (score === undefined) return;
    const text = comment.value.trim();
    const detail = { ...ctx.props, npsSurveyId: r.id, score, ...(text ? { comment: text } : {}) };
    env.emit('NPS_RESPONSE', detail);
    env.notify('survey:submitted', detail);
    ctx.end('completed');
    thank(ctx, 'g-corner');
  };
  const scale = picker(
    Array.from({ length: 11 }, (_, i) => i),
    String,
    String,
    {
      onPick: (v) => {
        score = v;
        if (!follow) return submit();
        follow.hidden = false;
        send.hidden = false;
      },
    },
  );
  const send = h(
    'button',
    { type: 'button', class: 'g-btn', hidden: true, onclick: submit },
    env.labels.submit,
  );
  const s: Surface = card(env.root, {
    kind: 'g-corner g-nps',
    title: r.question,
    extra: [
      h(
        'div',
        { class: 'g-form' },
        h(
          'div',
          null,
          scale.el,
          h(
            'div',
            { class: 'g-ends' },
            h('span', null, env.labels.notLikely),
            h('span', null, env.labels.veryLikely),
          ),
        ),
        follow,
        h('div', { class: 'g-btns' }, send),
      ),
    ],
    onClose: () => ctx.end('dismissed'),
    closeLabel: env.labels.close,
  });
  scale.el.setAttribute('aria-labelledby', s.card.getAttribute('aria-labelledby') ?? '');
  ctx.shown();
  return () => s.remove();
};

/**
 * Task lists: a launcher ("Getting started 1/4") opening a checklist. NAVIGATE goes to
 * `actionConfig.url`, EXTERNAL_LINK opens a new tab, COMPLETE_FLOW starts the flow (ticked when
 * it completes), FILL_FORM focuses `actionConfig.selector`. Ticks are kept in this browser;
 * the last one reports CONTENT_SUBMISSION_PERSISTED (the list is complete).
 */
export const taskList: Renderer<TaskListRecord> = (ctx, r) => {
  const { env } = ctx;
  const items = [...(r.items ?? [])].sort((a, b) => a.order - b.order);
  const key = `tasks:${r.id}`;
  const done = new Set<number>(store.get<number[]>(key) ?? []);
  const panelId = nextId('g-p');
  const count = h('span', { class: 'g-count' });
  const launcher = env.root.mount(
    h(
      'button',
      {
        type: 'button',
        class: 'g-launch',
        'aria-expanded': 'false',
        'aria-controls': panelId,
        onclick: () => toggle(),
      },
      r.name,
      count,
    ),
  );
  const fill = h('i');
  const rows = items.map((item, i) =>
    h(
      'li',
      null,
      h(
        'button',
        { type: 'button', class: 'g-task', role: 'checkbox', 'aria-checked': 'false', onclick: () => act(i) },
        h('span', { class: 'g-check', 'aria-hidden': 'true' }, '✓'),
        h('span', { class: 'g-label' }, item.title),
      ),
    ),
  );
  let panel: Surface | null = null;
  const offs: Cleanup[] = [];

  const update = () => {
    count.textContent = `${done.size}/${items.length}`;
    fill.style.width = `${items.length ? (100 * done.size) / items.length : 0}%`;
    rows.forEach((row, i) => {
      row.firstElementChild!.setAttribute('aria-checked', String(done.has(i)));
    });
  };
  const mark = (i: number) => {
    if (done.has(i)) return;
    done.add(i);
    store.set(key, [...done]);
    update();
    if (done.size === items.length) {
      env.emit('CONTENT_SUBMISSION_PERSISTED', { ...ctx.props, itemsCompleted: items.length });
      env.markDone(r.id, 'completed');
    }
  };
  const toggle = (force?: boolean) => {
    const open = force ?? !panel;
    launcher.setAttribute('aria-expanded', String(open));
    if (!open) {
      panel?.remove();
      panel = null;
      return;
    }
    if (panel) return;
    panel = card(env.root, {
      kind: 'g-corner g-panel',
      title: r.name,
      body: r.description ?? undefined,
      extra: [h('div', { class: 'g-bar', role: 'presentation' }, fill), h('ul', { class: 'g-list' }, rows)],
      onClose: () => {
        toggle(false);
        launcher.focus();
      },
      closeLabel: env.labels.close,
    });
    panel.card.id = panelId;
    (panel.card.querySelector('.g-task') as HTMLElement | null)?.focus();
  };
  const act = (i: number) => {
    const item = items[i]!;
    const config = item.actionConfig ?? {};
    env.emit('ELEMENT_INTERACTION', {
      ...ctx.props,
      itemIndex: i,
      itemTitle: item.title,
      actionType: item.actionType,
    });
    const url = safeUrl(str(config, 'url'));
    switch (item.actionType) {
      case 'COMPLETE_FLOW': {
        const flowId = str(config, 'flowId');
        if (!flowId) return;
        offs.push(env.on('flow:completed', (d) => d.flowId === flowId && mark(i)));
        if (env.startFlow(flowId, {})) toggle(false);
        return;
      }
      case 'EXTERNAL_LINK':
        mark(i);
        if (url) open(url, '_blank', 'noopener');
        return;
      case 'NAVIGATE':
        mark(i);
        if (url && sameDocument(url, location.href)) location.hash = new URL(url).hash;
        else if (url) location.assign(url);
        return;
      default: {
        mark(i);
        const selector = str(config, 'selector');
        const target = selector ? (deepQuery(selector) as HTMLElement | null) : null;
        if (target) {
          toggle(false);
          target.scrollIntoView({ block: 'center', behavior: 'smooth' });
          target.focus();
        }
      }
    }
  };
  update();
  ctx.shown();
  return () => {
    for (const off of offs.splice(0)) off();
    panel?.remove();
    launcher.remove();
  };
};

/** Articles of a self-help widget: every array under `items` whose entries have a `title`. */
function articlesOf(items: unknown): HelpArticle[] {
  const out: HelpArticle[] = [];
  if (!isObject(items)) return out;
  for (const list of Object.values(items)) {
    if (!Array.isArray(list)) continue;
    for (const a of list) {
      const title = str(a, 'title');
      if (title) out.push({ title, body: str(a, 'body') ?? str(a, 'content'), url: str(a, 'url') });
    }
  }
  return out;
}

/**
 * Self-help: a Help button opening a searchable list of the widget's articles and links
 * (`items.articles: [{ title, body?, url? }]`, `items.links: [{ title, url }]`), merged with the
 * knowledge-base search hook's results when it answers. `config.position`: left or right.
 */
export const selfHelp: Renderer<SelfHelpRecord> = (ctx, r) => {
  const { env } = ctx;
  const own = articlesOf(r.items);
  const start = str(r.config, 'position') === 'left' ? ' g-start' : '';
  const panelId = nextId('g-p');
  const list = h('div', { role: 'list' });
  const input = h('input', {
    class: 'g-input',
    type: 'search',
    'aria-label': env.labels.search,
    placeholder: env.labels.search,
  });
  let panel: Surface | null = null;
  let searchTimer: ReturnType<typeof setTimeout> | undefined;

  const draw = (articles: HelpArticle[]) => {
    list.replaceChildren(
      ...(articles.length === 0
        ? [h('div', { class: 'g-empty' }, env.labels.noResults)]
        : articles.map((a) => {
            const url = safeUrl(a.url);
            const body = a.body ? h('p', { class: 'g-body', hidden: true }, a.body) : null;
            const link = url
              ? h('a', { class: 'g-link', href: url, target: '_blank', rel: 'noopener' }, a.title)
              : h(
                  'button',
                  {
                    type: 'button',
                    class: 'g-link',
                    'aria-expanded': 'false',
                    onclick: (e: Event) => {
                      if (!body) return;
                      body.hidden = !body.hidden;
                      (e.currentTarget as HTMLElement).setAttribute('aria-expanded', String(!body.hidden));
                    },
                  },
                  a.title,
                );
            return h('div', { class: 'g-article', role: 'listitem' }, link, body);
          })),
    );
  };
  const search = () => {
    const q = input.value.trim().toLowerCase();
    const local = q ? own.filter((a) => `${a.title} ${a.body ?? ''}`.toLowerCase().includes(q)) : own;
    draw(local);
    clearTimeout(searchTimer);
    if (!q) return;
    searchTimer = setTimeout(() => {
      void env.searchKnowledgeBase(q).then((remote) => {
        if (!remote || input.value.trim().toLowerCase() !== q) return;
        const titles = new Set(local.map((a) => a.title));
        draw([...local, ...remote.filter((a) => !titles.has(a.title))]);
      });
    }, 300);
  };
  input.addEventListener('input', search);

  const launcher = env.root.mount(
    h(
      'button',
      {
        type: 'button',
        class: `g-launch g-round${start}`,
        'aria-label': env.labels.help,
        'aria-expanded': 'false',
        'aria-controls': panelId,
        onclick: () => toggle(),
      },
      '?',
    ),
  );
  const toggle = (force?: boolean) => {
    const open = force ?? !panel;
    launcher.setAttribute('aria-expanded', String(open));
    if (!open) {
      panel?.remove();
      panel = null;
      return;
    }
    if (panel) return;
    env.emit('ELEMENT_INTERACTION', { ...ctx.props, action: 'open' });
    panel = card(env.root, {
      kind: `g-corner g-panel${start}`,
      title: str(r.config, 'title') ?? r.name,
      extra: [input, list],
      onClose: () => {
        toggle(false);
        launcher.focus();
      },
      closeLabel: env.labels.close,
    });
    panel.card.id = panelId;
    search();
    input.focus();
  };
  ctx.shown();
  return () => {
    clearTimeout(searchTimer);
    panel?.remove();
    launcher.remove();
  };
};
