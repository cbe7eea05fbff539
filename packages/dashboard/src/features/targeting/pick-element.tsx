import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, must } from '../../app/api';
import { Button, FormError, Modal, Notice, TextField } from '../../kit';
import {
  afterPoll,
  lastSiteUrl,
  type Picked,
  type PickState,
  pickTokenBody,
  pickUrl,
  rememberSiteUrl,
  type TargetRef,
} from './target-health';

/**
 * "Pick element": asks for the site URL, makes a pick token, opens the page with it in a new tab,
 * and polls for the pick every second; `onPicked` fills the form.
 */
export function PickElement({
  target,
  saveLabel,
  onPicked,
}: {
  target: TargetRef;
  /** What the author saves to keep the pick ("the step", "the tooltip"). */
  saveLabel: string;
  onPicked(picked: Picked): void;
}) {
  const [open, setOpen] = useState(false);
  const [site, setSite] = useState(lastSiteUrl);
  const [urlError, setUrlError] = useState<string>();
  const [pick, setPick] = useState<PickState>({ state: 'idle' });
  const start = useMutation({
    mutationFn: async () => (await must(api.POST('/api/pick-tokens', { body: pickTokenBody(target) }))).data,
    onSuccess: (token) => {
      const url = pickUrl(site, token.token)!;
      rememberSiteUrl(site.trim());
      setOpen(false);
      setPick({ state: 'waiting', id: token.id, url });
      window.open(url, '_blank', 'noopener');
    },
  });
  useQuery({
    queryKey: ['pick', pick.state === 'waiting' ? pick.id : null],
    enabled: pick.state === 'waiting',
    refetchInterval: 1_000,
    queryFn: async () => {
      if (pick.state !== 'waiting') return null;
      const { data } = await must(api.GET('/api/pick-tokens/{id}', { params: { path: { id: pick.id } } }));
      const next = afterPoll(pick, data);
      if (next !== pick) {
        setPick(next);
        if (next.state === 'picked') onPicked({ selector: next.selector, fingerprint: next.fingerprint });
      }
      return data;
    },
  });
  const submit = () => {
    if (!pickUrl(site, 'x')) {
      setUrlError('Enter the http(s) address of a page of your app where the SDK runs.');
      return;
    }
    setUrlError(undefined);
    start.mutate();
  };
  return (
    <div className="pick-row">
      <Button onClick={() => setOpen(true)}>Pick element</Button>
      {pick.state === 'waiting' ? (
        <span role="status">
          Waiting for your pick in the other tab…{' '}
          <a href={pick.url} target="_blank" rel="noopener">
            open it again
          </a>
        </span>
      ) : null}
      {pick.state === 'picked' ? (
        <span role="status">Picked: the selector is filled in. Save {saveLabel} to keep it.</span>
      ) : null}
      {pick.state === 'expired' ? (
        <Notice kind="error">The pick link expired (10 minutes): pick again.</Notice>
      ) : null}
      <Modal open={open} title="Pick the element on your site" onClose={() => setOpen(false)}>
        {/* Not a <form>: this dialog sits inside the editor's form. */}
        <div className="modal-body">
          <TextField
            label="Page URL"
            type="url"
            placeholder="https://app.example.com/settings"
            value={site}
            onChange={(e) => setSite(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                submit();
              }
            }}
            error={urlError}
            hint="A page of your app with the SDK installed. It opens in a new tab; click the element there."
          />
          <FormError error={start.error} />
          <div className="modal-actions">
            <Button onClick={() => setOpen(false)}>Cancel</Button>
            <Button variant="primary" busy={start.isPending} onClick={submit}>
              Open and pick
            </Button>
          </div>
        </div>
      </Modal>
    </div>
  );
}
