import type { Config } from '../../config.js';
import { type Resolver, systemResolver } from './sender.js';

/**
 * What the webhooks module keeps per app (`deps.state.webhooks`): how endpoint host names are
 * resolved (the system's resolver; an on-premise deployment, or a test of DNS rebinding, may
 * give its own), checked at save and again at every delivery.
 */
export interface WebhooksState {
  resolver: Resolver;
}

export const createWebhooksState = (_config: Config): WebhooksState => ({ resolver: systemResolver });

declare module '../../deps.js' {
  interface ModuleStates {
    /** The webhooks module's per-app state. */
    webhooks: WebhooksState;
  }
}
