import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { api, must } from '../../app/api';
import { FormError } from '../../kit';

/**
 * "Sign in with Google", shown only when the service has a Google client id
 * (`GET /api/auth/providers`). Google Identity Services draws its own button; the ID token it
 * hands back is exchanged at `POST /api/auth/google`, which sets the session cookies. The script
 * is loaded only on these pages and only when Google is configured (the CSP allows it then).
 */

interface GoogleIdentity {
  accounts: {
    id: {
      initialize(options: { client_id: string; callback: (reply: { credential: string }) => void }): void;
      renderButton(parent: HTMLElement, options: Record<string, unknown>): void;
    };
  };
}

declare global {
  interface Window {
    google?: GoogleIdentity;
  }
}

const GSI_SRC = 'https://accounts.google.com/gsi/client';
let loading: Promise<void> | undefined;

function loadGoogleIdentity(): Promise<void> {
  loading ??= new Promise<void>((resolve, reject) => {
    const script = document.createElement('script');
    script.src = GSI_SRC;
    script.async = true;
    script.onload = () => resolve();
    script.onerror = () => {
      loading = undefined;
      reject(new Error('Google Identity Services did not load'));
    };
    document.head.append(script);
  });
  return loading;
}

export function GoogleSignIn({ onSignedIn, companyName }: { onSignedIn: () => void; companyName?: string }) {
  const providers = useQuery({
    queryKey: ['auth-providers'],
    queryFn: () => must(api.GET('/api/auth/providers')),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const clientId = providers.data?.data.google?.clientId;
  const holder = useRef<HTMLDivElement>(null);
  const [unavailable, setUnavailable] = useState(false);
  const signIn = useMutation({
    mutationFn: (idToken: string) =>
      must(
        api.POST('/api/auth/google', { body: { idToken, companyName: companyName?.trim() || undefined } }),
      ),
    onSuccess: onSignedIn,
  });
  const mutate = useRef(signIn.mutate);
  mutate.current = signIn.mutate;

  useEffect(() => {
    if (!clientId) return;
    let cancelled = false;
    loadGoogleIdentity().then(
      () => {
        if (cancelled || !window.google || !holder.current) return;
        window.google.accounts.id.initialize({
          client_id: clientId,
          callback: (reply) => mutate.current(reply.credential),
        });
        window.google.accounts.id.renderButton(holder.current, {
          type: 'standard',
          theme: 'outline',
          text: 'continue_with',
          width: 360,
        });
      },
      () => {
        if (!cancelled) setUnavailable(true);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [clientId]);

  if (!clientId) return null;
  return (
    <div className="auth-alt">
      <div className="auth-divider">
        <span>or</span>
      </div>
      <div ref={holder} className="google-button" />
      {unavailable ? (
        <p className="muted">Google sign-in could not be loaded; use your email and password.</p>
      ) : null}
      <FormError error={signIn.error} claimed={[]} />
    </div>
  );
}
