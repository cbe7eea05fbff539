import { describe, expect, it } from 'vitest';
import { pageTemplate } from './template.js';

describe('pageTemplate', () => {
  it.each([
    ['/', '/'],
    ['/settings/billing', '/settings/billing'],
    ['/orders/8412', '/orders/:id'],
    ['/orders/8412/items/3', '/orders/:id/items/:id'],
    ['/u/0f8fad5b-d9cb-469f-a165-70867728950e/profile', '/u/:id/profile'],
    ['/p/507f1f77bcf86cd799439011', '/p/:id'],
    ['/share/Zx8kQ2vN7pLr4TbY', '/share/:id'],
    ['/invoices/invoice-2024-0042', '/invoices/:id'],
    ['/blog/post-9f8e7d6c', '/blog/:id'],
    ['/docs/getting-started', '/docs/getting-started'],
    ['/v2/api', '/v2/api'],
    ['/sub-facade', '/sub-facade'],
    ['/t/react-app', '/t/react-app'],
  ])('%s → %s', (path, template) => {
    expect(pageTemplate(path)).toBe(template);
  });
});
