/**
 * One of every kind of guidance, created through the service's dashboard API the way a
 * customer's team would (and published): the demo's content, and the e2e tests' screenshots.
 */

/** A record as the dashboard API answers it (read loosely by the demo). */
export type ApiRecord = { id: string; status?: string; key?: string; [field: string]: unknown };

/** Sends a dashboard request as the tenant's owner; throws unless it succeeds. */
export type DashboardCall = (
  method: 'GET' | 'POST' | 'PUT' | 'PATCH',
  path: string,
  body?: unknown,
) => Promise<ApiRecord>;

export function dashboardClient(serviceUrl: string, accessToken: string): DashboardCall {
  return async (method, path, body) => {
    const res = await fetch(`${serviceUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${accessToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text).data : null;
  };
}

export const DEMO_SITE = '0190a000-0000-7000-8000-00000000de40';

export interface DemoContent {
  tourFlowId: string;
  setupFlowId: string;
  reportsTooltipId: string;
  ids: Record<string, string>;
}

async function published(call: DashboardCall, type: string, body: Record<string, unknown>): Promise<string> {
  const item = await call('POST', `/api/content/${type}`, { siteId: DEMO_SITE, ...body });
  if (item.status !== 'PUBLISHED') await call('POST', `/api/content/${type}/${item.id}/publish`);
  return item.id;
}

async function publishedFlow(call: DashboardCall, body: Record<string, unknown>): Promise<string> {
  const flow = await call('POST', '/api/flows', { siteId: DEMO_SITE, ...body });
  await call('POST', `/api/flows/${flow.id}/publish`);
  return flow.id;
}

const on = (path: string) => ({ type: 'url_match', matchType: 'contains', pattern: path });

export async function seedDemo(call: DashboardCall): Promise<DemoContent> {
  const ids: Record<string, string> = {};
  // The home page's tour: a URL_MATCH flow (glob: the site root only).
  const tourFlowId = await publishedFlow(call, {
    name: 'Welcome tour',
    template: 'PRODUCT_TOUR',
    trigger: { type: 'URL_MATCH', config: { matchType: 'glob', pattern: 'http*://*/' } },
    steps: [
      {
        type: 'MODAL',
        content: {
          title: 'Welcome to Acme Projects',
          body: 'Take a 30-second tour of the essentials. You can leave it at any time with Escape.',
        },
      },
      {
        type: 'TOOLTIP',
        targetSelector: '#create-project',
        content: {
          title: 'Create your first project',
          body: 'Projects keep tasks, files and people together.',
        },
        settings: { position: 'BOTTOM' },
      },
      {
        type: 'TOOLTIP',
        targetSelector: '#search',
        content: { title: 'Find anything', body: 'Search projects, tasks and people from one place.' },
      },
      {
        type: 'BEACON',
        targetSelector: '#invite',
        content: {
          title: 'Invite your team',
          body: 'Projects move faster together. Invite teammates by email.',
        },
      },
      {
        type: 'SLIDEOUT',
        content: { title: "You're all set", body: 'The checklist in the corner walks you through the rest.' },
      },
    ],
  });
  // A MANUAL flow started by a button (Guidance.startFlow): action steps, a form and a video.
  const setupFlowId = await publishedFlow(call, {
    name: 'Workspace setup',
    template: 'INTERACTIVE_DEMO',
    trigger: { type: 'MANUAL', config: {} },
    steps: [
      {
        type: 'CLICK',
        targetSelector: '#plan-monthly',
        content: { title: 'Pick a plan', body: 'Click a plan to continue.' },
      },
      {
        type: 'INPUT',
        targetSelector: '#project-name',
        content: { title: 'Name your project', body: 'Type a name: the guide moves on by itself.' },
      },
      {
        type: 'FORM',
        content: {
          title: 'Tell us about your team',
          body: 'We tailor templates to your answers.',
          fields: [
            { name: 'team', label: 'Team name', type: 'text', required: true, placeholder: 'Design' },
            { name: 'size', label: 'Team size', type: 'select', options: ['1–5', '6–20', '21–100', '100+'] },
            { name: 'updates', label: 'Send me product updates', type: 'checkbox' },
          ],
        },
      },
      {
        type: 'VIDEO',
        content: {
          title: 'Acme in 90 seconds',
          videoUrl: '/acme-intro.mp4',
          posterUrl: '/video-poster.svg',
        },
      },
      {
        type: 'BANNER',
        content: { title: 'Setup complete', body: 'Your workspace is ready. Happy planning!' },
      },
    ],
  });
  ids.newProjectTooltip = await published(call, 'tooltips', {
    name: 'New project tip',
    targetSelector: '#new-project',
    targetUrl: '/projects',
    position: 'BOTTOM',
    content: {
      title: 'Start from a template',
      text: 'Kick off a project from one of 40 templates, or from scratch.',
    },
  });
  ids.filtersBeacon = await published(call, 'beacons', {
    name: 'Saved views beacon',
    targetSelector: '#filters',
    targetUrl: '/projects',
    animation: 'full',
    content: { title: 'Saved views', message: 'Save the filters you use most as a view, one click away.' },
  });
  const reportsTooltipId = await published(call, 'tooltips', {
    name: 'Velocity chart tip',
    targetSelector: '#reports-chart',
    targetUrl: '/reports',
    position: 'BOTTOM',
    content: { title: 'Velocity', text: 'Tasks closed per week, across every project you follow.' },
  });
  ids.modal = await published(call, 'announcements', {
    name: 'Timeline launch',
    type: 'MODAL',
    triggerConfig: on('/announcements/modal'),
    content: {
      title: 'New: Timeline view',
      body: 'Plan projects on a timeline, drag to reschedule, and see who is working on what this week.',
      imageUrl: '/timeline.svg',
      ctaLabel: 'Try Timeline',
      ctaUrl: '/projects',
    },
  });
  ids.banner = await published(call, 'announcements', {
    name: 'Maintenance banner',
    type: 'BANNER',
    triggerConfig: on('/announcements/banner'),
    content: {
      title: 'Scheduled maintenance',
      body: 'Sunday 02:00–03:00 UTC: Acme may be slow for a few minutes.',
    },
  });
  ids.slideout = await published(call, 'announcements', {
    name: 'March release notes',
    type: 'SLIDEOUT',
    triggerConfig: on('/announcements/slideout'),
    content: {
      title: "What's new in March",
      body: 'Timeline view for every project.\n\nFaster search across comments.\n\nDark mode, finally.',
    },
  });
  ids.toast = await published(call, 'announcements', {
    name: 'Export ready toast',
    type: 'TOAST',
    triggerConfig: on('/announcements/toast'),
    content: {
      title: 'Your export is ready',
      body: 'projects-march.csv was sent to your inbox.',
      duration: 60000,
    },
  });
  ids.survey = await published(call, 'surveys', {
    name: 'Help us improve the editor',
    triggerConfig: on('/feedback'),
    questions: [
      { key: 'rating', type: 'RATING', question: 'How would you rate the new editor?', required: true },
      {
        key: 'role',
        type: 'SINGLE_CHOICE',
        question: 'What is your role?',
        options: { choices: ['Engineering', 'Design', 'Product', 'Other'] },
      },
      { key: 'comment', type: 'TEXT', question: 'What should we improve first?' },
    ],
  });
  const nps = await call('POST', '/api/nps-surveys', {
    name: 'Quarterly NPS',
    siteId: DEMO_SITE,
    question: 'How likely are you to recommend Acme to a friend or colleague?',
    followUpQuestion: 'What is the main reason for your score?',
    triggerConfig: on('/nps'),
  });
  await call('POST', `/api/nps-surveys/${nps.id}/publish`);
  ids.nps = nps.id;
  ids.tasks = await published(call, 'task-lists', {
    name: 'Getting started',
    description: 'Four steps to a workspace your team will love.',
    items: [
      {
        title: 'Take the workspace setup guide',
        actionType: 'COMPLETE_FLOW',
        actionConfig: { flowId: setupFlowId },
      },
      { title: 'Browse your projects', actionType: 'NAVIGATE', actionConfig: { url: '/projects' } },
      { title: 'Search for a task', actionType: 'FILL_FORM', actionConfig: { selector: '#search' } },
      {
        title: 'Read the guide to Acme',
        actionType: 'EXTERNAL_LINK',
        actionConfig: { url: 'https://example.com/guide' },
      },
    ],
  });
  ids.help = await published(call, 'self-help', {
    name: 'Help center',
    config: { position: 'left', title: 'How can we help?' },
    items: {
      articles: [
        {
          title: 'Inviting teammates',
          body: 'Open Invite in the top bar, enter their emails and pick a role.',
        },
        {
          title: 'Importing from a spreadsheet',
          body: 'Projects → Import accepts CSV and XLSX files up to 10 MB.',
        },
        { title: 'Keyboard shortcuts', body: 'Press ? anywhere to see every shortcut.' },
      ],
      links: [{ title: 'Contact support', url: 'https://example.com/support' }],
    },
  });
  return { tourFlowId, setupFlowId, reportsTooltipId, ids };
}
