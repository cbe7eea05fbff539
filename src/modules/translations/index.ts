import type { ModuleManifest } from '../../deps.js';
import { translationRoutes } from './routes.js';

export const translationsModule: ModuleManifest = {
  name: 'translations',
  routes: translationRoutes,
  tags: [{ name: 'translations', description: 'Locales and translated content fields' }],
};
