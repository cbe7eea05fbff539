import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, must } from '../../app/api';
import { useSiteId } from '../../app/session';
import { FormDialog, fieldError, TextField } from '../../kit';

/** `New journey`: a name; the new draft opens on the canvas. */
export function NewJourneyDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const siteId = useSiteId();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => must(api.POST('/api/journeys', { body: { name, siteId } })),
    onSuccess: (res) => navigate(`/journeys/${res.data.id}`),
  });
  return (
    <FormDialog
      open={open}
      title="New journey"
      onClose={onClose}
      onSubmit={() => create.mutate()}
      submitLabel="Create journey"
      busy={create.isPending}
      error={create.error}
      claimed={['name']}
    >
      <TextField
        label="Name"
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={fieldError(create.error, 'name')}
        autoFocus
      />
    </FormDialog>
  );
}
