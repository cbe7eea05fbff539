import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { api, must } from '../../app/api';
import { Button, Form, FormError, fieldError, Notice, TextField } from '../../kit';
import { AuthCard } from './auth-card';

/** "Forgot your password?": a reset link by email. */
export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const request = useMutation({
    mutationFn: () => must(api.POST('/api/auth/password-reset/request', { body: { email } })),
  });
  return (
    <AuthCard
      title="Reset your password"
      subtitle="We will email you a link to choose a new password."
      footer={<Link to="/signin">Back to sign in</Link>}
    >
      {request.isSuccess ? (
        <Notice kind="success">
          If an account uses {email}, a reset link is on its way. It works for a limited time.
        </Notice>
      ) : (
        <Form onSubmit={() => request.mutate()}>
          <TextField
            label="Email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={fieldError(request.error, 'email')}
          />
          <FormError error={request.error} claimed={['email']} />
          <Button type="submit" variant="primary" className="btn-block" busy={request.isPending}>
            Send reset link
          </Button>
        </Form>
      )}
    </AuthCard>
  );
}

/** The reset email's link: a new password. */
export function ResetPassword() {
  const { token = '' } = useParams();
  const [password, setPassword] = useState('');
  const confirm = useMutation({
    mutationFn: () => must(api.POST('/api/auth/password-reset/confirm', { body: { token, password } })),
  });
  return (
    <AuthCard title="Choose a new password" footer={<Link to="/signin">Back to sign in</Link>}>
      {confirm.isSuccess ? (
        <Notice kind="success">
          Your password is changed. <Link to="/signin">Sign in</Link> with it.
        </Notice>
      ) : (
        <Form onSubmit={() => confirm.mutate()}>
          <TextField
            label="New password"
            type="password"
            autoComplete="new-password"
            hint="At least 8 characters."
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={fieldError(confirm.error, 'password')}
          />
          <FormError error={confirm.error} claimed={['password']} />
          <Button type="submit" variant="primary" className="btn-block" busy={confirm.isPending}>
            Set password
          </Button>
        </Form>
      )}
    </AuthCard>
  );
}
