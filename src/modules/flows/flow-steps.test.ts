import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import {
  auditEntries,
  callAs,
  createFlow,
  createTenant,
  TEST_SITE_ID,
  type TenantFixture,
} from '../../../test/helpers/factories.js';

let t: TestApp;
let acme: TenantFixture;

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t, { name: 'Acme' });
});
afterAll(() => t.close());

const SITE = TEST_SITE_ID;
const call = (method: Parameters<typeof callAs>[2], url: string, payload?: unknown) =>
  callAs(t, acme, method, url, payload);

interface Step {
  id: string;
  order: number;
  type: string;
  content: Record<string, unknown>;
  targetSelector: string | null;
  updatedAt: string;
}

/** A flow whose steps are MODALs titled s0..s(n-1), in that order. */
async function flowWithSteps(n: number) {
  const flow = await createFlow(t, acme, {
    name: 'Steps',
    template: 'CUSTOM',
    steps: Array.from({ length: n }, (_, i) => ({ type: 'MODAL', content: { title: `s${i}` } })),
  });
  return flow as unknown as { id: string; updatedAt: string; steps: Step[] };
}

async function steps(flowId: string): Promise<Step[]> {
  const res = await call('GET', `/api/flows/${flowId}/steps`);
  expect(res.statusCode).toBe(200);
  return res.json().data;
}

/** Titles in order, after asserting that `order` is exactly 0..n-1. */
async function titles(flowId: string): Promise<string[]> {
  const list = await steps(flowId);
  expect(list.map((s) => s.order)).toEqual(list.map((_, i) => i));
  return list.map((s) => String(s.content.title));
}

describe('step CRUD', () => {
  it('adds, reads, updates and deletes a step', async () => {
    const flow = await flowWithSteps(0);
    const created = await call('POST', `/api/flows/${flow.id}/steps`, {
      type: 'TOOLTIP',
      targetSelector: '.btn-primary',
      content: { title: 'Click here', body: 'to save' },
      settings: { placement: 'bottom' },
      extra: 'stripped',
    });
    expect(created.statusCode, created.body).toBe(201);
    const step = created.json().data;
    expect(step).toEqual({
      id: expect.any(String),
      flowId: flow.id,
      tenantId: acme.tenantId,
      type: 'TOOLTIP',
      order: 0,
      targetSelector: '.btn-primary',
      targetFingerprint: null,
      content: { title: 'Click here', body: 'to save' },
      settings: { placement: 'bottom' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const got = await call('GET', `/api/flows/${flow.id}/steps/${step.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(step);

    const patched = await call('PATCH', `/api/flows/${flow.id}/steps/${step.id}`, {
      type: 'BEACON',
      targetSelector: null,
      content: { title: 'New' },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({
      id: step.id,
      type: 'BEACON',
      targetSelector: null,
      content: { title: 'New' },
      settings: { placement: 'bottom' },
      order: 0,
    });

    const flowAfter = (await call('GET', `/api/flows/${flow.id}`)).json().data;
    expect(flowAfter.steps).toEqual([patched.json().data]);

    const del = await call('DELETE', `/api/flows/${flow.id}/steps/${step.id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expectError(await call('GET', `/api/flows/${flow.id}/steps/${step.id}`), 404, 'CONTENT_NOT_FOUND');
    expectError(await call('DELETE', `/api/flows/${flow.id}/steps/${step.id}`), 404, 'CONTENT_NOT_FOUND');
    expect(await steps(flow.id)).toEqual([]);
  });

  it('validates step bodies with exact paths', async () => {
    const flow = await flowWithSteps(1);
    const stepId = flow.steps[0]!.id;
    for (const [payload, path] of [
      [{}, 'type'],
      [{ type: 'POPUP' }, 'type'],
      [{ type: 'MODAL', order: -1 }, 'order'],
      [{ type: 'MODAL', order: 1.5 }, 'order'],
      [{ type: 'MODAL', order: '1' }, 'order'],
      [{ type: 'MODAL', targetSelector: 'x'.repeat(1001) }, 'targetSelector'],
      [{ type: 'MODAL', content: 'title' }, 'content'],
      [{ type: 'MODAL', settings: [1] }, 'settings'],
    ] as const) {
      const err = expectError(
        await call('POST', `/api/flows/${flow.id}/steps`, payload),
        400,
        'VALIDATION_ERROR',
      );
      expect(err.details, JSON.stringify(payload)).toContainEqual({ path, message: expect.any(String) });
    }
    for (const [payload, path] of [
      [{ type: 'POPUP' }, 'type'],
      [{ order: -1 }, 'order'],
      [{ content: null }, 'content'],
    ] as const) {
      const err = expectError(
        await call('PATCH', `/api/flows/${flow.id}/steps/${stepId}`, payload),
        400,
        'VALIDATION_ERROR',
      );
      expect(err.details, JSON.stringify(payload)).toContainEqual({ path, message: expect.any(String) });
    }
    expect(await titles(flow.id)).toEqual(['s0']);
  });

  it('bumps the flow updatedAt and writes FLOW_UPDATED for every step write', async () => {
    const flow = await flowWithSteps(2);
    const [s0, s1] = flow.steps;
    let at = Date.now() + 60_000;
    t.clock.set(at);
    const updatedAt = async () => (await call('GET', `/api/flows/${flow.id}`)).json().data.updatedAt;
    try {
      const writes: [Parameters<typeof call>[0], string, unknown, number][] = [
        ['POST', `/api/flows/${flow.id}/steps`, { type: 'WAIT' }, 201],
        ['PATCH', `/api/flows/${flow.id}/steps/${s0!.id}`, { order: 1 }, 200],
        ['POST', `/api/flows/${flow.id}/steps/reorder`, { stepIds: [] }, 400],
        ['DELETE', `/api/flows/${flow.id}/steps/${s1!.id}`, undefined, 204],
      ];
      for (const [method, url, payload, status] of writes) {
        at += 1000;
        t.clock.set(at);
        expect((await call(method, url, payload)).statusCode).toBe(status);
        if (status < 300) expect(await updatedAt()).toBe(new Date(at).toISOString());
      }
      const rest = await steps(flow.id);
      at += 1000;
      t.clock.set(at);
      expect(
        (
          await call('POST', `/api/flows/${flow.id}/steps/reorder`, {
            stepIds: rest.map((s) => s.id).reverse(),
          })
        ).statusCode,
      ).toBe(200);
      expect(await updatedAt()).toBe(new Date(at).toISOString());
    } finally {
      t.clock.set(Date.now());
    }
    const rows = await auditEntries(t, acme.tenantId, { action: 'FLOW_UPDATED', entityId: flow.id });
    expect(rows.map((r) => (r.metadata as { operation: string }).operation)).toEqual([
      'step_added',
      'step_updated',
      'step_deleted',
      'steps_reordered',
    ]);
    expect(rows.every((r) => (r.metadata as { changed: string[] }).changed.includes('steps'))).toBe(true);
  });

  it('answers a PATCH that changes nothing with the step as it is, writing nothing', async () => {
    const created = await call('POST', '/api/flows', {
      name: 'No-op',
      siteId: SITE,
      template: 'CUSTOM',
      steps: [
        { type: 'MODAL', content: { title: 's0' } },
        {
          type: 'TOOLTIP',
          targetSelector: '#save',
          content: { title: 's1', body: { text: 'x', list: [1, 2] } },
          settings: { placement: 'top', offset: 4 },
        },
      ],
    });
    expect(created.statusCode, created.body).toBe(201);
    const flow = created.json().data as { id: string; updatedAt: string; steps: Step[] };
    const step = flow.steps[1]!;
    const at = Date.parse(flow.updatedAt) + 3_600_000;
    t.clock.set(at);
    try {
      for (const payload of [
        {},
        { type: 'TOOLTIP', targetSelector: '#save', order: 1 },
        // objects compared as JSON, whatever the order of their keys
        {
          content: { body: { list: [1, 2], text: 'x' }, title: 's1' },
          settings: { offset: 4, placement: 'top' },
        },
        // past the end of the last step: it stays where it is
        { order: 99 },
      ]) {
        const res = await call('PATCH', `/api/flows/${flow.id}/steps/${step.id}`, payload);
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json().data, JSON.stringify(payload)).toEqual(step);
      }
      const after = (await call('GET', `/api/flows/${flow.id}`)).json().data;
      expect(after.updatedAt).toBe(flow.updatedAt);
      expect(after.steps).toEqual(flow.steps);
      const audited = await auditEntries(t, acme.tenantId, { action: 'FLOW_UPDATED', entityId: flow.id });
      expect(audited).toEqual([]);

      const changed = await call('PATCH', `/api/flows/${flow.id}/steps/${step.id}`, {
        type: 'TOOLTIP',
        settings: { placement: 'bottom', offset: 4 },
      });
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json().data).toEqual({
        ...step,
        settings: { placement: 'bottom', offset: 4 },
        updatedAt: new Date(at).toISOString(),
      });
      expect((await call('GET', `/api/flows/${flow.id}`)).json().data.updatedAt).toBe(
        new Date(at).toISOString(),
      );
      const rows = await auditEntries(t, acme.tenantId, { action: 'FLOW_UPDATED', entityId: flow.id });
      expect(rows.map((r) => r.metadata)).toEqual([
        { changed: ['steps'], operation: 'step_updated', stepId: step.id, fields: ['settings'] },
      ]);
    } finally {
      t.clock.set(Date.now());
    }
  });

  it('lets the steps of an archived flow be edited', async () => {
    const flow = await flowWithSteps(1);
    expect((await call('POST', `/api/flows/${flow.id}/archive`)).statusCode).toBe(200);
    expect(
      (await call('POST', `/api/flows/${flow.id}/steps`, { type: 'MODAL', content: { title: 'x' } }))
        .statusCode,
    ).toBe(201);
    expect(await titles(flow.id)).toEqual(['s0', 'x']);
  });
});

describe('step order stays 0..n-1', () => {
  it('inserts at a position, shifting the rest; absent or past the end appends', async () => {
    const flow = await flowWithSteps(3);
    const add = async (title: string, order?: number) => {
      const res = await call('POST', `/api/flows/${flow.id}/steps`, {
        type: 'MODAL',
        content: { title },
        ...(order === undefined ? {} : { order }),
      });
      expect(res.statusCode).toBe(201);
      return res.json().data as Step;
    };
    expect((await add('first', 0)).order).toBe(0);
    expect(await titles(flow.id)).toEqual(['first', 's0', 's1', 's2']);
    expect((await add('mid', 2)).order).toBe(2);
    expect(await titles(flow.id)).toEqual(['first', 's0', 'mid', 's1', 's2']);
    expect((await add('end')).order).toBe(5);
    expect((await add('far', 99)).order).toBe(6);
    expect((await add('exact', 7)).order).toBe(7);
    expect(await titles(flow.id)).toEqual(['first', 's0', 'mid', 's1', 's2', 'end', 'far', 'exact']);
  });

  it('closes the gap on delete', async () => {
    const flow = await flowWithSteps(5);
    await call('DELETE', `/api/flows/${flow.id}/steps/${flow.steps[1]!.id}`);
    expect(await titles(flow.id)).toEqual(['s0', 's2', 's3', 's4']);
    await call('DELETE', `/api/flows/${flow.id}/steps/${flow.steps[0]!.id}`);
    await call('DELETE', `/api/flows/${flow.id}/steps/${flow.steps[4]!.id}`);
    expect(await titles(flow.id)).toEqual(['s2', 's3']);
  });

  it('moves a step with PATCH order, forwards, backwards, past the end and in place', async () => {
    const flow = await flowWithSteps(5);
    const [s0, s1, , s3, s4] = flow.steps;
    const move = async (step: Step, order: number) => {
      const res = await call('PATCH', `/api/flows/${flow.id}/steps/${step.id}`, { order });
      expect(res.statusCode).toBe(200);
      return res.json().data as Step;
    };
    expect((await move(s0!, 3)).order).toBe(3);
    expect(await titles(flow.id)).toEqual(['s1', 's2', 's3', 's0', 's4']);
    expect((await move(s4!, 0)).order).toBe(0);
    expect(await titles(flow.id)).toEqual(['s4', 's1', 's2', 's3', 's0']);
    expect((await move(s1!, 100)).order).toBe(4);
    expect(await titles(flow.id)).toEqual(['s4', 's2', 's3', 's0', 's1']);
    expect((await move(s3!, 2)).order).toBe(2);
    expect(await titles(flow.id)).toEqual(['s4', 's2', 's3', 's0', 's1']);
  });

  it('reorders to an exact permutation and answers the steps in the new order', async () => {
    const flow = await flowWithSteps(4);
    const ids = flow.steps.map((s) => s.id);
    const next = [ids[2]!, ids[0]!, ids[3]!, ids[1]!];
    const res = await call('POST', `/api/flows/${flow.id}/steps/reorder`, { stepIds: next });
    expect(res.statusCode).toBe(200);
    const data = res.json().data as Step[];
    expect(data.map((s) => s.id)).toEqual(next);
    expect(data.map((s) => s.order)).toEqual([0, 1, 2, 3]);
    expect(data).toEqual(await steps(flow.id));
    expect(await titles(flow.id)).toEqual(['s2', 's0', 's3', 's1']);
    // The same order again is fine.
    expect((await call('POST', `/api/flows/${flow.id}/steps/reorder`, { stepIds: next })).statusCode).toBe(
      200,
    );
    const empty = await flowWithSteps(0);
    const none = await call('POST', `/api/flows/${empty.id}/steps/reorder`, { stepIds: [] });
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ data: [] });
  });

  it('answers a reorder that moves nothing with the steps as they are, writing nothing', async () => {
    const flow = await flowWithSteps(3);
    t.clock.set(Date.parse(flow.updatedAt) + 3_600_000);
    try {
      const res = await call('POST', `/api/flows/${flow.id}/steps/reorder`, {
        stepIds: flow.steps.map((s) => s.id),
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toEqual(flow.steps);
    } finally {
      t.clock.set(Date.now());
    }
    const after = (await call('GET', `/api/flows/${flow.id}`)).json().data;
    expect(after.updatedAt).toBe(flow.updatedAt);
    expect(after.steps).toEqual(flow.steps);
    const audited = await auditEntries(t, acme.tenantId, { action: 'FLOW_UPDATED', entityId: flow.id });
    expect(audited).toEqual([]);
  });

  it('refuses anything but an exact permutation with 400 at stepIds', async () => {
    const flow = await flowWithSteps(3);
    const otherFlow = await flowWithSteps(1);
    const ids = flow.steps.map((s) => s.id);
    const foreign = otherFlow.steps[0]!.id;
    for (const stepIds of [
      [ids[0], ids[1]],
      [...ids, foreign],
      [ids[0], ids[1], foreign],
      [ids[0], ids[1], ids[1]],
      [ids[0], ids[1], ids[2], ids[2]],
      [ids[0], ids[1], 'not-a-uuid'],
      [],
    ]) {
      const err = expectError(
        await call('POST', `/api/flows/${flow.id}/steps/reorder`, { stepIds }),
        400,
        'VALIDATION_ERROR',
      );
      expect(err.details).toEqual([{ path: 'stepIds', message: expect.any(String) }]);
    }
    for (const body of [{}, { stepIds: 'a,b' }, { stepIds: [1, 2] }]) {
      const err = expectError(
        await call('POST', `/api/flows/${flow.id}/steps/reorder`, body),
        400,
        'VALIDATION_ERROR',
      );
      expect(JSON.stringify(err.details)).toContain('stepIds');
    }
    expect(await titles(flow.id)).toEqual(['s0', 's1', 's2']);
    expect(await titles(otherFlow.id)).toEqual(['s0']);
  });

  it('keeps order contiguous through a random mix of operations', async () => {
    const flow = await flowWithSteps(3);
    let model = ['s0', 's1', 's2'];
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 30; i++) {
      const current = await steps(flow.id);
      expect(current.map((s) => String(s.content.title))).toEqual(model);
      const op = model.length === 0 ? 0 : rand(4);
      if (op === 0) {
        const at = rand(model.length + 2);
        const title = `n${i}`;
        await call('POST', `/api/flows/${flow.id}/steps`, { type: 'WAIT', content: { title }, order: at });
        model.splice(Math.min(at, model.length), 0, title);
      } else if (op === 1) {
        const k = rand(model.length);
        await call('DELETE', `/api/flows/${flow.id}/steps/${current[k]!.id}`);
        model.splice(k, 1);
      } else if (op === 2) {
        const k = rand(model.length);
        const to = rand(model.length + 1);
        await call('PATCH', `/api/flows/${flow.id}/steps/${current[k]!.id}`, { order: to });
        const [m] = model.splice(k, 1);
        model.splice(Math.min(to, model.length), 0, m!);
      } else {
        const perm = current.map((s, j) => ({ s, key: rand(1000) + j / 1000 })).sort((a, b) => a.key - b.key);
        await call('POST', `/api/flows/${flow.id}/steps/reorder`, { stepIds: perm.map((p) => p.s.id) });
        model = perm.map((p) => String(p.s.content.title));
      }
    }
    expect(await titles(flow.id)).toEqual(model);
  });

  it('serialises concurrent inserts on one flow', async () => {
    const flow = await flowWithSteps(0);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('POST', `/api/flows/${flow.id}/steps`, { type: 'MODAL', content: { title: `c${i}` }, order: 0 }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(201));
    const list = await titles(flow.id);
    expect(list.sort()).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
  });
});
