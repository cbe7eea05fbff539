import { type ComponentType, lazy, Suspense } from 'react';
import { Loading } from '../kit';

/** A page loaded as its own chunk when first shown, with the spinner meanwhile. */
export function lazyPage(load: () => Promise<{ default: ComponentType }>) {
  const Page = lazy(load);
  return (
    <Suspense fallback={<Loading />}>
      <Page />
    </Suspense>
  );
}
