import type { ModuleManifest } from '../../deps.js';
import { deliverPasswordResets } from './password-reset.js';
import { authRoutes } from './routes.js';

export const authModule: ModuleManifest = {
  name: 'auth',
  routes: authRoutes,
  tags: [{ name: 'auth', description: 'Sign-up, sign-in, sessions, password reset, invite acceptance' }],
  jobs: [
    {
      // Not woken by the request route: the work of a reset is not tied to the moment it was asked for.
      name: 'password-resets',
      intervalMs: 2_000,
      run: async (deps) => {
        await deliverPasswordResets(deps);
      },
    },
  ],
};
