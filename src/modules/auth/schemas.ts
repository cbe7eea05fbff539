import { z } from 'zod';
import { dataOf, email, role, uuid } from '../../platform/http/schemas.js';

const newPassword = z.string().min(8).max(128);
/** At sign-in any length is tried (up to a bound that keeps argon2 cheap); the 8-128 rule is for new passwords. */
const givenPassword = z.string().min(1).max(1024);
const token = z.string().min(1).max(512);

export const registerBody = z.object({
  email,
  password: newPassword,
  name: z.string().trim().min(1).max(255).optional(),
  companyName: z.string().trim().min(1).max(255),
});

export const loginBody = z.object({
  email,
  password: givenPassword,
  tenantId: uuid.optional().describe('Which tenant to sign in to; default: the oldest membership'),
});

export const refreshBody = z
  .object({
    refreshToken: z
      .string()
      .max(512)
      .optional()
      .describe('For non-browser clients; browsers send the cookie'),
  })
  .nullish();

export const passwordResetRequestBody = z.object({ email });
export const passwordResetConfirmBody = z.object({ token, password: newPassword });

export const acceptInviteBody = z.object({
  token,
  email: email.optional().describe('Required with an invite link (not with an emailed invite)'),
  name: z.string().trim().min(1).max(255).optional(),
  password: newPassword
    .optional()
    .describe('Required to create an account; for an existing password account, its password'),
  idToken: z
    .string()
    .min(1)
    .max(8192)
    .optional()
    .describe('Google ID token of the existing Google account the emailed invite is addressed to'),
});

export const googleBody = z.object({
  idToken: z.string().min(1).max(8192),
  companyName: z.string().trim().min(1).max(255).optional(),
  tenantId: uuid.optional(),
});

const user = z.object({ id: uuid, email: z.string(), name: z.string().nullable() });
const tenant = z.object({ id: uuid, name: z.string(), slug: z.string() });

export const signedInResponse = dataOf(
  z.object({
    user,
    tenant,
    role,
    accessToken: z.string().describe('Also set as the session_token cookie'),
  }),
);
export const refreshResponse = dataOf(z.object({ accessToken: z.string() }));
export const meResponse = dataOf(z.object({ user, tenant, role }));
export const acceptedResponse = dataOf(z.object({ accepted: z.literal(true) }));
export const successResponse = dataOf(z.object({ success: z.literal(true) }));

export const authProvidersResponse = dataOf(
  z
    .object({
      password: z.literal(true).describe('email and password: always offered'),
      google: z
        .object({ clientId: z.string().describe('the OAuth client id for Google Identity Services') })
        .nullable()
        .describe('null when GOOGLE_CLIENT_ID is not configured'),
    })
    .meta({ id: 'AuthProviders' }),
);
