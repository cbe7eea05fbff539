import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { fakeFetch } from './fake-api';

// The app's API client keeps the `fetch` it finds when created: the fake goes in first.
globalThis.fetch = fakeFetch as typeof fetch;

afterEach(cleanup);
