import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/database.js';
import { listMigrations, migrate } from '../../db/migrate.js';
import { sameJson } from '../../platform/same-json.js';
import { findJourney, journeySnapshot, loadCanvas } from './records.js';

/**
 * Migration 0098 on data written before it: every journey that runs (PUBLISHED, PAUSED, or a
 * draft with enrollments in progress) has its current canvas as its live version — a new one when
 * it was edited since 0090's version 1 — mirrored on the row (`live_version`, `trigger_type` of
 * that version), and its enrollments run it. The snapshot is the one the service computes.
 */

const opened: TestDatabase[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
});

const T = '0190a000-0000-7000-8000-00000000bb01';
const SITE = '0190a000-0000-7000-8000-00000000bb02';
const EDITED = '0190a000-0000-7000-8000-00000000bb03';
const UNPUBLISHED = '0190a000-0000-7000-8000-00000000bb04';
const NEVER = '0190a000-0000-7000-8000-00000000bb05';
const USER = '0190a000-0000-7000-8000-00000000bb06';
const node = (n: number) => `0190a000-0000-7000-8000-0000000001${String(n).padStart(2, '0')}`;
const enrollment = (n: number) => `0190a000-0000-7000-8000-0000000002${String(n).padStart(2, '0')}`;

describe('migration 0098: journeys run versions', { timeout: 240_000 }, () => {
  it('versions the canvas each running journey has, pins its enrollments, and mirrors the live trigger', async () => {
    const db = await createTestDatabase({ migrated: false });
    opened.push(db);
    const files = listMigrations();
    await migrate(
      db.handle,
      files.filter((f) => f.name < '0098'),
    );
    const q = db.handle.query.bind(db.handle);
    await q(`insert into tenants (id, name, slug) values ($1, 'Old', 'old')`, [T]);
    await q(`insert into end_users (id, tenant_id, external_id, traits) values ($1, $2, 'u', '{}')`, [
      USER,
      T,
    ]);
    await q(
      `insert into journeys (id, tenant_id, site_id, name, status, settings, trigger_type, published_at) values
         ($1, $4, $5, 'Edited', 'PUBLISHED', '{"reentry":"never"}', 'CUSTOM_EVENT', now()),
         ($2, $4, $5, 'Unpublished', 'DRAFT', '{}', 'MANUAL', null),
         ($3, $4, $5, 'Never', 'DRAFT', '{}', 'MANUAL', null)`,
      [EDITED, UNPUBLISHED, NEVER, T, SITE],
    );
    const trigger = (type: string) => JSON.stringify({ triggerType: type, triggerConfig: {} });
    await q(
      `insert into journey_nodes (journey_id, id, tenant_id, ord, type, config, content_id, position) values
         ($1, $4, $3, 0, 'TRIGGER', $7, null, '{"x":0,"y":0}'),
         ($1, $5, $3, 1, 'EXIT', '{}', null, '{"x":0,"y":100}'),
         ($2, $6, $3, 0, 'TRIGGER', $8, null, '{"x":0,"y":0}')`,
      [EDITED, UNPUBLISHED, T, node(1), node(2), node(3), trigger('CUSTOM_EVENT'), trigger('MANUAL')],
    );
    await q(
      `insert into journey_edges (journey_id, ord, tenant_id, source_node_id, target_node_id) values ($1, 0, $2, $3, $4)`,
      [EDITED, T, node(1), node(2)],
    );
    // 0090's version 1 of the published journey: its canvas before an edit (a MANUAL trigger alone).
    await q(
      `insert into item_versions (tenant_id, item_type, item_id, version, snapshot) values ($1, 'journey', $2, 1, $3)`,
      [T, EDITED, JSON.stringify({ name: 'Edited', nodes: [{ id: node(1), type: 'TRIGGER' }], edges: [] })],
    );
    await q(
      `insert into live_item_versions (tenant_id, item_type, item_id, version, published_at) values ($1, 'journey', $2, 1, now())`,
      [T, EDITED],
    );
    await q(
      `insert into journey_enrollments (id, tenant_id, journey_id, end_user_id, status, state, enrolled_at, ended_at) values
         ($1, $4, $5, $7, 'in_progress', '{}', now(), null),
         ($2, $4, $6, $7, 'in_progress', '{}', now(), null),
         ($3, $4, $5, $7, 'completed', '{}', now(), now())`,
      [enrollment(1), enrollment(2), enrollment(3), T, EDITED, UNPUBLISHED, USER],
    );

    await migrate(db.handle, files);

    expect(await q('select item_id, version from item_versions order by item_id, version')).toEqual([
      { item_id: EDITED, version: 1 },
      { item_id: EDITED, version: 2 },
      { item_id: UNPUBLISHED, version: 1 },
    ]);
    expect(await q('select id, live_version, trigger_type from journeys order by id')).toEqual([
      { id: EDITED, live_version: 2, trigger_type: 'CUSTOM_EVENT' },
      { id: UNPUBLISHED, live_version: 1, trigger_type: 'MANUAL' },
      { id: NEVER, live_version: null, trigger_type: null },
    ]);
    expect(await q('select id, journey_version from journey_enrollments order by id')).toEqual([
      { id: enrollment(1), journey_version: 2 },
      { id: enrollment(2), journey_version: 1 },
      { id: enrollment(3), journey_version: 2 },
    ]);
    // The snapshot SQL wrote is the service's: the journey has no unpublished changes.
    const [live] = await q<{ snapshot: Record<string, unknown> }>(
      `select snapshot from item_versions where item_id = $1 and version = 2`,
      [EDITED],
    );
    const row = (await findJourney(db.handle.db, T, EDITED))!;
    expect(sameJson(live!.snapshot, journeySnapshot(row, await loadCanvas(db.handle.db, T, EDITED)))).toBe(
      true,
    );
  });
});
