import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/database.js';
import { listMigrations, migrate } from '../../db/migrate.js';
import { sameJson } from '../../platform/same-json.js';
import { contentSnapshot } from '../content/records.js';
import { flowSnapshot } from '../flows/records.js';

/**
 * Migration 0090 on data written before it: every published flow, content item and journey gets
 * version 1, live; every audience version 1; drafts none. The snapshots SQL writes are the ones
 * the service computes from the same rows, so no migrated item reads as having unpublished changes.
 */

const opened: TestDatabase[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
});

const T = '0190a000-0000-7000-8000-00000000aa01';
const SITE = '0190a000-0000-7000-8000-00000000aa02';
const FLOW = '0190a000-0000-7000-8000-00000000aa03';
const DRAFT = '0190a000-0000-7000-8000-00000000aa04';
const STEP1 = '0190a000-0000-7000-8000-00000000aa05';
const STEP2 = '0190a000-0000-7000-8000-00000000aa06';
const ITEM = '0190a000-0000-7000-8000-00000000aa07';
const JOURNEY = '0190a000-0000-7000-8000-00000000aa08';
const NODE = '0190a000-0000-7000-8000-00000000aa09';
const AUD = '0190a000-0000-7000-8000-00000000aa0a';

describe('migration 0090: existing data gets version 1', { timeout: 240_000 }, () => {
  it('versions every published item and every audience, as the service would snapshot them', async () => {
    const db = await createTestDatabase({ migrated: false });
    opened.push(db);
    const files = listMigrations();
    await migrate(
      db.handle,
      files.filter((f) => f.name < '0090'),
    );
    const q = db.handle.query.bind(db.handle);
    await q(`insert into tenants (id, name, slug) values ($1, 'Old', 'old')`, [T]);
    await q(
      `insert into flows (id, tenant_id, site_id, name, description, template, status, settings, trigger, published_at)
       values ($1, $2, $3, 'Tour', null, 'PRODUCT_TOUR', 'PUBLISHED', '{"color":"blue"}', '{"type":"MANUAL"}', now()),
              ($4, $2, $3, 'Draft', 'd', 'CUSTOM', 'DRAFT', '{}', null, null)`,
      [FLOW, T, SITE, DRAFT],
    );
    await q(
      `insert into flow_steps (id, tenant_id, flow_id, "order", type, target_selector, content, settings)
       values ($1, $3, $4, 1, 'TOOLTIP', '#b', '{"title":"Two"}', '{}'),
              ($2, $3, $4, 0, 'MODAL', null, '{"title":"One"}', '{"x":1}')`,
      [STEP2, STEP1, T, FLOW],
    );
    await q(
      `insert into content_items (id, tenant_id, type, name, site_id, status, target_url, body, published_at)
       values ($1, $2, 'tooltips', 'Tip', $3, 'PUBLISHED', '/x', '{"content":{"text":"Hi"}}', now())`,
      [ITEM, T, SITE],
    );
    await q(
      `insert into journeys (id, tenant_id, site_id, name, status, settings) values ($1, $2, $3, 'J', 'PAUSED', '{}')`,
      [JOURNEY, T, SITE],
    );
    await q(
      `insert into journey_nodes (journey_id, id, tenant_id, ord, type, config, position)
       values ($1, $2, $3, 0, 'TRIGGER', '{"triggerType":"session_start"}', '{"x":0,"y":0}')`,
      [JOURNEY, NODE, T],
    );
    await q(
      `insert into audiences (id, tenant_id, name, rule_tree) values ($1, $2, 'Pro', '{"field":"traits.plan","operator":"eq","value":"pro"}')`,
      [AUD, T],
    );

    await migrate(db.handle, files);

    const versions = await q<{
      item_type: string;
      item_id: string;
      version: number;
      snapshot: Record<string, unknown>;
    }>('select item_type, item_id, version, snapshot from item_versions order by item_type');
    expect(versions.map((v) => [v.item_type, v.item_id, v.version])).toEqual([
      ['audience', AUD, 1],
      ['content', ITEM, 1],
      ['flow', FLOW, 1],
      ['journey', JOURNEY, 1],
    ]);
    const live = await q<{ item_type: string; version: number }>(
      'select item_type, version from live_item_versions order by item_type',
    );
    expect(live).toEqual([
      { item_type: 'content', version: 1 },
      { item_type: 'flow', version: 1 },
      { item_type: 'journey', version: 1 },
    ]);

    // The same snapshot the service takes from these rows.
    const [flow] = await q<Record<string, unknown>>(
      `select name, description, site_id as "siteId", template, audience_id as "audienceId", settings, trigger from flows where id = $1`,
      [FLOW],
    );
    const steps = await q<Record<string, unknown>>(
      `select id, type, target_selector as "targetSelector", content, settings from flow_steps where flow_id = $1 order by "order"`,
      [FLOW],
    );
    const flowSnap = versions.find((v) => v.item_type === 'flow')!.snapshot;
    expect(sameJson(flowSnap, flowSnapshot(flow as never, steps as never))).toBe(true);
    expect((flowSnap.steps as { id: string }[]).map((s) => s.id)).toEqual([STEP1, STEP2]);
    const [item] = await q<Record<string, unknown>>(
      `select name, site_id as "siteId", audience_id as "audienceId", trigger_config as "triggerConfig", target_url as "targetUrl", body from content_items where id = $1`,
      [ITEM],
    );
    expect(
      sameJson(versions.find((v) => v.item_type === 'content')!.snapshot, contentSnapshot(item as never)),
    ).toBe(true);
    expect(versions.find((v) => v.item_type === 'journey')!.snapshot).toMatchObject({
      name: 'J',
      nodes: [{ id: NODE, type: 'TRIGGER', config: { triggerType: 'session_start' } }],
      edges: [],
    });
    expect(versions.find((v) => v.item_type === 'audience')!.snapshot).toEqual({
      name: 'Pro',
      description: null,
      ruleTree: { field: 'traits.plan', operator: 'eq', value: 'pro' },
    });
  });
});
