import { jwtVerify, SignJWT } from 'jose';
import { AppError } from '../errors.js';

export interface AccessClaims {
  userId: string;
  tenantId: string;
  sessionId: string;
}

/** Short-lived HS256 access tokens; the session row behind `sid` decides revocation. */
export function createTokenService(secret: string, accessTtlSeconds: number) {
  const key = new TextEncoder().encode(secret);
  return {
    accessTtlSeconds,
    /**
     * Signs an access token issued now, or at `issuedAt` (Unix seconds): the same claims and
     * issue time give the same token (HS256 is deterministic), which the refresh grace window uses.
     */
    async signAccess(claims: AccessClaims, issuedAt = Math.floor(Date.now() / 1000)): Promise<string> {
      return new SignJWT({ tid: claims.tenantId, sid: claims.sessionId, typ: 'access' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(claims.userId)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + accessTtlSeconds)
        .sign(key);
    },
    async verifyAccess(token: string): Promise<AccessClaims> {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'] });
        if (payload.typ !== 'access' || typeof payload.sub !== 'string')
          throw new Error('not an access token');
        if (typeof payload.tid !== 'string' || typeof payload.sid !== 'string')
          throw new Error('claims missing');
        return { userId: payload.sub, tenantId: payload.tid, sessionId: payload.sid };
      } catch {
        throw new AppError('AUTH_INVALID_TOKEN');
      }
    },
  };
}
export type TokenService = ReturnType<typeof createTokenService>;
