import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, must } from '../../app/api';
import { meQueryKey } from '../../app/session';
import { Button, FormError, fieldError, Notice, TextField } from '../../kit/ui';
import { GoogleSignIn } from './google-sign-in';

/** Sign-in, sign-up, password reset and invite acceptance: public pages, cookie session. */

function AuthCard({
  title,
  subtitle,
  children,
  footer,
}: {
  title: string;
  subtitle?: string;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <main className="auth">
      <div className="auth-card">
        <div className="brand brand-lg">
          <span className="logo" aria-hidden="true">
            G
          </span>
          <span>Guidance</span>
        </div>
        <h1>{title}</h1>
        {subtitle ? <p className="muted">{subtitle}</p> : null}
        {children}
      </div>
      {footer ? <p className="auth-footer">{footer}</p> : null}
    </main>
  );
}

/** Where to go after signing in: the page that sent us here, when it is one of ours. */
function useNext(): string {
  const [params] = useSearchParams();
  const next = params.get('next') ?? '/flows';
  return next.startsWith('/') && !next.startsWith('//') ? next : '/flows';
}

function useSignedIn() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const next = useNext();
  return async () => {
    await client.invalidateQueries({ queryKey: meQueryKey });
    navigate(next, { replace: true });
  };
}

const submit = (fn: () => void) => (e: FormEvent) => {
  e.preventDefault();
  fn();
};

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
      <form onSubmit={submit(() => login.mutate())} noValidate>
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
      </form>
      <GoogleSignIn onSignedIn={done} />
    </AuthCard>
  );
}

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
      <form onSubmit={submit(() => register.mutate())} noValidate>
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
      </form>
      <GoogleSignIn onSignedIn={done} companyName={form.companyName} />
    </AuthCard>
  );
}

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
        <form onSubmit={submit(() => request.mutate())} noValidate>
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
        </form>
      )}
    </AuthCard>
  );
}

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
        <form onSubmit={submit(() => confirm.mutate())} noValidate>
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
        </form>
      )}
    </AuthCard>
  );
}

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
      <form onSubmit={submit(() => accept.mutate())} noValidate>
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
      </form>
    </AuthCard>
  );
}
