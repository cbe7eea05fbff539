import { describe, expect, it } from 'vitest';
import { isGenerated, isStableAttr, isStableClass } from './generated.js';

/** Names from real builds: what a fingerprint or a proposed selector may use, and what it must not. */
describe('generated names', () => {
  it.each([
    // CSS modules (webpack, Next.js, Vite)
    'Button_save__a1b2c',
    'Button__save___1x2yZ',
    'styles_container__Xk3pQ',
    'Button_save__xKqPz',
    // styled-components
    'sc-bdVaJa',
    'sc-AxjAm',
    'kKfXrT',
    'bZkfAO',
    // emotion
    'css-1x2y3z-Save',
    'css-9q8w7e',
    'e1n8fkbx0',
    // Svelte, styled-jsx, Astro, JSS
    'svelte-1abc2de',
    'jsx-3349523423',
    'astro-J7PV25F6',
    'makeStyles-root-12',
    // hashes and counters
    'btn-8f3a2c9d',
    'item-12345',
  ])('class %s is generated', (name) => {
    expect(isGenerated(name)).toBe(true);
    expect(isStableClass(name)).toBe(false);
  });

  it.each([
    ':r1:',
    ':R2m6:',
    '«r3»',
    'radix-:r4:',
    'headlessui-menu-button-7',
    'mui-42',
    'mat-input-0',
    'cdk-overlay-3',
    'ember1234',
    'downshift-0-input',
    'react-aria-123',
    '0f8fad5b-d9cb-469f-a165-70867728950e',
    'field-7d4e9a2f',
  ])('id %s is generated', (id) => {
    expect(isGenerated(id)).toBe(true);
  });

  it.each([
    'save',
    'save-button',
    'email',
    'todo-list',
    'new-todo',
    'main-nav',
    'SaveButton',
    'btnPrimary',
    'card__title',
    'settings-panel',
  ])('%s is a real name', (name) => {
    expect(isGenerated(name)).toBe(false);
  });

  it.each([
    // Tailwind
    'px-4',
    'md:flex',
    'hover:bg-blue-600',
    'w-1/2',
    'text-sm',
    'bg-blue-500',
    'mt-[3px]',
    'flex',
    'items-center',
    // Bootstrap utilities
    'd-flex',
    'mt-3',
    'col-md-6',
    // states, Angular and Vue markers
    'active',
    'is-open',
    'ng-star-inserted',
    'ng-untouched',
    'sr-only',
  ])('class %s is not identity', (name) => {
    expect(isStableClass(name)).toBe(false);
  });

  it.each(['save', 'todo-list', 'new-todo', 'card__title', 'toolbar', 'primary-action', 'MuiButton-root'])(
    'class %s is identity',
    (name) => {
      expect(isStableClass(name)).toBe(true);
    },
  );

  it('keeps test ids, data attributes and labels; drops markers, states and generated values', () => {
    expect(isStableAttr('data-testid', 'save')).toBe(true);
    expect(isStableAttr('data-testid', 'Save draft')).toBe(true);
    expect(isStableAttr('data-cy', 'submit-order')).toBe(true);
    expect(isStableAttr('data-action', 'archive')).toBe(true);
    expect(isStableAttr('aria-label', 'Close dialog')).toBe(true);
    expect(isStableAttr('name', 'email')).toBe(true);
    expect(isStableAttr('href', '/settings/billing')).toBe(true);
    expect(isStableAttr('data-v-7ba5bd90', '')).toBe(false); // Vue scoped CSS
    expect(isStableAttr('_ngcontent-ng-c123', '')).toBe(false); // Angular emulated encapsulation
    expect(isStableAttr('ng-reflect-router-link', '/home')).toBe(false);
    expect(isStableAttr('data-reactid', '.0.1')).toBe(false);
    expect(isStableAttr('data-state', 'open')).toBe(false);
    expect(isStableAttr('data-id', '4821')).toBe(false);
    expect(isStableAttr('data-row', '4821')).toBe(false);
    expect(isStableAttr('data-key', 'a1b2c3d4')).toBe(false);
    expect(isStableAttr('name', ':r5:')).toBe(false);
    expect(isStableAttr('class', 'save')).toBe(false); // classes are filtered on their own
    expect(isStableAttr('style', 'color:red')).toBe(false);
    expect(isStableAttr('href', 'javascript:void(0)')).toBe(false);
  });
});
