import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, must } from '../../app/api';
import { Button, Form, FormError, fieldError, TextField } from '../../kit';
import { AuthCard, useSignedIn } from './auth-card';
import { GoogleSignIn } from './google-sign-in';

/** Sign in with email and password (or Google when the service offers it). */
export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const done = useSignedIn();
  const login = useMutation({
    mutationFn: () => must(api.POST('/api/auth/login', { body: { email, password } })),
    onSuccess: done,
  });
  return (
    <AuthCard
      title="Sign in"
      subtitle="Welcome back. Sign in to build, target and measure your product's guidance."
      footer={
        <>
          New here? <Link to="/signup">Create an account</Link>
        </>
      }
    >
      <Form onSubmit={() => login.mutate()}>
        <TextField
          label="Email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={fieldError(login.error, 'email')}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={fieldError(login.error, 'password')}
        />
        <FormError error={login.error} claimed={['email', 'password']} />
        <Button type="submit" variant="primary" className="btn-block" busy={login.isPending}>
          Sign in
        </Button>
        <p className="auth-links">
          <Link to="/forgot-password">Forgot your password?</Link>
        </p>
      </Form>
      <GoogleSignIn onSignedIn={done} />
    </AuthCard>
  );
}
