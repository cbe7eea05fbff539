/** The install snippet for a key: the SDK from this service, initialised with the key. */
export function snippetFor(key: string, origin = location.origin): string {
  return `<script src="${origin}/sdk/guidance.js"></script>
<script>
  Guidance.init({
    apiKey: '${key}',
    apiUrl: '${origin}',
    userId: 'USER_ID',          // your signed-in user's id
    traits: { plan: 'pro' },    // anything your audiences target
  });
</script>`;
}
