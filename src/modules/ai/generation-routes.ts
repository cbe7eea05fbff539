import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { requireRole } from '../../platform/auth/guard.js';
import { ctxOf } from '../../platform/context.js';
import { errors } from '../../platform/http/schemas.js';
import { commitContent, generateContent } from './generation.js';
import { translateContent } from './machine-translation.js';
import {
  commitContentBody,
  commitContentResponse,
  generateContentBody,
  generateContentResponse,
  suggestAudienceBody,
  suggestAudienceResponse,
  suggestFlowBody,
  suggestFlowResponse,
  translateBody,
  translateResponse,
} from './schemas.js';
import { suggestAudience, suggestFlow } from './suggest.js';

const tags = ['ai'];
const editor = { auth: requireRole('EDITOR') };
const aiErrors = errors(400, 401, 402, 403, 500);

/** Generation and suggestions: EDITOR and above (they use AI or create content). */
export const generationRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/api/ai/generate-content',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Draft content of a type from a description (validated, nothing stored)',
        description:
          'Drafts content of a type, validated by the create schema of the matching endpoint (one repair attempt, then 500). Nothing is persisted.',
        body: generateContentBody,
        response: { 200: generateContentResponse, ...aiErrors },
      },
    },
    async (request) => ({ data: await generateContent(ctxOf(request), app.deps, request.body) }),
  );

  app.post(
    '/api/ai/commit-content',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Create generated content: the parent and its children in one transaction',
        description:
          'Creates the content of `aiData` (parent and children in one transaction) after validating it with the create schema: invalid → 400 naming the field under aiData.',
        body: commitContentBody,
        response: { 201: commitContentResponse, ...errors(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await commitContent(ctxOf(request), request.body) }),
  );

  app.post(
    '/api/ai/suggest-flow',
    {
      config: editor,
      schema: {
        tags,
        summary: "Suggest a flow's steps for a page, segment and goal",
        body: suggestFlowBody,
        response: { 200: suggestFlowResponse, ...aiErrors },
      },
    },
    async (request) => ({ data: await suggestFlow(ctxOf(request), app.deps, request.body) }),
  );

  app.post(
    '/api/ai/suggest-audience',
    {
      config: editor,
      schema: {
        tags,
        summary: 'Turn a description into an audience rule tree',
        body: suggestAudienceBody,
        response: { 200: suggestAudienceResponse, ...aiErrors },
      },
    },
    async (request) => ({ data: await suggestAudience(ctxOf(request), app.deps, request.body.description) }),
  );

  app.post(
    '/api/ai/translate',
    {
      config: editor,
      schema: {
        tags,
        summary: "Translate a content item's text fields into a locale",
        description:
          "Translates a flow's or content item's texts into a locale of the tenant and writes them as translations. Existing translations are kept unless overwrite; one changed meanwhile is skipped (version check).",
        body: translateBody,
        response: { 200: translateResponse, ...errors(400, 401, 402, 403, 404, 500) },
      },
    },
    async (request) => ({ data: await translateContent(ctxOf(request), app.deps, request.body) }),
  );
};
