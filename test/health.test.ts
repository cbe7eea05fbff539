import { describe, expect, it } from 'vitest';
import { createTestApp } from './helpers/app.js';

/** DECISIONS §4: `GET /api/health` answers 503 `degraded` when the database is unreachable. */
describe('GET /api/health without a database', () => {
  it('answers 503 degraded with the database check down', async () => {
    const t = await createTestApp();
    try {
      expect((await t.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
      await t.deps.database.close();
      const res = await t.inject({ method: 'GET', url: '/api/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json().data).toMatchObject({ status: 'degraded', checks: { database: 'down' } });
    } finally {
      await t.close();
    }
  });
});
