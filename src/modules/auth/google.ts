import { createRemoteJWKSet, errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { Config } from '../../config.js';
import { randomHex } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import { type AuthCtx, nowOf } from './context.js';
import { createOwnerAccount, signUpError } from './register.js';
import { type SignedIn, signInMember } from './sign-in.js';
import { findUserByEmail, findUserByGoogleSubject } from './store.js';

const GOOGLE_ISSUERS = ['accounts.google.com', 'https://accounts.google.com'];

/** One remote key set per URL, kept for the process: jose caches the keys and refetches on an unknown `kid`. */
const keySets = new Map<string, JWTVerifyGetKey>();
const keySetFor = (url: string): JWTVerifyGetKey => {
  let set = keySets.get(url);
  if (!set) {
    set = createRemoteJWKSet(new URL(url));
    keySets.set(url, set);
  }
  return set;
};

/** Marks a failure to obtain the keys (network, timeout, bad JWKS) apart from a bad token. */
class KeySetUnavailable extends Error {}

interface GoogleIdentity {
  subject: string;
  email: string;
  name: string | null;
}

/**
 * Verifies a Google ID token: signature against the configured JWKS, audience = our client id,
 * Google's issuer, not expired, and a verified email.
 */
export async function verifyGoogleIdToken(
  config: Config,
  idToken: string,
  now: Date,
): Promise<GoogleIdentity> {
  const { clientId, jwksUrl } = config.google;
  if (!clientId) {
    throw new AppError(
      'EXTERNAL_SERVICE_ERROR',
      'Google sign-in is not configured (GOOGLE_CLIENT_ID is unset)',
    );
  }
  const remote = keySetFor(jwksUrl);
  const getKey: JWTVerifyGetKey = async (header, token) => {
    try {
      return await remote(header, token);
    } catch (err) {
      // No key for this `kid` is the token's fault; anything else is the key set's.
      if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys)
        throw err;
      throw new KeySetUnavailable('Google key set unavailable', { cause: err });
    }
  };
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, getKey, {
      audience: clientId,
      issuer: GOOGLE_ISSUERS,
      algorithms: ['RS256'],
      currentDate: now,
    }));
  } catch (err) {
    if (err instanceof KeySetUnavailable) {
      throw new AppError('EXTERNAL_SERVICE_ERROR', 'Could not reach Google to verify the sign-in');
    }
    throw new AppError('AUTH_INVALID_TOKEN', 'Google ID token is invalid or expired');
  }
  const { sub, email, name } = payload as JWTPayload & { email?: unknown; name?: unknown };
  const verified = payload.email_verified === true || payload.email_verified === 'true';
  if (typeof sub !== 'string' || !sub || typeof email !== 'string' || !email) {
    throw new AppError('AUTH_INVALID_TOKEN', 'Google ID token lacks a subject or an email');
  }
  if (!verified) throw new AppError('AUTH_INVALID_TOKEN', 'The Google account email is not verified');
  return {
    subject: sub,
    email: email.trim().toLowerCase(),
    name: typeof name === 'string' && name.trim() ? name.trim() : null,
  };
}

interface GoogleSignInInput {
  idToken: string;
  companyName?: string | undefined;
  tenantId?: string | undefined;
}

/**
 * Signs in a Google account, or creates it with a tenant of its own. `created` tells the route
 * to answer 201 (a sign-up) rather than 200.
 */
export async function googleSignIn(
  ctx: AuthCtx,
  input: GoogleSignInInput,
): Promise<{ result: SignedIn; created: boolean }> {
  const identity = await verifyGoogleIdToken(ctx.deps.config, input.idToken, nowOf(ctx));
  const db = ctx.deps.database.db;
  const user =
    (await findUserByGoogleSubject(db, identity.subject)) ?? (await findUserByEmail(db, identity.email));
  if (user) {
    // A password account (or another Google identity) owns this email.
    if (user.authProvider !== 'google' || (user.googleSubject && user.googleSubject !== identity.subject)) {
      throw new AppError('AUTH_PROVIDER_MISMATCH', 'This email is registered with a password');
    }
    const result = await signInMember(
      ctx,
      user,
      input.tenantId,
      'google',
      'This account belongs to no workspace',
    );
    return { result, created: false };
  }
  return { result: await googleSignUp(ctx, identity, input.companyName), created: true };
}

/**
 * Without a company name the tenant is "<name>'s workspace"; such a default name may already
 * be taken, so it gets a short suffix and another try. An explicit name that is taken is a 409.
 */
async function googleSignUp(ctx: AuthCtx, identity: GoogleIdentity, companyName?: string): Promise<SignedIn> {
  const base = companyName ?? `${identity.name ?? identity.email.split('@')[0]}'s workspace`;
  for (let attempt = 0; ; attempt++) {
    const name = attempt === 0 ? base : `${base} ${randomHex(2)}`;
    try {
      return await createOwnerAccount(
        ctx,
        {
          email: identity.email,
          name: identity.name,
          passwordHash: null,
          authProvider: 'google',
          googleSubject: identity.subject,
        },
        name,
        'google',
      );
    } catch (err) {
      const mapped = signUpError(ctx, err);
      if (mapped.code === 'TENANT_EXISTS' && companyName === undefined && attempt < 4) continue;
      throw mapped;
    }
  }
}
