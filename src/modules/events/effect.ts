import type { Logger } from 'pino';
import type { Executor } from '../../db/client.js';
import type { StoredEvent } from './types.js';

/** A stored batch as processing sees it, with its events parsed and duplicates removed. */
export interface ProcessedBatch {
  id: string;
  tenantId: string;
  correlationId: string;
  events: StoredEvent[];
  /** Child logger carrying the batch's correlationId. */
  log: Logger;
}

export interface EffectContext {
  /**
   * Parks an event that cannot be applied, with the reason, instead of failing the batch. The
   * chunk's dead letters are written together after the effects, in the same transaction.
   */
  deadLetter(batch: ProcessedBatch, event: StoredEvent, reason: string): void;
  /**
   * State an effect keeps from chunk to chunk in this app (one value per key, made by the key's
   * `create` on first use), e.g. a cache of facts already committed. The chunk's transaction may
   * still roll back: keep only what holds whether it commits or not.
   */
  memo<T>(key: MemoKey<T>): T;
}

/** A piece of effect state (`EffectContext.memo`): the key object itself identifies it. */
export interface MemoKey<T> {
  create(): T;
}

/**
 * One consequence of accepted events (end-user activity, survey responses, analytics rollups).
 * Effects run inside the transaction that marks the batches processed, so each batch's effects
 * commit exactly once, together, or not at all.
 */
export interface EventEffect {
  name: string;
  /** Effects whose writes this one reads (e.g. the end users created by `end-user-activity`): they must come first. */
  runsAfter?: readonly string[];
  apply(tx: Executor, batches: ProcessedBatch[], ctx: EffectContext): Promise<void>;
}

/**
 * Effects run in the order of the manifests (`modules/index.ts`) and, within one, in the order
 * it lists them. That order is checked against every effect's `runsAfter` when the app starts.
 */
export function checkEffectOrder(effects: readonly EventEffect[]): void {
  const seen = new Set<string>();
  for (const effect of effects) {
    if (seen.has(effect.name)) throw new Error(`event effect ${effect.name} is registered twice`);
    for (const before of effect.runsAfter ?? []) {
      if (!seen.has(before)) {
        const present = effects.some((e) => e.name === before);
        throw new Error(
          present
            ? `event effect ${effect.name} must run after ${before}: list its module after ${before}'s in modules/index.ts`
            : `event effect ${effect.name} runs after ${before}, which no module contributes`,
        );
      }
    }
    seen.add(effect.name);
  }
}

declare module '../../deps.js' {
  interface SeamContracts {
    /** A module's reaction to accepted events (its manifest's `effects`). */
    eventEffect: EventEffect;
  }
}
