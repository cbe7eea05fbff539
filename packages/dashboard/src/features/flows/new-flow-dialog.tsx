import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, must } from '../../app/api';
import { useSiteId } from '../../app/session';
import { FormDialog, fieldError, humanize, SelectField, TextField } from '../../kit';
import { TEMPLATES, type Template } from './flow-model';

/** `New flow`: a name and a template; the new draft opens in the editor. */
export function NewFlowDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  const siteId = useSiteId();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [template, setTemplate] = useState<Template>('PRODUCT_TOUR');
  const create = useMutation({
    mutationFn: () => must(api.POST('/api/flows', { body: { name, template, siteId } })),
    onSuccess: (res) => navigate(`/flows/${res.data.id}`),
  });
  return (
    <FormDialog
      open={open}
      title="New flow"
      onClose={onClose}
      onSubmit={() => create.mutate()}
      submitLabel="Create flow"
      busy={create.isPending}
      error={create.error}
      claimed={['name', 'template']}
    >
      <TextField
        label="Name"
        required
        autoFocus
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={fieldError(create.error, 'name')}
      />
      <SelectField
        label="Template"
        value={template}
        onChange={(e) => setTemplate(e.target.value as Template)}
        options={TEMPLATES.map((t) => ({ value: t, label: humanize(t) }))}
        error={fieldError(create.error, 'template')}
      />
    </FormDialog>
  );
}
