import { useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { meQueryKey } from '../../app/session';

/** Sign-in, sign-up, password reset and invite acceptance are public pages; the session is the service's cookie. */

/** The card every public page sits in: the brand, a title, a line under it, a link under the card. */
export function AuthCard({
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
export function useNext(): string {
  const [params] = useSearchParams();
  const next = params.get('next') ?? '/flows';
  return next.startsWith('/') && !next.startsWith('//') ? next : '/flows';
}

/** After signing in (or up, or accepting an invite): the session read again, then the page that sent us here. */
export function useSignedIn() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const next = useNext();
  return async () => {
    await client.invalidateQueries({ queryKey: meQueryKey });
    navigate(next, { replace: true });
  };
}
