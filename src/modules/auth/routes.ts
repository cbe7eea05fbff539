import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { clearAuthCookies, REFRESH_COOKIE, readCookie, setAuthCookies } from '../../platform/auth/cookies.js';
import { publicRoute, requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { emptyResponse, errors } from '../../platform/http/schemas.js';
import { acceptInvite } from './accept-invite.js';
import { authCtxOf } from './context.js';
import { googleSignIn } from './google.js';
import { login, timingDummyHash } from './login.js';
import { confirmPasswordReset, requestPasswordReset } from './password-reset.js';
import { register } from './register.js';
import {
  acceptedResponse,
  acceptInviteBody,
  authProvidersResponse,
  googleBody,
  loginBody,
  meResponse,
  passwordResetConfirmBody,
  passwordResetRequestBody,
  refreshBody,
  refreshResponse,
  registerBody,
  signedInResponse,
  successResponse,
} from './schemas.js';
import { getMe, logout, refreshSession, type SignedIn } from './sign-in.js';

const tags = ['auth'];
const authScope = { auth: publicRoute('auth') };
const viewer = { auth: requireRole('VIEWER') };

export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  // Warm the hash that unknown-email logins verify against, so the first one is not slower.
  void timingDummyHash();

  /** Sets both cookies and answers the sign-in body (the refresh token travels only in its cookie). */
  const signedIn = (reply: FastifyReply, status: 200 | 201, result: SignedIn) => {
    setAuthCookies(reply, app.deps.config, result);
    const { refreshToken: _, ...data } = result;
    return reply.code(status).send({ data });
  };

  app.post(
    '/api/auth/register',
    {
      config: authScope,
      schema: {
        tags,
        summary: 'Register a user and a new company, and sign in',
        body: registerBody,
        response: { 201: signedInResponse, ...errors(400, 409, 429, 500) },
      },
    },
    async (request, reply) => signedIn(reply, 201, await register(authCtxOf(request), request.body)),
  );

  app.post(
    '/api/auth/login',
    {
      config: authScope,
      schema: {
        tags,
        summary: 'Sign in with email and password',
        body: loginBody,
        response: { 200: signedInResponse, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => signedIn(reply, 200, await login(authCtxOf(request), request.body)),
  );

  app.post(
    '/api/auth/refresh',
    {
      config: { auth: publicRoute('refresh') },
      schema: {
        tags,
        summary: 'Rotate the refresh token and get a new access token',
        description: 'Rotates the refresh token (cookie `refresh_token`, or body `refreshToken`).',
        body: refreshBody,
        response: { 200: refreshResponse, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const token = readCookie(request, REFRESH_COOKIE) || request.body?.refreshToken || undefined;
      const tokens = await refreshSession(authCtxOf(request), token);
      setAuthCookies(reply, app.deps.config, tokens);
      return { data: { accessToken: tokens.accessToken } };
    },
  );

  app.post(
    '/api/auth/logout',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Sign out (revokes this session)',
        response: { 204: emptyResponse, ...errors(401, 429) },
      },
    },
    async (request, reply) => {
      await logout(ctxOf(request), request.auth!.sessionId);
      clearAuthCookies(reply, app.deps.config);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/auth/me',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get the signed-in user, company and role',
        response: { 200: meResponse, ...errors(401, 429) },
      },
    },
    async (request) => ({ data: await getMe(ctxOf(request), request.auth!.role) }),
  );

  app.post(
    '/api/auth/password-reset/request',
    {
      config: authScope,
      schema: {
        tags,
        summary: 'Request a password reset email',
        description: 'Answers 202 whether or not the email belongs to an account.',
        body: passwordResetRequestBody,
        response: { 202: acceptedResponse, ...errors(400, 429) },
      },
    },
    async (request, reply) => {
      await requestPasswordReset(authCtxOf(request), request.body.email);
      return reply.code(202).send({ data: { accepted: true as const } });
    },
  );

  app.post(
    '/api/auth/password-reset/confirm',
    {
      config: authScope,
      schema: {
        tags,
        summary: 'Set a new password with a reset token',
        body: passwordResetConfirmBody,
        response: { 200: successResponse, ...errors(400, 429) },
      },
    },
    async (request) => {
      await confirmPasswordReset(authCtxOf(request), request.body);
      return { data: { success: true as const } };
    },
  );

  app.post(
    '/api/auth/invites/accept',
    {
      config: authScope,
      schema: {
        tags,
        summary: 'Accept an invite (email or link) and sign in',
        description:
          'Accepts an emailed invite or an invite link, then signs in like login. An existing account ' +
          'proves it is the invitee: its password, or for a Google account (emailed invites) `idToken`.',
        body: acceptInviteBody,
        response: { 200: signedInResponse, ...errors(400, 401, 403, 409, 429, 500) },
      },
    },
    async (request, reply) => signedIn(reply, 200, await acceptInvite(authCtxOf(request), request.body)),
  );

  app.get(
    '/api/auth/providers',
    {
      config: authScope,
      schema: {
        tags,
        summary: 'The sign-in methods this service offers (the dashboard shows Google only when configured)',
        response: { 200: authProvidersResponse, ...errors(429) },
      },
    },
    async () => {
      const clientId = app.deps.config.google.clientId;
      return { data: { password: true as const, google: clientId ? { clientId } : null } };
    },
  );

  app.post(
    '/api/auth/google',
    {
      config: authScope,
      schema: {
        tags,
        summary: 'Sign in or sign up with Google',
        description: 'Google sign-in with an ID token: 201 when it creates the account, 200 otherwise.',
        body: googleBody,
        response: {
          200: signedInResponse,
          201: signedInResponse,
          ...errors(400, 401, 409, 429, 500),
        },
      },
    },
    async (request, reply) => {
      const { result, created } = await googleSignIn(authCtxOf(request), request.body);
      return signedIn(reply, created ? 201 : 200, result);
    },
  );
};
