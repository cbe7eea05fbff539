import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, must } from '../../app/api';
import { Button, Form, FormError, fieldError, TextField } from '../../kit';
import { AuthCard, useSignedIn } from './auth-card';

/** An invite email's (or a shareable invite link's) page: join the company, with a new account or an existing one. */
export function AcceptInvite() {
  const { token = '' } = useParams();
  const [form, setForm] = useState({ email: '', name: '', password: '' });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: e.target.value });
  const done = useSignedIn();
  const accept = useMutation({
    mutationFn: () =>
      must(
        api.POST('/api/auth/invites/accept', {
          body: {
            token,
            email: form.email.trim() || undefined,
            name: form.name.trim() || undefined,
            password: form.password || undefined,
          },
        }),
      ),
    onSuccess: done,
  });
  const err = (p: string) => fieldError(accept.error, p);
  return (
    <AuthCard
      title="Join your team"
      subtitle="You were invited to a company on Guidance. Create your account (or confirm your existing one) to join."
      footer={<Link to="/signin">Back to sign in</Link>}
    >
      <Form onSubmit={() => accept.mutate()}>
        <TextField
          label="Email"
          type="email"
          autoComplete="email"
          hint="Needed for a shared invite link."
          value={form.email}
          onChange={set('email')}
          error={err('email')}
        />
        <TextField
          label="Your name"
          autoComplete="name"
          value={form.name}
          onChange={set('name')}
          error={err('name')}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          hint="A new password (8+ characters), or your existing account's password."
          value={form.password}
          onChange={set('password')}
          error={err('password')}
        />
        <FormError error={accept.error} claimed={['email', 'name', 'password']} />
        <Button type="submit" variant="primary" className="btn-block" busy={accept.isPending}>
          Accept invite
        </Button>
      </Form>
    </AuthCard>
  );
}
