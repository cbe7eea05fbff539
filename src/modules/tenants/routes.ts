import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { emptyResponse, errors, idParams } from '../../platform/http/schemas.js';
import { listInviteLinks, revokeInviteLink } from './invite-links.js';
import { createInviteLink, type InviteEnv, inviteMember, resendInvite } from './invites.js';
import { changeMemberRole, getMember, listMembers, removeMember } from './members.js';
import {
  changeRoleBody,
  inviteLinkBody,
  inviteLinkList,
  inviteLinkResponse,
  inviteMemberBody,
  listInviteLinksQuery,
  listMembersQuery,
  memberList,
  memberResponse,
  tenantResponse,
  updateTenantBody,
} from './schemas.js';
import { getCurrentTenant, updateCurrentTenant } from './tenant-service.js';

const tags = ['tenants'];
const viewer = { auth: requireRole('VIEWER') };
const admin = { auth: requireRole('ADMIN') };
const owner = { auth: requireRole('OWNER') };

export const tenantRoutes: FastifyPluginAsyncZod = async (app) => {
  const env: InviteEnv = {
    mailer: app.deps.mailer,
    appUrl: app.deps.config.appUrl,
    log: app.log,
  };

  app.get(
    '/api/tenants/current',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get the current company',
        response: { 200: tenantResponse, ...errors(401, 403) },
      },
    },
    async (request) => ({ data: await getCurrentTenant(ctxOf(request)) }),
  );

  app.patch(
    '/api/tenants/current',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Update the current company',
        description:
          'Partial update. `settings` is merged shallowly into the stored settings: a key set to null is removed, keys not sent are kept (64 KiB cap).',
        body: updateTenantBody,
        response: { 200: tenantResponse, ...errors(400, 401, 403, 409) },
      },
    },
    async (request) => ({ data: await updateCurrentTenant(ctxOf(request), request.body) }),
  );

  app.get(
    '/api/tenants/members',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'List members and pending invites',
        querystring: listMembersQuery,
        response: { 200: memberList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listMembers(ctxOf(request), request.query),
  );

  app.post(
    '/api/tenants/members',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Invite a member by email',
        description: 'Invites by email: a pending member; inviting an OWNER needs the OWNER role.',
        body: inviteMemberBody,
        response: { 201: memberResponse, ...errors(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const member = await inviteMember(ctxOf(request), env, request.auth!.role, request.body);
      return reply.code(201).send({ data: member });
    },
  );

  app.get(
    '/api/tenants/members/:id',
    {
      config: viewer,
      schema: {
        tags,
        summary: 'Get a member',
        params: idParams,
        response: { 200: memberResponse, ...errors(401, 403, 404) },
      },
    },
    async (request) => ({ data: await getMember(ctxOf(request), request.params.id) }),
  );

  app.patch(
    '/api/tenants/members/:id',
    {
      config: owner,
      schema: {
        tags,
        summary: "Change a member's role",
        description:
          "Changes a member's role. A demotion revokes the member's usable invite links that grant a role above the new one.",
        params: idParams,
        body: changeRoleBody,
        response: { 200: memberResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => ({
      data: await changeMemberRole(ctxOf(request), request.params.id, request.body.role),
    }),
  );

  app.delete(
    '/api/tenants/members/:id',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Remove a member or withdraw an invite',
        description:
          'Removes the member (or withdraws a pending invite), revokes their sessions in this tenant and every usable invite link they created. Removing an OWNER needs the OWNER role.',
        params: idParams,
        response: { 204: emptyResponse, ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await removeMember(ctxOf(request), request.auth!.role, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/api/tenants/members/:id/resend-invite',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Resend a pending invite',
        params: idParams,
        response: { 200: memberResponse, ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => ({ data: await resendInvite(ctxOf(request), env, request.params.id) }),
  );

  app.post(
    '/api/tenants/invites/link',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Create an invite link',
        body: inviteLinkBody,
        response: { 201: inviteLinkResponse, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const link = await createInviteLink(ctxOf(request), env, request.auth!.role, request.body.role);
      return reply.code(201).send({ data: link });
    },
  );

  app.get(
    '/api/tenants/invites/links',
    {
      config: admin,
      schema: {
        tags,
        summary: 'List usable invite links',
        description:
          'The usable (neither expired nor revoked) invite links, newest first; never their tokens.',
        querystring: listInviteLinksQuery,
        response: { 200: inviteLinkList, ...errors(400, 401, 403) },
      },
    },
    async (request) => listInviteLinks(ctxOf(request), request.query),
  );

  app.delete(
    '/api/tenants/invites/links/:id',
    {
      config: admin,
      schema: {
        tags,
        summary: 'Revoke an invite link',
        description:
          'Revokes a usable invite link: it stops working at once. An OWNER link needs the OWNER role; an unknown, expired or already revoked link answers 404.',
        params: idParams,
        response: { 204: emptyResponse, ...errors(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await revokeInviteLink(ctxOf(request), request.auth!.role, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
