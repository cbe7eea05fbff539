import { describe, expect, it } from 'vitest';
import { node } from '../../../../test/helpers/journeys.js';
import type { GoalConfig, NodeOf, Reentry } from './schemas.js';
import {
  enrollRefusal,
  eventMatchesName,
  goalMet,
  type JourneyEvent,
  mayEnroll,
  type PreviousEnrollment,
  triggerMatches,
} from './triggers.js';

const FLOW_ID = '0190a2b4-1c2d-7e8f-9a0b-000000000001';
const trigger = (config: NodeOf<'TRIGGER'>['config']) => node.trigger('t', config) as NodeOf<'TRIGGER'>;
const custom = (name: string, extra: Partial<JourneyEvent> = {}): JourneyEvent => ({
  type: 'CUSTOM',
  name,
  ...extra,
});
const pageView = (url?: string, properties?: Record<string, unknown>): JourneyEvent => ({
  type: 'PAGE_VIEW',
  ...(url !== undefined ? { url } : {}),
  ...(properties ? { properties } : {}),
});
const sessionStart = (url: string): JourneyEvent => ({
  type: 'SDK_INIT',
  url,
  properties: { source: 'session' },
});

describe('triggerMatches', () => {
  it('CUSTOM_EVENT fires on a CUSTOM event with that name only', () => {
    const t = trigger({ triggerType: 'CUSTOM_EVENT', triggerConfig: { eventName: 'signed_up' } });
    expect(triggerMatches(t, custom('signed_up'))).toBe(true);
    expect(triggerMatches(t, custom('Signed_up'))).toBe(false);
    expect(triggerMatches(t, custom('signed_up_late'))).toBe(false);
    // a built-in event of another type carrying that name does not count
    expect(triggerMatches(t, { type: 'PAGE_VIEW', name: 'signed_up' })).toBe(false);
    expect(triggerMatches(t, { type: 'CUSTOM' })).toBe(false);
  });

  it('URL_MATCH fires on a PAGE_VIEW or a session start on a matching page', () => {
    const t = trigger({ triggerType: 'URL_MATCH', triggerConfig: { pattern: '/projects' } });
    expect(triggerMatches(t, pageView('https://app.example.com/projects/1'))).toBe(true);
    expect(triggerMatches(t, sessionStart('https://app.example.com/projects'))).toBe(true);
    expect(triggerMatches(t, pageView('https://app.example.com/settings'))).toBe(false);
    // PAGE_VIEW without url: its properties.path stands in
    expect(triggerMatches(t, pageView(undefined, { path: '/projects/9' }))).toBe(true);
    expect(triggerMatches(t, pageView(undefined, { path: 42 }))).toBe(false);
    expect(triggerMatches(t, pageView())).toBe(false);
    // other event types on the page do not count, nor an SDK_INIT that is not a session start
    expect(triggerMatches(t, { type: 'CLICK', url: 'https://app.example.com/projects' })).toBe(false);
    expect(triggerMatches(t, { type: 'SDK_INIT', url: 'https://app.example.com/projects' })).toBe(false);
  });

  it('URL_MATCH honours the match type', () => {
    const t = (matchType: 'equals' | 'regex' | 'glob', pattern: string) =>
      trigger({ triggerType: 'URL_MATCH', triggerConfig: { matchType, pattern } });
    const url = 'https://app.example.com/projects/42/settings';
    expect(triggerMatches(t('equals', url), pageView(url))).toBe(true);
    expect(triggerMatches(t('equals', '/projects'), pageView(url))).toBe(false);
    expect(triggerMatches(t('regex', '/projects/\\d+/'), pageView(url))).toBe(true);
    expect(triggerMatches(t('glob', 'https://app.example.com/projects/*/settings'), pageView(url))).toBe(
      true,
    );
    expect(triggerMatches(t('glob', 'https://app.example.com/*/settings'), pageView(url))).toBe(false);
  });

  it('ELEMENT_CLICK fires on a CLICK whose properties.selector is the selector', () => {
    const t = trigger({ triggerType: 'ELEMENT_CLICK', triggerConfig: { selector: '#new-project' } });
    expect(triggerMatches(t, { type: 'CLICK', properties: { selector: '#new-project' } })).toBe(true);
    expect(triggerMatches(t, { type: 'CLICK', properties: { selector: '#new-project ' } })).toBe(false);
    expect(triggerMatches(t, { type: 'CLICK', properties: { id: 'new-project' } })).toBe(false);
    expect(triggerMatches(t, { type: 'CLICK' })).toBe(false);
    expect(triggerMatches(t, { type: 'RAGE_CLICK', properties: { selector: '#new-project' } })).toBe(false);
  });

  it('MANUAL never fires from events', () => {
    const t = trigger({ triggerType: 'MANUAL', triggerConfig: {} });
    for (const e of [custom('x'), pageView('/'), sessionStart('/'), { type: 'CLICK' }]) {
      expect(triggerMatches(t, e)).toBe(false);
    }
  });
});

describe('eventMatchesName', () => {
  it('matches CUSTOM events by name and built-in events by type', () => {
    expect(eventMatchesName('paid', custom('paid'))).toBe(true);
    expect(eventMatchesName('paid', custom('unpaid'))).toBe(false);
    expect(eventMatchesName('FLOW_COMPLETED', { type: 'FLOW_COMPLETED' })).toBe(true);
    expect(eventMatchesName('FLOW_COMPLETED', { type: 'FLOW_STARTED' })).toBe(false);
    expect(eventMatchesName('CUSTOM', custom('x'))).toBe(false);
  });
});

describe('goalMet', () => {
  it('event: an event matching the name', () => {
    const goal: GoalConfig = { type: 'event', config: { eventName: 'project_created' } };
    expect(goalMet(goal, { event: custom('project_created') })).toBe(true);
    expect(goalMet(goal, { event: custom('project_deleted') })).toBe(false);
    expect(goalMet(goal, {})).toBe(false);
  });

  it('page_visit: a PAGE_VIEW or session start on a matching page', () => {
    const goal: GoalConfig = { type: 'page_visit', config: { matchType: 'ends_with', pattern: '/billing' } };
    expect(goalMet(goal, { event: pageView('https://a.example/settings/billing') })).toBe(true);
    expect(goalMet(goal, { event: sessionStart('https://a.example/settings/billing') })).toBe(true);
    expect(goalMet(goal, { event: pageView('https://a.example/settings') })).toBe(false);
    expect(goalMet(goal, { event: custom('x', { url: 'https://a.example/billing' }) })).toBe(false);
  });

  it('flow_completed: FLOW_COMPLETED with properties.flowId', () => {
    const goal: GoalConfig = { type: 'flow_completed', config: { flowId: FLOW_ID } };
    expect(goalMet(goal, { event: { type: 'FLOW_COMPLETED', properties: { flowId: FLOW_ID } } })).toBe(true);
    expect(goalMet(goal, { event: { type: 'FLOW_COMPLETED', properties: { flowId: 'other' } } })).toBe(false);
    expect(goalMet(goal, { event: { type: 'FLOW_SKIPPED', properties: { flowId: FLOW_ID } } })).toBe(false);
    expect(goalMet(goal, { event: { type: 'FLOW_COMPLETED' } })).toBe(false);
  });

  it('attribute_match: the rule tree on the current traits, not on events', () => {
    const goal: GoalConfig = {
      type: 'attribute_match',
      config: {
        ruleTree: {
          logicalOperator: 'AND',
          rules: [
            { field: 'traits.plan', operator: 'in', value: ['pro', 'team'] },
            { field: 'traits.projects', operator: 'gte', value: 1 },
          ],
        },
      },
    };
    expect(goalMet(goal, { context: { traits: { plan: 'pro', projects: 2 } } })).toBe(true);
    expect(goalMet(goal, { context: { traits: { plan: 'pro', projects: 0 } } })).toBe(false);
    expect(goalMet(goal, { context: { traits: {} } })).toBe(false);
    expect(goalMet(goal, { event: custom('plan', { properties: { plan: 'pro', projects: 2 } }) })).toBe(
      false,
    );
  });
});

describe('mayEnroll (re-entry)', () => {
  const NOW = Date.UTC(2026, 0, 10);
  const HOUR = 3_600_000;
  const ended = (endedAt: number, status = 'completed'): PreviousEnrollment => ({
    status,
    enrolledAt: endedAt - HOUR,
    endedAt,
  });
  const inProgress: PreviousEnrollment = { status: 'in_progress', enrolledAt: NOW - HOUR, endedAt: null };
  const modes: Reentry[] = ['never', 'after_exit', { cooldownMs: 0 }, { cooldownMs: HOUR }];

  it('a first enrollment is always allowed', () => {
    for (const mode of modes) expect(mayEnroll(mode, [], NOW)).toBe(true);
  });

  it('nobody is enrolled twice at once, whatever the mode', () => {
    for (const mode of modes) {
      expect(enrollRefusal(mode, [inProgress], NOW)).toBe('in_progress');
      expect(enrollRefusal(mode, [ended(NOW - 10 * HOUR), inProgress], NOW)).toBe('in_progress');
    }
  });

  it('never: only once, however the first ended', () => {
    for (const status of ['completed', 'goal_reached', 'abandoned', 'stopped']) {
      expect(enrollRefusal('never', [ended(NOW - 1000 * HOUR, status)], NOW)).toBe('already_enrolled');
    }
  });

  it('after_exit: again as soon as the last has ended', () => {
    expect(mayEnroll('after_exit', [ended(NOW)], NOW)).toBe(true);
    expect(mayEnroll('after_exit', [ended(NOW - HOUR), ended(NOW - 2 * HOUR, 'stopped')], NOW)).toBe(true);
  });

  it('cooldown: again once the latest end is at least cooldownMs ago', () => {
    const mode = { cooldownMs: HOUR };
    expect(enrollRefusal(mode, [ended(NOW - HOUR + 1)], NOW)).toBe('cooldown');
    expect(enrollRefusal(mode, [ended(NOW - HOUR)], NOW)).toBe(null);
    // the most recent end counts, in any order
    expect(enrollRefusal(mode, [ended(NOW - 30 * 60_000), ended(NOW - 5 * HOUR)], NOW)).toBe('cooldown');
    expect(enrollRefusal(mode, [ended(NOW - 5 * HOUR), ended(NOW - 30 * 60_000)], NOW)).toBe('cooldown');
    // without endedAt the enrollment time stands in
    expect(enrollRefusal(mode, [{ status: 'stopped', enrolledAt: NOW - 10, endedAt: null }], NOW)).toBe(
      'cooldown',
    );
    expect(mayEnroll({ cooldownMs: 0 }, [ended(NOW)], NOW)).toBe(true);
  });

  it('copes with very many previous enrollments', () => {
    const many = Array.from({ length: 200_000 }, (_, i) => ended(NOW - (i + 2) * HOUR));
    expect(mayEnroll({ cooldownMs: HOUR }, many, NOW)).toBe(true);
  });
});
