import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Button, Empty, Form, TextField } from '../../kit';
import { DeliveryExplanation } from './explanation';

/**
 * "Preview as this user": an end user (its userId, or the service's id, or one picked on the End
 * users page, which links here with `?user=`) and a URL; what a session on that page would do
 * with every item now, and why (explanation.tsx). The query is in the page's URL.
 */
export function Preview() {
  const [params, setParams] = useSearchParams();
  const user = params.get('user') ?? '';
  const url = params.get('url') ?? '';
  const [userInput, setUserInput] = useState(user);
  const [urlInput, setUrlInput] = useState(url);
  return (
    <div className="preview-page">
      <Form
        className="card pad preview-form"
        aria-label="Preview as this user"
        onSubmit={() =>
          setParams(
            { user: userInput.trim(), url: urlInput.trim(), at: String(Date.now()) },
            { replace: true },
          )
        }
      >
        <TextField
          label="User"
          value={userInput}
          placeholder="userId, or the end user's id"
          onChange={(e) => setUserInput(e.target.value)}
        />
        <TextField
          label="Page URL"
          type="url"
          value={urlInput}
          placeholder="https://app.example.com/home"
          onChange={(e) => setUrlInput(e.target.value)}
        />
        <Button type="submit" variant="primary" className="preview-submit" disabled={userInput.trim() === ''}>
          Preview
        </Button>
      </Form>
      {user === '' ? (
        <Empty title="Preview as this user">
          Type a user's id (or pick one on the <Link to="/end-users">End users</Link> page) and a page URL to
          see what they would be shown there now, and why not the rest.
        </Empty>
      ) : (
        <DeliveryExplanation user={user} url={url} at={params.get('at')} />
      )}
    </div>
  );
}
