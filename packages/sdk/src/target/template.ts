/**
 * A URL path with its record ids replaced by `:id`, so that every order page reports as one page:
 * `/orders/8412/items/3f2a…-uuid` → `/orders/:id/items/:id`. A segment is an id when it is a
 * number, a UUID, a long hex or base-64 string, or a slug ending in one (`invoice-2024-0042`).
 */
export function pageTemplate(path: string): string {
  const out = path
    .split('/')
    .map((seg) => {
      let s = seg;
      try {
        s = decodeURIComponent(seg);
      } catch {
        // keep it as it came
      }
      return isIdSegment(s) ? ':id' : seg;
    })
    .join('/');
  return out.slice(0, 300) || '/';
}

export function isIdSegment(s: string): boolean {
  if (!s) return false;
  if (/^\d+$/.test(s)) return true;
  if (/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s)) return true;
  if (/^[0-9a-f]{10,}$/i.test(s) && /\d/.test(s)) return true; // object ids, hashes
  if (/^[A-Za-z0-9_-]{16,}$/.test(s) && /\d/.test(s) && /[A-Za-z]/.test(s)) return true; // random tokens
  // slugs that end in a number or a hash: invoice-2024-0042, post-9f8e7d6c
  return /[-_.](?:\d{2,}|[0-9a-f]{6,})$/i.test(s) && /\d/.test(s.slice(s.search(/[-_.][^-_.]*$/)));
}
