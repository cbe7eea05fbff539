import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, must } from '../../app/api';
import { useSiteId } from '../../app/session';
import { Button, FormError, fieldError, Modal, TextField } from '../../kit';

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
    <Modal open={open} title="New journey" onClose={onClose}>
      <form
        className="modal-body"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <TextField
          label="Name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(create.error, 'name')}
          autoFocus
        />
        <FormError error={create.error} claimed={['name']} />
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={create.isPending}>
            Create journey
          </Button>
        </div>
      </form>
    </Modal>
  );
}
