import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { useCan } from '../../app/session';
import {
  Button,
  Checkbox,
  Empty,
  Form,
  FormError,
  FormFoot,
  fieldError,
  formatDate,
  Loading,
  SelectField,
  TextField,
} from '../../kit';

/** The AI provider: the one connected (its masked key, on or off), and the form that connects or changes it. */
export function AiProvider() {
  const client = useQueryClient();
  const canAdmin = useCan('ADMIN');
  const config = useQuery({
    queryKey: ['ai-config'],
    queryFn: async () => (await must(api.GET('/api/ai-config'))).data,
  });
  const [provider, setProvider] = useState<'OPENAI' | 'GEMINI' | 'CLAUDE'>('OPENAI');
  const [apiKey, setApiKey] = useState('');
  const save = useMutation({
    mutationFn: () => must(api.POST('/api/ai-config', { body: { provider, apiKey } })),
    onSuccess: () => {
      setApiKey('');
      void client.invalidateQueries({ queryKey: ['ai-config'] });
    },
  });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => must(api.POST('/api/ai-config/toggle', { body: { enabled } })),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['ai-config'] }),
  });
  if (config.isPending) return <Loading />;
  if (config.isError) return <FormError error={config.error} />;
  const c = config.data;
  return (
    <div className="grid-2">
      <div className="card pad" style={{ display: 'grid', gap: 10, alignContent: 'start' }}>
        <h2>Provider</h2>
        {c ? (
          <>
            <p>
              <strong>{c.provider}</strong> · key <code>{c.maskedKey}</code>
            </p>
            <p className="muted small">Last verified {formatDate(c.lastVerifiedAt)}</p>
            <Checkbox
              label="AI features enabled"
              checked={c.isEnabled}
              disabled={!canAdmin || toggle.isPending}
              onChange={(e) => toggle.mutate(e.target.checked)}
            />
            <FormError error={toggle.error} />
          </>
        ) : (
          <Empty title="No AI provider">
            Connect OpenAI, Gemini or Claude to draft flows, audiences and translations with AI.
          </Empty>
        )}
      </div>
      {canAdmin ? (
        <Form className="card pad" onSubmit={() => save.mutate()}>
          <h2>{c ? 'Change provider or key' : 'Connect a provider'}</h2>
          <SelectField
            label="AI provider"
            value={provider}
            onChange={(e) => setProvider(e.target.value as typeof provider)}
            options={['OPENAI', 'GEMINI', 'CLAUDE']}
            error={fieldError(save.error, 'provider')}
          />
          <TextField
            label="Provider API key"
            type="password"
            autoComplete="off"
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value)}
            error={fieldError(save.error, 'apiKey')}
          />
          <FormFoot
            error={save.error}
            claimed={['provider', 'apiKey']}
            done={save.isSuccess && 'Provider saved and verified.'}
          >
            <Button type="submit" variant="primary" busy={save.isPending}>
              Save provider
            </Button>
          </FormFoot>
        </Form>
      ) : null}
    </div>
  );
}
