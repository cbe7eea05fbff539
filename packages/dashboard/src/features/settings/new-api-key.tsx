import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { Button, FormDialog, fieldError, Notice, TextField } from '../../kit';
import { snippetFor } from './snippet';

export interface CreatedKey {
  key: string;
  warning?: string;
}

/** `New API key`: a name and an optional expiry; the key comes back once, to `onCreated`. */
export function NewApiKeyDialog({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose(): void;
  onCreated(key: CreatedKey): void;
}) {
  const [name, setName] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const create = useMutation({
    mutationFn: () =>
      must(
        api.POST('/api/tenants/api-keys', {
          body: { name, expiresAt: expiresAt ? new Date(expiresAt).toISOString() : undefined },
        }),
      ),
    onSuccess: (res) => {
      setName('');
      setExpiresAt('');
      onCreated({ key: res.data.key, warning: res.warning });
    },
  });
  return (
    <FormDialog
      open={open}
      title="New API key"
      onClose={onClose}
      onSubmit={() => create.mutate()}
      submitLabel="Create key"
      busy={create.isPending}
      error={create.error}
      claimed={['name', 'expiresAt']}
    >
      <TextField
        label="Key name"
        placeholder="Production web app"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={fieldError(create.error, 'name')}
        autoFocus
      />
      <TextField
        label="Expires (optional)"
        type="datetime-local"
        value={expiresAt}
        onChange={(e) => setExpiresAt(e.target.value)}
        error={fieldError(create.error, 'expiresAt')}
      />
    </FormDialog>
  );
}

/** The new key, shown this once, and the install snippet with it. */
export function NewKeyShownOnce({ created }: { created: CreatedKey }) {
  const snippet = snippetFor(created.key);
  return (
    <div className="card pad" style={{ display: 'grid', gap: 12 }}>
      <Notice kind="warning">{created.warning ?? 'Copy this key now: it is shown only once.'}</Notice>
      <div className="key-box">
        <input
          readOnly
          className="mono"
          aria-label="New API key"
          value={created.key}
          onFocus={(e) => e.target.select()}
        />
        <Button onClick={() => navigator.clipboard?.writeText(created.key)}>Copy key</Button>
      </div>
      <h2>Install snippet</h2>
      <p className="muted small">Paste this before the closing &lt;/body&gt; of your app's pages.</p>
      <textarea
        readOnly
        className="snippet"
        aria-label="Install snippet"
        rows={9}
        value={snippet}
        onFocus={(e) => e.target.select()}
      />
      <div>
        <Button onClick={() => navigator.clipboard?.writeText(snippet)}>Copy snippet</Button>
      </div>
    </div>
  );
}
