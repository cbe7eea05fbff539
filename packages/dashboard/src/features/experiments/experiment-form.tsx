import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, must, type Schemas } from '../../app/api';
import { Button, Form, FormFoot, fieldError, TextArea, TextField } from '../../kit';
import { AudiencePicker } from '../audiences';
import { addVariant, type Variant, variantsOf } from './variants';
import { VariantsEditor } from './variants-editor';

/** An experiment's name, audience, hypothesis and variants; created or saved while a draft. */
export function ExperimentForm({
  experiment,
  editable,
}: {
  experiment?: Schemas['Experiment'];
  editable: boolean;
}) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState(experiment?.name ?? '');
  const [description, setDescription] = useState(experiment?.description ?? '');
  const [audienceId, setAudienceId] = useState(experiment?.audienceId ?? '');
  const [variants, setVariants] = useState<Variant[]>(() => variantsOf(experiment));
  const save = useMutation({
    mutationFn: async () => {
      const body = { name, description: description || null, audienceId: audienceId || null, variants };
      if (experiment)
        return must(api.PATCH('/api/experiments/{id}', { params: { path: { id: experiment.id } }, body }));
      return must(api.POST('/api/experiments', { body }));
    },
    onSuccess: (res) => {
      void client.invalidateQueries({ queryKey: ['experiments'] });
      void client.invalidateQueries({ queryKey: ['experiment', res.data.id] });
      if (!experiment) navigate(`/experiments/${res.data.id}`, { replace: true });
    },
  });
  return (
    <Form className="card pad" onSubmit={() => save.mutate()}>
      <fieldset disabled={!editable}>
        <div className="row">
          <TextField
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={fieldError(save.error, 'name')}
          />
          <AudiencePicker
            value={audienceId}
            onChange={setAudienceId}
            error={fieldError(save.error, 'audienceId')}
          />
        </div>
        <TextArea
          label="Hypothesis"
          rows={2}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          error={fieldError(save.error, 'description')}
        />
        <VariantsEditor variants={variants} onChange={setVariants} editable={editable} error={save.error} />
      </fieldset>
      <FormFoot
        error={save.error}
        claimed={['name', 'description', 'audienceId', 'variants']}
        done={save.isSuccess && 'Experiment saved.'}
      >
        {editable ? (
          <>
            <Button onClick={() => setVariants(addVariant)}>Add variant</Button>
            <Button type="submit" variant="primary" busy={save.isPending}>
              {experiment ? 'Save' : 'Create experiment'}
            </Button>
          </>
        ) : null}
      </FormFoot>
    </Form>
  );
}
