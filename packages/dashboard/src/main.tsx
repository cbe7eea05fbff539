import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { ApiError, onSignedOut } from './app/api';
import { router } from './app/routes';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
      staleTime: 5_000,
    },
  },
});

// A session that cannot be refreshed any more: back to sign in, then back here after.
onSignedOut(() => {
  queryClient.clear();
  const here = location.pathname + location.search;
  if (!here.startsWith('/signin')) router.navigate(`/signin?next=${encodeURIComponent(here)}`);
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
