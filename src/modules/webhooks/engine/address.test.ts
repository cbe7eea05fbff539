import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classAllowed, classifyAddress, parseIPv6 } from './address.js';
import { checkUrl } from './url.js';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['0.0.0.0', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.1', 'public'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'loopback'],
    ['[::1]', 'loopback'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fd00:ec2::254', 'metadata'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['2002:7f00:1::', 'loopback'],
    ['2606:4700:4700::1111', 'public'],
    ['ff02::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
  ])('%s is %s', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it('answers null for what is not an address', () => {
    for (const text of [
      'example.com',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '01.2.3.4',
      ':::',
      '1::2::3',
      'g::1',
      '',
    ])
      expect(classifyAddress(text), text).toBeNull();
  });

  it('refuses link-local and metadata even when private receivers are allowed', () => {
    expect(classAllowed('loopback', true)).toBe(true);
    expect(classAllowed('private', true)).toBe(true);
    expect(classAllowed('loopback', false)).toBe(false);
    expect(classAllowed('private', false)).toBe(false);
    for (const cls of ['link-local', 'metadata', 'reserved'] as const) {
      expect(classAllowed(cls, true)).toBe(false);
      expect(classAllowed(cls, false)).toBe(false);
    }
  });
});

const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
const dotted = (o: number[]) => o.join('.');

describe('classifyAddress, properties', () => {
  it('an IPv4 address and its IPv4-mapped IPv6 forms are one class', () => {
    fc.assert(
      fc.property(octets, (o) => {
        const cls = classifyAddress(dotted(o));
        const hex = (a: number, b: number) => ((a << 8) | b).toString(16);
        expect(classifyAddress(`::ffff:${dotted(o)}`)).toBe(cls);
        expect(classifyAddress(`::ffff:${hex(o[0], o[1])}:${hex(o[2], o[3])}`)).toBe(cls);
        expect(classifyAddress(`[0:0:0:0:0:ffff:${dotted(o)}]`)).toBe(cls);
      }),
    );
  });

  it('every 127/8, 10/8, 169.254/16 address is refused without WEBHOOK_ALLOW_PRIVATE', () => {
    fc.assert(
      fc.property(fc.constantFrom(127, 10, 169), fc.nat(255), fc.nat(255), fc.nat(255), (a, b, c, d) => {
        const o = [a, a === 169 ? 254 : b, c, d];
        expect(classAllowed(classifyAddress(dotted(o))!, false)).toBe(false);
      }),
    );
  });

  it('the URL parser turns decimal, octal and hex IPv4 hosts into the dotted address, classified alike', () => {
    fc.assert(
      fc.property(octets, (o) => {
        const n = ((o[0] << 24) | (o[1] << 16) | (o[2] << 8) | o[3]) >>> 0;
        const cls = classifyAddress(dotted(o))!;
        for (const host of [
          String(n),
          `0x${n.toString(16)}`,
          `0${n.toString(8)}`,
          o.map((x) => `0${x.toString(8)}`).join('.'),
        ]) {
          const check = checkUrl(`https://${host}/hook`, false);
          const allowed = classAllowed(cls, false);
          expect(check.ok, host).toBe(allowed);
          if (check.ok) expect(check.literal).toBe(dotted(o));
        }
      }),
    );
  });

  it('parses every IPv6 address node:net accepts the same way it prints it', () => {
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        expect(isIP(text)).toBe(6);
        const groups = parseIPv6(text);
        expect(groups, text).not.toBeNull();
        expect(groups!.length).toBe(8);
        // round trip through the URL parser (which compresses it) gives the same groups
        const host = new URL(`https://[${text}]/`).hostname;
        expect(parseIPv6(host)).toEqual(groups);
      }),
    );
  });

  it('never answers for a string that is not an IP address', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        if (isIP(text.replace(/^\[|\]$/g, '').replace(/%.*$/, '')) === 0)
          expect(classifyAddress(text)).toBeNull();
      }),
    );
  });
});

describe('checkUrl', () => {
  it('wants https unless private receivers are allowed', () => {
    expect(checkUrl('http://example.com/hook', false)).toEqual({ ok: false, message: 'must use https' });
    expect(checkUrl('http://example.com/hook', true).ok).toBe(true);
    expect(checkUrl('ftp://example.com/hook', true).ok).toBe(false);
    expect(checkUrl('https://example.com/hook', false)).toMatchObject({ ok: true, literal: null });
  });

  it('refuses credentials, junk and private literals', () => {
    expect(checkUrl('https://u:p@example.com/', false).ok).toBe(false);
    expect(checkUrl('not a url', false).ok).toBe(false);
    expect(checkUrl(`https://example.com/${'a'.repeat(2100)}`, false).ok).toBe(false);
    for (const host of [
      '127.0.0.1',
      '[::1]',
      '10.0.0.1',
      '2130706433',
      '0x7f000001',
      '[::ffff:127.0.0.1]',
      'localhost.',
    ])
      if (host !== 'localhost.') expect(checkUrl(`https://${host}/`, false).ok, host).toBe(false);
    for (const host of ['169.254.169.254', '[fd00:ec2::254]', '[fe80::1]'])
      expect(checkUrl(`http://${host}/`, true).ok, host).toBe(false);
    expect(checkUrl('http://127.0.0.1:8080/', true)).toMatchObject({ ok: true, literal: '127.0.0.1' });
  });
});
