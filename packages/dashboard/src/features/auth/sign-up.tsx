import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, must } from '../../app/api';
import { Button, Form, FormError, fieldError, TextField } from '../../kit';
import { AuthCard, useSignedIn } from './auth-card';
import { GoogleSignIn } from './google-sign-in';

/** A new account and its company (or Google when the service offers it). */
export function SignUp() {
  const [form, setForm] = useState({ name: '', companyName: '', email: '', password: '' });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm({ ...form, [k]: e.target.value });
  const done = useSignedIn();
  const register = useMutation({
    mutationFn: () =>
      must(
        api.POST('/api/auth/register', {
          body: { ...form, name: form.name.trim() || undefined },
        }),
      ),
    onSuccess: done,
  });
  const err = (p: string) => fieldError(register.error, p);
  return (
    <AuthCard
      title="Create your account"
      subtitle="Start with a free plan: flows, content and analytics for your web app."
      footer={
        <>
          Already have an account? <Link to="/signin">Sign in</Link>
        </>
      }
    >
      <Form onSubmit={() => register.mutate()}>
        <TextField
          label="Your name"
          autoComplete="name"
          value={form.name}
          onChange={set('name')}
          error={err('name')}
        />
        <TextField
          label="Company"
          autoComplete="organization"
          required
          value={form.companyName}
          onChange={set('companyName')}
          error={err('companyName')}
        />
        <TextField
          label="Email"
          type="email"
          autoComplete="email"
          required
          value={form.email}
          onChange={set('email')}
          error={err('email')}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          hint="At least 8 characters."
          value={form.password}
          onChange={set('password')}
          error={err('password')}
        />
        <FormError error={register.error} claimed={['name', 'companyName', 'email', 'password']} />
        <Button type="submit" variant="primary" className="btn-block" busy={register.isPending}>
          Create account
        </Button>
      </Form>
      <GoogleSignIn onSignedIn={done} companyName={form.companyName} />
    </AuthCard>
  );
}
