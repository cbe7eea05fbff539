import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { Button, Checkbox, FormDialog, fieldError, Notice, TextField } from '../../kit';
import { toggled, WEBHOOK_EVENT_TYPES, type WebhookEventType } from './event-types';

export interface CreatedWebhook {
  id: string;
  url: string;
  secret: string;
}

/** `New endpoint`: url, description, event types; the signing secret comes back once, to `onCreated`. */
export function NewWebhookDialog({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose(): void;
  onCreated(created: CreatedWebhook): void;
}) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>(['flow.completed']);
  const create = useMutation({
    mutationFn: () => must(api.POST('/api/webhooks', { body: { url, description, events, enabled: true } })),
    onSuccess: (res) => {
      setUrl('');
      setDescription('');
      setEvents(['flow.completed']);
      onCreated({ id: res.data.id, url: res.data.url, secret: res.data.secret });
    },
  });
  const eventsError = fieldError(create.error, 'events') ?? fieldError(create.error, 'events.0');
  return (
    <FormDialog
      open={open}
      title="New webhook endpoint"
      onClose={onClose}
      onSubmit={() => create.mutate()}
      submitLabel="Create endpoint"
      busy={create.isPending}
      error={create.error}
      claimed={['url', 'description', 'events', 'events.0']}
    >
      <TextField
        label="Endpoint URL"
        placeholder="https://hooks.example.com/guidance"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        error={fieldError(create.error, 'url')}
        autoFocus
      />
      <TextField
        label="Description (optional)"
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        error={fieldError(create.error, 'description')}
      />
      <fieldset className="field">
        <legend>Events</legend>
        {WEBHOOK_EVENT_TYPES.map((e) => (
          <Checkbox
            key={e.type}
            label={`${e.label} (${e.type})`}
            checked={events.includes(e.type)}
            onChange={(ev) => setEvents(toggled(events, e.type, ev.target.checked))}
          />
        ))}
        {eventsError ? (
          <p className="field-error" role="alert">
            {eventsError}
          </p>
        ) : null}
      </fieldset>
    </FormDialog>
  );
}

/** The new endpoint's signing secret, shown this once. */
export function SecretShownOnce({ created }: { created: CreatedWebhook }) {
  return (
    <div className="card pad" style={{ display: 'grid', gap: 12 }}>
      <Notice kind="warning">
        Copy the signing secret of {created.url} now: it is shown only once. Verify each delivery's
        webhook-signature with it (Standard Webhooks).
      </Notice>
      <div className="key-box">
        <input
          readOnly
          className="mono"
          aria-label="Signing secret"
          value={created.secret}
          onFocus={(e) => e.target.select()}
        />
        <Button onClick={() => navigator.clipboard?.writeText(created.secret)}>Copy secret</Button>
      </div>
    </div>
  );
}
