import type { ModuleManifest } from '../../deps.js';
import { authRoutes } from './routes.js';

export const authModule: ModuleManifest = {
  name: 'auth',
  routes: authRoutes,
  tags: [{ name: 'auth', description: 'Sign-up, sign-in, sessions, password reset, invite acceptance' }],
};
