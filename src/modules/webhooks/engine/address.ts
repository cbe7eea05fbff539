/**
 * Which addresses a webhook may reach (no server-side request forgery). Pure: the caller resolves
 * the host name and checks every address it got here, then connects to a checked one.
 *
 * Classes:
 * - `public`: anything not below.
 * - `loopback` (127/8, ::1, 0/8 and ::, which reach this host), `private` (10/8, 172.16/12,
 *   192.168/16, CGNAT 100.64/10, unique-local fc00::/7, site-local fec0::/10): allowed only with
 *   `WEBHOOK_ALLOW_PRIVATE=true`.
 * - `link-local` (169.254/16, fe80::/10) and `metadata` (169.254.169.254, fd00:ec2::254,
 *   100.100.100.200, 192.0.0.192): always refused.
 * - `reserved` (multicast, broadcast, 240/4, documentation, benchmarking, IETF, Teredo, discard):
 *   always refused.
 * IPv6 forms that carry an IPv4 address (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64
 * 64:ff9b::/96, 6to4 2002::/16) are classified by that IPv4 address.
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'reserved';

/** The four octets of a dotted-decimal IPv4 address (canonical: no leading zeros), else null. */
export function parseIPv4(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out.push(n);
  }
  return out;
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a trailing dotted IPv4), else null. */
export function parseIPv6(input: string): number[] | null {
  let text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  if (text.includes('%')) text = text.slice(0, text.indexOf('%')); // zone id
  if (text.length === 0 || text.length > 45) return null;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.')) {
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (!v4) return null;
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    text = text.slice(0, lastColon + 1);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const group = (s: string) => (s === '' ? [] : s.split(':'));
  const head = group(halves[0]!);
  const rest = halves.length === 2 ? group(halves[1]!) : [];
  const groups: number[] = [];
  for (const g of [...head, ...rest]) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
  }
  const total = head.length + rest.length + tail.length;
  if (halves.length === 1 ? total !== 8 : total > 7) return null;
  for (const g of head) groups.push(Number.parseInt(g, 16));
  for (let i = 0; i < 8 - total; i++) groups.push(0);
  for (const g of rest) groups.push(Number.parseInt(g, 16));
  groups.push(...tail);
  return groups;
}

const inV4 = (o: number[], base: number[], bits: number): boolean => {
  const value = ((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8) | o[3]!) >>> 0;
  const net = ((base[0]! << 24) | (base[1]! << 16) | (base[2]! << 8) | base[3]!) >>> 0;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (value & mask) >>> 0 === (net & mask) >>> 0;
};

export function classifyIPv4(o: number[]): AddressClass {
  const is = (base: string, bits: number) => inV4(o, base.split('.').map(Number), bits);
  if (is('169.254.169.254', 32) || is('100.100.100.200', 32) || is('192.0.0.192', 32)) return 'metadata';
  if (is('169.254.0.0', 16)) return 'link-local';
  if (is('127.0.0.0', 8) || is('0.0.0.0', 8)) return 'loopback';
  if (is('10.0.0.0', 8) || is('172.16.0.0', 12) || is('192.168.0.0', 16) || is('100.64.0.0', 10))
    return 'private';
  if (
    is('224.0.0.0', 4) ||
    is('240.0.0.0', 4) ||
    is('192.0.0.0', 24) ||
    is('192.0.2.0', 24) ||
    is('198.51.100.0', 24) ||
    is('203.0.113.0', 24) ||
    is('198.18.0.0', 15)
  )
    return 'reserved';
  return 'public';
}

export function classifyIPv6(g: number[]): AddressClass {
  const v4of = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible; :: and ::1 included), 64:ff9b::/96 (NAT64)
  if (zeros(0, 5) && g[5] === 0xffff) return classifyIPv4(v4of(g[6]!, g[7]!));
  if (zeros(0, 6)) {
    if (g[6] === 0 && (g[7] === 0 || g[7] === 1)) return 'loopback';
    return classifyIPv4(v4of(g[6]!, g[7]!));
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return classifyIPv4(v4of(g[6]!, g[7]!));
  if (g[0] === 0x2002) return classifyIPv4(v4of(g[1]!, g[2]!)); // 6to4
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && zeros(2, 7) && g[7] === 0x254) return 'metadata';
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xfe00) === 0xfc00 || (g[0]! & 0xffc0) === 0xfec0) return 'private';
  if ((g[0]! & 0xff00) === 0xff00) return 'reserved'; // multicast
  if (g[0] === 0x2001 && (g[1] === 0x0db8 || g[1] === 0)) return 'reserved'; // documentation, Teredo
  if (g[0] === 0x0100 && zeros(1, 4)) return 'reserved'; // discard-only
  return 'public';
}

/** The class of an IP address literal (IPv4 dotted or IPv6, brackets allowed); null if it is none. */
export function classifyAddress(address: string): AddressClass | null {
  const v4 = parseIPv4(address);
  if (v4) return classifyIPv4(v4);
  const v6 = parseIPv6(address);
  return v6 ? classifyIPv6(v6) : null;
}

/** Whether a webhook may connect to an address of this class. */
export function classAllowed(cls: AddressClass, allowPrivate: boolean): boolean {
  if (cls === 'public') return true;
  if (cls === 'loopback' || cls === 'private') return allowPrivate;
  return false;
}
