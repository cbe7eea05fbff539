import type { Feature } from '../../app/feature';
import { lazyPage } from '../../app/lazy-page';

export const translations: Feature = {
  nav: { to: '/translations', label: 'Translations', icon: 'Aa' },
  routes: [{ path: 'translations', element: lazyPage(() => import('./translations-page')) }],
};
