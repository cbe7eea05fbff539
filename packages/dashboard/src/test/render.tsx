import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import type { Role } from '../app/api';
import { type Me, SessionProvider } from '../app/session';
import { fakeApi, type Routes } from './fake-api';

export const SIGNED_IN: Me = {
  user: { id: '00000000-0000-4000-8000-0000000000a1', email: 'owner@acme.test', name: 'Owner' },
  tenant: { id: '00000000-0000-4000-8000-0000000000c1', name: 'Acme', slug: 'acme' },
  role: 'OWNER',
};

/**
 * Renders a piece of the dashboard as it runs in the app: a fresh query cache (no retries), a
 * signed-in session of the given role, a router at `url` (`path` is the route pattern, for
 * `useParams`), and the fake API answering from `api`. Returns Testing Library's queries, a
 * user-event session, the router (its location), and the API calls made.
 */
export function renderPage(
  ui: ReactElement,
  {
    url = '/',
    path = '*',
    role = 'OWNER',
    api = {},
  }: { url?: string; path?: string; role?: Role; api?: Routes } = {},
) {
  const calls = fakeApi(api);
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  const router = createMemoryRouter([{ path, element: ui }], { initialEntries: [url] });
  const view = render(
    <QueryClientProvider client={client}>
      <SessionProvider me={{ ...SIGNED_IN, role }}>
        <RouterProvider router={router} />
      </SessionProvider>
    </QueryClientProvider>,
  );
  return { ...view, user: userEvent.setup(), router, calls };
}
