import type { ModuleManifest } from '../../deps.js';
import { translationRoutes } from './routes.js';

export const translationsModule: ModuleManifest = {
  name: 'translations',
  routes: translationRoutes,
  tags: [{ name: 'translations', description: 'Locales and translated content fields' }],
};

// The surface other modules use.
export { resolveLocale } from './locales.js';
export type { TranslatedFields } from './localize.js';
export { applyTranslations, loadTranslations } from './localize.js';
export { upsertTranslation } from './service.js';
export { listLocales } from './store/locales.js';
export { findTranslationsOfRecords } from './store/translations.js';
