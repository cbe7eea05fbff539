import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ruleTreeSchema } from './rule-schema.js';
import {
  evaluateRules,
  matchesRules,
  OPERATORS,
  type Operator,
  type RuleContext,
  type RuleLeaf,
  type RuleNode,
} from './rules.js';

const ctx: RuleContext = {
  userId: 'u-42',
  role: 'admin',
  traits: {
    plan: 'pro',
    seats: 5,
    score: '12.5',
    beta: true,
    optIn: 'false',
    tags: ['a', 'b', 3],
    company: { size: 120, name: 'Acme', meta: { tier: 'gold' } },
    signedUpAt: '2024-03-01T10:00:00Z',
    renewal: '2025-01-15',
    nothing: null,
    email: 'jane@example.com',
  },
  device: { type: 'desktop', browser: 'firefox' },
};

const leaf = (field: string, operator: Operator, value?: unknown): RuleLeaf =>
  value === undefined ? { field, operator } : { field, operator, value };
const check = (field: string, operator: Operator, value?: unknown, context: RuleContext = ctx) =>
  evaluateRules(leaf(field, operator, value), context).matches;

describe('missing fields', () => {
  const passing = new Set<Operator>(['not_exists', 'neq', 'not_in', 'not_contains']);
  const sampleValue: Record<Operator, unknown> = {
    eq: 'x',
    neq: 'x',
    gt: 1,
    lt: 1,
    gte: 1,
    lte: 1,
    contains: 'x',
    not_contains: 'x',
    in: ['x'],
    not_in: ['x'],
    exists: undefined,
    not_exists: undefined,
    regex: '.*',
    starts_with: '',
    ends_with: '',
  };

  for (const op of OPERATORS) {
    it(`${op} ${passing.has(op) ? 'passes' : 'fails'} on a missing or null field`, () => {
      for (const field of ['traits.unknown', 'traits.nothing', 'traits.company.missing.deeper', 'nope']) {
        expect(check(field, op, sampleValue[op])).toBe(passing.has(op));
      }
      expect(check('traits.plan', op, sampleValue[op], {})).toBe(passing.has(op));
    });
  }
});

describe('field paths', () => {
  it('resolves top-level, device and nested trait paths', () => {
    expect(check('userId', 'eq', 'u-42')).toBe(true);
    expect(check('role', 'eq', 'admin')).toBe(true);
    expect(check('device.type', 'eq', 'desktop')).toBe(true);
    expect(check('device.browser', 'eq', 'firefox')).toBe(true);
    expect(check('traits.company.size', 'gt', 100)).toBe(true);
    expect(check('traits.company.meta.tier', 'eq', 'gold')).toBe(true);
  });

  it('never walks into prototypes', () => {
    expect(check('traits.constructor', 'exists')).toBe(false);
    expect(check('traits.__proto__', 'exists')).toBe(false);
    expect(check('traits.toString', 'exists')).toBe(false);
    expect(check('traits.plan.length', 'exists')).toBe(false);
    const polluted = JSON.parse('{"traits":{"__proto__":{"x":1}}}') as RuleContext;
    expect(check('traits.__proto__.x', 'eq', 1, polluted)).toBe(false);
  });
});

describe('eq / neq', () => {
  it('compares primitives strictly, numbers and numeric strings numerically', () => {
    expect(check('traits.plan', 'eq', 'pro')).toBe(true);
    expect(check('traits.plan', 'eq', 'Pro')).toBe(false);
    expect(check('traits.seats', 'eq', '5')).toBe(true);
    expect(check('traits.seats', 'eq', 5)).toBe(true);
    expect(check('traits.score', 'eq', 12.5)).toBe(true);
    expect(check('traits.seats', 'eq', '5x')).toBe(false);
    expect(check('traits.seats', 'eq', '')).toBe(false);
    expect(check('traits.seats', 'neq', 6)).toBe(true);
    expect(check('traits.seats', 'neq', '5')).toBe(false);
  });

  it('compares booleans with "true"/"false" strings', () => {
    expect(check('traits.beta', 'eq', true)).toBe(true);
    expect(check('traits.beta', 'eq', 'true')).toBe(true);
    expect(check('traits.beta', 'eq', 'false')).toBe(false);
    expect(check('traits.optIn', 'eq', false)).toBe(true);
    expect(check('traits.beta', 'eq', 1)).toBe(false);
  });

  it('compares arrays and objects deeply', () => {
    expect(check('traits.tags', 'eq', ['a', 'b', 3])).toBe(true);
    expect(check('traits.tags', 'eq', ['a', 'b'])).toBe(false);
    expect(check('traits.company.meta', 'eq', { tier: 'gold' } as unknown)).toBe(true);
    expect(check('traits.company.meta', 'neq', { tier: 'silver' } as unknown)).toBe(true);
  });
});

describe('gt / lt / gte / lte', () => {
  it('compares numbers and numeric strings', () => {
    expect(check('traits.seats', 'gt', 4)).toBe(true);
    expect(check('traits.seats', 'gt', 5)).toBe(false);
    expect(check('traits.seats', 'gte', 5)).toBe(true);
    expect(check('traits.seats', 'lt', '10')).toBe(true);
    expect(check('traits.seats', 'lte', '5')).toBe(true);
    expect(check('traits.score', 'gt', 12)).toBe(true);
    expect(check('traits.score', 'lt', '9')).toBe(false);
  });

  it('compares ISO dates and datetimes', () => {
    expect(check('traits.signedUpAt', 'gt', '2024-01-01')).toBe(true);
    expect(check('traits.signedUpAt', 'lt', '2024-03-01T09:00:00Z')).toBe(false);
    expect(check('traits.signedUpAt', 'gte', '2024-03-01T10:00:00Z')).toBe(true);
    expect(check('traits.renewal', 'lte', '2025-01-15')).toBe(true);
    expect(check('traits.renewal', 'lt', '2025-01-14T23:59:59Z')).toBe(false);
  });

  it('is false for anything else', () => {
    expect(check('traits.plan', 'gt', 'a')).toBe(false);
    expect(check('traits.plan', 'lt', 'z')).toBe(false);
    expect(check('traits.renewal', 'gt', 5)).toBe(false);
    expect(check('traits.tags', 'gt', 1)).toBe(false);
    expect(check('traits.beta', 'gte', 0)).toBe(false);
    expect(check('traits.signedUpAt', 'gt', 'March 2020')).toBe(false);
  });
});

describe('contains / not_contains', () => {
  it('checks element membership in array fields', () => {
    expect(check('traits.tags', 'contains', 'a')).toBe(true);
    expect(check('traits.tags', 'contains', '3')).toBe(true);
    expect(check('traits.tags', 'contains', 'c')).toBe(false);
    expect(check('traits.tags', 'not_contains', 'c')).toBe(true);
    expect(check('traits.tags', 'not_contains', 'b')).toBe(false);
  });

  it('checks case-sensitive substrings of string fields', () => {
    expect(check('traits.email', 'contains', '@example')).toBe(true);
    expect(check('traits.email', 'contains', '@EXAMPLE')).toBe(false);
    expect(check('traits.email', 'not_contains', 'gmail')).toBe(true);
    expect(check('userId', 'contains', 42)).toBe(true);
  });

  it('is false for other field types', () => {
    expect(check('traits.seats', 'contains', '5')).toBe(false);
    expect(check('traits.seats', 'not_contains', '5')).toBe(true);
  });
});

describe('in / not_in', () => {
  it('matches a scalar field against the list', () => {
    expect(check('traits.plan', 'in', ['free', 'pro'])).toBe(true);
    expect(check('traits.plan', 'in', ['free'])).toBe(false);
    expect(check('traits.seats', 'in', ['5', '6'])).toBe(true);
    expect(check('traits.plan', 'not_in', ['free'])).toBe(true);
    expect(check('traits.plan', 'not_in', ['pro'])).toBe(false);
    expect(check('traits.plan', 'in', [])).toBe(false);
  });

  it('matches an array field when any element is in the list', () => {
    expect(check('traits.tags', 'in', ['b', 'z'])).toBe(true);
    expect(check('traits.tags', 'in', ['x', 'y'])).toBe(false);
    expect(check('traits.tags', 'not_in', ['x', 'y'])).toBe(true);
    expect(check('traits.tags', 'not_in', [3])).toBe(false);
  });
});

describe('exists / not_exists', () => {
  it('treats present non-null values as existing', () => {
    expect(check('traits.plan', 'exists')).toBe(true);
    expect(check('traits.beta', 'exists')).toBe(true);
    expect(check('traits.plan', 'not_exists')).toBe(false);
    expect(check('traits.nothing', 'exists')).toBe(false);
    expect(check('traits.nothing', 'not_exists')).toBe(true);
  });
});

describe('starts_with / ends_with', () => {
  it('works on strings and coerces numbers', () => {
    expect(check('traits.email', 'starts_with', 'jane')).toBe(true);
    expect(check('traits.email', 'ends_with', '.com')).toBe(true);
    expect(check('traits.email', 'ends_with', '.org')).toBe(false);
    expect(check('traits.company.size', 'starts_with', '12')).toBe(true);
    expect(check('traits.company.size', 'ends_with', 20)).toBe(true);
    expect(check('traits.tags', 'starts_with', 'a')).toBe(false);
    expect(check('traits.beta', 'starts_with', 't')).toBe(false);
  });
});

describe('regex', () => {
  it('searches strings, numbers and booleans', () => {
    expect(check('traits.email', 'regex', '@example\\.com$')).toBe(true);
    expect(check('traits.email', 'regex', '^bob')).toBe(false);
    expect(check('traits.seats', 'regex', '^\\d$')).toBe(true);
    expect(check('traits.beta', 'regex', '^true$')).toBe(true);
    expect(check('traits.tags', 'regex', 'a')).toBe(false);
  });

  it('is false for patterns that do not compile or are not strings', () => {
    expect(check('traits.email', 'regex', '(?=jane)')).toBe(false);
    expect(check('traits.email', 'regex', '[')).toBe(false);
    expect(check('traits.email', 'regex', 5)).toBe(false);
  });

  it('cannot be made to stall: (a+)+$ on a long near-match runs in linear time', () => {
    const context: RuleContext = { traits: { s: 'a'.repeat(50_000) + '!' } };
    const tree = leaf('traits.s', 'regex', '(a+)+$');
    const start = performance.now();
    evaluateRules(tree, context);
    const nearMatch = { traits: { s: 'a'.repeat(9_999) + '!' } };
    expect(evaluateRules(tree, nearMatch).matches).toBe(false);
    expect(performance.now() - start).toBeLessThan(1000);
  });

  it('only looks at the first 10,000 characters', () => {
    const context: RuleContext = { traits: { s: 'a'.repeat(10_000) + 'b' } };
    expect(evaluateRules(leaf('traits.s', 'regex', 'b'), context).matches).toBe(false);
    expect(evaluateRules(leaf('traits.s', 'regex', '^a+$'), context).matches).toBe(true);
  });
});

describe('groups', () => {
  const yes = leaf('role', 'eq', 'admin');
  const no = leaf('role', 'eq', 'viewer');

  it('combines with AND (the default), OR and NOT', () => {
    expect(evaluateRules({ rules: [yes, yes] }, ctx).matches).toBe(true);
    expect(evaluateRules({ rules: [yes, no] }, ctx).matches).toBe(false);
    expect(evaluateRules({ logicalOperator: 'AND', rules: [yes, no] }, ctx).matches).toBe(false);
    expect(evaluateRules({ logicalOperator: 'OR', rules: [no, yes] }, ctx).matches).toBe(true);
    expect(evaluateRules({ logicalOperator: 'OR', rules: [no, no] }, ctx).matches).toBe(false);
    expect(evaluateRules({ logicalOperator: 'NOT', rules: [no] }, ctx).matches).toBe(true);
    expect(evaluateRules({ logicalOperator: 'NOT', rules: [yes] }, ctx).matches).toBe(false);
    expect(evaluateRules({ logicalOperator: 'NOT', rules: [yes, no] }, ctx).matches).toBe(true);
  });

  it('treats empty AND as true and empty OR / NOT as false', () => {
    expect(evaluateRules({ rules: [] }, ctx).matches).toBe(true);
    expect(evaluateRules({ logicalOperator: 'OR', rules: [] }, ctx).matches).toBe(false);
    expect(evaluateRules({ logicalOperator: 'NOT', rules: [] }, ctx).matches).toBe(false);
  });

  it('counts every leaf, without short-circuiting', () => {
    const tree: RuleNode = {
      logicalOperator: 'OR',
      rules: [
        yes,
        { logicalOperator: 'NOT', rules: [no, leaf('traits.plan', 'eq', 'pro')] },
        { rules: [no, no, yes] },
      ],
    };
    expect(evaluateRules(tree, ctx)).toEqual({ matches: true, matchedRules: 3, totalRules: 6 });
    expect(evaluateRules({ rules: [no, yes] }, ctx)).toEqual({
      matches: false,
      matchedRules: 1,
      totalRules: 2,
    });
    expect(evaluateRules(yes, ctx)).toEqual({ matches: true, matchedRules: 1, totalRules: 1 });
    expect(evaluateRules({ rules: [] }, ctx)).toEqual({ matches: true, matchedRules: 0, totalRules: 0 });
  });
});

// ---------------------------------------------------------------------------------------------
// Property tests

const FIELDS = ['userId', 'role', 'traits.a', 'traits.b', 'traits.a.b', 'traits.n', 'device.type'];
const SCALAR = fc.oneof(
  fc.constantFrom('x', 'y', 'admin', '5', 'true', '2024-01-01'),
  fc.integer({ min: -10, max: 10 }),
  fc.boolean(),
);
const SAFE_PATTERNS = ['^a', 'b$', 'x|y', '\\d+', '^[a-z]+$', '.'];

const leafArb: fc.Arbitrary<RuleLeaf> = fc.oneof(
  fc.record({
    field: fc.constantFrom(...FIELDS),
    operator: fc.constantFrom<Operator>('eq', 'neq', 'contains', 'not_contains', 'starts_with', 'ends_with'),
    value: fc.oneof(SCALAR, fc.array(SCALAR, { maxLength: 3 })),
  }),
  fc.record({
    field: fc.constantFrom(...FIELDS),
    operator: fc.constantFrom<Operator>('gt', 'lt', 'gte', 'lte'),
    value: fc.oneof(
      fc.integer({ min: -10, max: 10 }),
      fc.constantFrom('3', '2024-06-01', '2023-01-01T00:00:00Z'),
    ),
  }),
  fc.record({
    field: fc.constantFrom(...FIELDS),
    operator: fc.constantFrom<Operator>('in', 'not_in'),
    value: fc.array(SCALAR, { maxLength: 4 }),
  }),
  fc.record({
    field: fc.constantFrom(...FIELDS),
    operator: fc.constantFrom<Operator>('exists', 'not_exists'),
  }),
  fc.record({
    field: fc.constantFrom(...FIELDS),
    operator: fc.constant<Operator>('regex'),
    value: fc.constantFrom(...SAFE_PATTERNS),
  }),
);

const ruleTreeArb: fc.Arbitrary<RuleNode> = fc.letrec<{ node: RuleNode }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthSize: 'small', withCrossShrink: true },
    leafArb,
    fc.record(
      {
        logicalOperator: fc.constantFrom('AND', 'OR', 'NOT') as fc.Arbitrary<'AND' | 'OR' | 'NOT'>,
        rules: fc.array(tie('node'), { maxLength: 3 }),
      },
      { requiredKeys: ['rules'] },
    ),
  ),
})).node;

const traitValue = fc.oneof(SCALAR, fc.array(SCALAR, { maxLength: 3 }), fc.constant(null));
const contextArb: fc.Arbitrary<RuleContext> = fc.record(
  {
    userId: fc.constantFrom('x', 'u1', '5'),
    role: fc.constantFrom('admin', 'viewer', 'x'),
    traits: fc.record(
      { a: fc.oneof(traitValue, fc.record({ b: traitValue })), b: traitValue, n: traitValue },
      { requiredKeys: [] },
    ),
    device: fc.record({ type: fc.constantFrom('desktop', 'mobile', 'x') }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

const matches = (tree: RuleNode, context: RuleContext) => evaluateRules(tree, context).matches;

function countLeaves(node: RuleNode): number {
  return 'rules' in node ? node.rules.reduce((n, child) => n + countLeaves(child), 0) : 1;
}

describe('properties', () => {
  it('generated trees are valid trees', () => {
    fc.assert(
      fc.property(ruleTreeArb, (x) => {
        expect(ruleTreeSchema.safeParse(x).error?.issues).toBeUndefined();
      }),
    );
  });

  it('NOT(x) is the negation of x', () => {
    fc.assert(
      fc.property(ruleTreeArb, contextArb, (x, c) => {
        expect(matches({ logicalOperator: 'NOT', rules: [x] }, c)).toBe(!matches(x, c));
      }),
    );
  });

  it('AND and OR of a single rule equal the rule', () => {
    fc.assert(
      fc.property(ruleTreeArb, contextArb, (x, c) => {
        const m = matches(x, c);
        expect(matches({ logicalOperator: 'AND', rules: [x] }, c)).toBe(m);
        expect(matches({ rules: [x] }, c)).toBe(m);
        expect(matches({ logicalOperator: 'OR', rules: [x] }, c)).toBe(m);
      }),
    );
  });

  it('AND and OR are commutative', () => {
    fc.assert(
      fc.property(ruleTreeArb, ruleTreeArb, contextArb, (a, b, c) => {
        for (const op of ['AND', 'OR'] as const) {
          expect(matches({ logicalOperator: op, rules: [a, b] }, c)).toBe(
            matches({ logicalOperator: op, rules: [b, a] }, c),
          );
        }
      }),
    );
  });

  it("satisfies De Morgan's laws", () => {
    fc.assert(
      fc.property(ruleTreeArb, ruleTreeArb, contextArb, (a, b, c) => {
        const not = (x: RuleNode): RuleNode => ({ logicalOperator: 'NOT', rules: [x] });
        expect(matches(not({ logicalOperator: 'AND', rules: [a, b] }), c)).toBe(
          matches({ logicalOperator: 'OR', rules: [not(a), not(b)] }, c),
        );
        expect(matches(not({ logicalOperator: 'OR', rules: [a, b] }), c)).toBe(
          matches({ logicalOperator: 'AND', rules: [not(a), not(b)] }, c),
        );
      }),
    );
  });

  it('matchesRules agrees with evaluateRules', () => {
    fc.assert(
      fc.property(ruleTreeArb, contextArb, (x, c) => {
        expect(matchesRules(x, c)).toBe(matches(x, c));
      }),
    );
  });

  it('totalRules is the number of leaves and matchedRules never exceeds it', () => {
    fc.assert(
      fc.property(ruleTreeArb, contextArb, (x, c) => {
        const r = evaluateRules(x, c);
        expect(r.totalRules).toBe(countLeaves(x));
        expect(r.matchedRules).toBeGreaterThanOrEqual(0);
        expect(r.matchedRules).toBeLessThanOrEqual(r.totalRules);
      }),
    );
  });

  it('never throws on any JSON context', () => {
    const jsonContext = fc.oneof(
      fc.jsonValue(),
      fc.record({ traits: fc.jsonValue(), device: fc.jsonValue(), userId: fc.jsonValue() }),
      fc.record({ traits: fc.dictionary(fc.constantFrom('a', 'b', 'n'), fc.jsonValue()) }),
    );
    fc.assert(
      fc.property(ruleTreeArb, jsonContext, (x, c) => {
        const r = evaluateRules(x, c as RuleContext);
        expect(typeof r.matches).toBe('boolean');
        expect(typeof matchesRules(x, c as RuleContext)).toBe('boolean');
      }),
    );
  });

  it('never throws on arbitrary values as context', () => {
    const anyContext = fc.oneof(
      fc.anything(),
      fc.record({ traits: fc.anything(), device: fc.anything(), role: fc.anything() }),
      fc.record({ traits: fc.record({ a: fc.anything({ withNullPrototype: true, withMap: true }) }) }),
    );
    fc.assert(
      fc.property(ruleTreeArb, anyContext, (x, c) => {
        expect(typeof evaluateRules(x, c as RuleContext).matches).toBe('boolean');
        expect(typeof matchesRules(x, c as RuleContext)).toBe('boolean');
      }),
    );
  });
});
