import { surveyResponses } from '../../db/schema/index.js';
import type { ServiceCtx } from '../../platform/context.js';
import type { PageRequest } from '../../platform/pagination.js';
import { CONTENT_DEFS } from './definitions.js';
import { contentStore } from './service.js';
import { listResponses } from './store.js';

const SURVEY_RESPONSES = {
  table: surveyResponses,
  parent: surveyResponses.surveyId,
  columns: {
    id: surveyResponses.id,
    surveyId: surveyResponses.surveyId,
    endUserId: surveyResponses.endUserId,
    response: surveyResponses.response,
    submittedAt: surveyResponses.submittedAt,
    tenantId: surveyResponses.tenantId,
  },
};

/** Responses to one survey of the tenant (any status), newest first. */
export const listSurveyResponses = (ctx: ServiceCtx, surveyId: string, page: PageRequest) =>
  listResponses(ctx, contentStore(CONTENT_DEFS.surveys), surveyId, page, SURVEY_RESPONSES);
