import { randomFillSync } from 'node:crypto';
import { V7Generator } from 'uuidv7';

/**
 * Random bits for ids drawn from a 4 kB pool: the library's default refills 32 bytes at a time,
 * one `getRandomValues` call per few ids (1.5% of a session request's CPU).
 */
class PooledRandom {
  private readonly pool = new Uint32Array(1024);
  private cursor = this.pool.length;
  nextUint32(): number {
    if (this.cursor === this.pool.length) {
      randomFillSync(this.pool);
      this.cursor = 0;
    }
    return this.pool[this.cursor++]!;
  }
}

const generator = new V7Generator(new PooledRandom());

export const newId = (): string => generator.generate().toString();

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path ids are opaque: anything that is not a uuid simply matches no record (DECISIONS §1). */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_RE.test(value);
