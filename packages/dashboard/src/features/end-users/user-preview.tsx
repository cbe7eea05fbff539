import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { Button, Form, TextField } from '../../kit';
import { DeliveryExplanation } from '../delivery';

/**
 * "Preview as this user" on the end-user page: a page URL, and what a session of theirs there
 * would be shown now, and why not the rest (the Delivery page's explanation). The URL is in the
 * page's address (`?url=`), so a preview can be linked.
 */
export function UserPreview({ endUserId, name }: { endUserId: string; name: string }) {
  const [params, setParams] = useSearchParams();
  const url = params.get('url');
  const [urlInput, setUrlInput] = useState(url ?? '');
  return (
    <section className="end-user-preview" aria-labelledby="end-user-preview">
      <h2 id="end-user-preview">Preview as this user</h2>
      <Form
        className="card pad preview-form preview-form-url"
        aria-label="Preview as this user"
        onSubmit={() => setParams({ url: urlInput.trim(), at: String(Date.now()) }, { replace: true })}
      >
        <TextField
          label="Page URL"
          type="url"
          value={urlInput}
          placeholder="https://app.example.com/home"
          onChange={(e) => setUrlInput(e.target.value)}
        />
        <Button type="submit" variant="primary" className="preview-submit">
          Preview
        </Button>
      </Form>
      {url === null ? (
        <p className="muted small">
          A page URL shows what this user would be shown there now (nothing is recorded, no cap is spent).
        </p>
      ) : (
        <DeliveryExplanation user={endUserId} name={name} url={url} at={params.get('at')} />
      )}
    </section>
  );
}
