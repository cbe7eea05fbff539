import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { Button, Form, FormError, fieldError, TextArea, TextField } from '../../kit';

/** The traits typed as JSON, as the object the API takes (or why they are not one). */
export function parseTraits(text: string): { traits: Record<string, unknown> } | { error: string } {
  try {
    const parsed = JSON.parse(text || '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      return { error: 'Traits must be a JSON object' };
    return { traits: parsed };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** "Test this audience": whether a user with these traits, id, role and device would be in it (nothing is saved). */
export function TestAudience({ id }: { id: string }) {
  const [traits, setTraits] = useState('{\n  "plan": "pro"\n}');
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState('');
  const [deviceType, setDeviceType] = useState('');
  const [browser, setBrowser] = useState('');
  const [parseError, setParseError] = useState<string>();
  const evaluate = useMutation({
    mutationFn: (parsed: Record<string, unknown>) =>
      must(
        api.POST('/api/audiences/{id}/evaluate', {
          params: { path: { id } },
          body: {
            traits: parsed,
            userId: userId || undefined,
            role: role || undefined,
            device:
              deviceType || browser
                ? { type: deviceType || undefined, browser: browser || undefined }
                : undefined,
          },
        }),
      ),
  });
  const run = () => {
    const parsed = parseTraits(traits);
    setParseError('error' in parsed ? parsed.error : undefined);
    if ('traits' in parsed) evaluate.mutate(parsed.traits);
  };
  const result = evaluate.data?.data;
  return (
    <Form className="card pad" aria-label="Test this audience" onSubmit={() => run()}>
      <h2>Test this audience</h2>
      <p className="muted small">Check whether a user with these traits would be in it (nothing is saved).</p>
      <TextArea
        label="Traits (JSON)"
        rows={5}
        value={traits}
        onChange={(e) => setTraits(e.target.value)}
        error={parseError ?? fieldError(evaluate.error, 'traits')}
        spellCheck={false}
      />
      <div className="row">
        <TextField label="User id" value={userId} onChange={(e) => setUserId(e.target.value)} />
        <TextField label="Role" value={role} onChange={(e) => setRole(e.target.value)} />
      </div>
      <div className="row">
        <TextField
          label="Device type"
          placeholder="desktop"
          value={deviceType}
          onChange={(e) => setDeviceType(e.target.value)}
        />
        <TextField
          label="Browser"
          placeholder="chrome"
          value={browser}
          onChange={(e) => setBrowser(e.target.value)}
        />
      </div>
      <FormError error={evaluate.error} claimed={['traits']} />
      {result ? (
        <div className={`notice ${result.matches ? 'notice-success' : 'notice-warning'}`} role="status">
          <div className="match-result">
            {result.matches
              ? '✓ Matches: this user is in the audience'
              : '✗ No match: this user is not in the audience'}
          </div>
          <div className="small">
            {result.matchedRules} of {result.totalRules} rules matched
          </div>
        </div>
      ) : null}
      <div className="form-actions">
        <Button type="submit" busy={evaluate.isPending}>
          Run test
        </Button>
      </div>
    </Form>
  );
}
