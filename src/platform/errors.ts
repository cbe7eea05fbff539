/** One error type for the whole service; `http/error-handler.ts` turns it into the spec's envelope. */

export const ERROR_CATEGORIES = [
  'VALIDATION',
  'AUTH',
  'NOT_FOUND',
  'CONFLICT',
  'RATE_LIMIT',
  'EXTERNAL_SERVICE',
  'INTERNAL',
] as const;

export type ErrorCategory = (typeof ERROR_CATEGORIES)[number];

const catalogue = {
  VALIDATION_ERROR: [400, 'VALIDATION', 'Request validation failed'],
  INVALID_INVITE_TOKEN: [400, 'VALIDATION', 'Invite token is invalid or expired'],
  INVALID_RESET_TOKEN: [400, 'VALIDATION', 'Password reset token is invalid or expired'],
  MISSING_TENANT_ID: [400, 'VALIDATION', 'Tenant context cannot be determined'],
  AI_NOT_CONFIGURED: [400, 'VALIDATION', 'No AI provider is configured'],
  AI_KEY_INVALID: [400, 'VALIDATION', 'The AI provider rejected the API key'],
  AUTH_FAILED: [401, 'AUTH', 'API key missing, invalid, revoked or expired'],
  AUTH_NO_TOKEN: [401, 'AUTH', 'Authentication required'],
  AUTH_INVALID_TOKEN: [401, 'AUTH', 'Token is malformed or expired'],
  AUTH_TOKEN_REVOKED: [401, 'AUTH', 'Token has been revoked'],
  AUTH_INVALID_CREDENTIALS: [401, 'AUTH', 'Invalid email or password'],
  AUTH_PROVIDER_MISMATCH: [401, 'AUTH', 'Account is registered with a different sign-in method'],
  AUTH_NO_REFRESH_TOKEN: [401, 'AUTH', 'Refresh token missing'],
  AUTH_INVALID_REFRESH_TOKEN: [401, 'AUTH', 'Refresh token is invalid or expired'],
  INSUFFICIENT_AI_TOKENS: [402, 'RATE_LIMIT', 'AI token balance exhausted'],
  FORBIDDEN: [403, 'AUTH', 'Not permitted'],
  INSUFFICIENT_ROLE: [403, 'AUTH', 'Your role does not allow this action'],
  PLAN_LIMIT_REACHED: [403, 'AUTH', 'Plan limit reached'],
  PLAN_FEATURE_UNAVAILABLE: [403, 'AUTH', 'Feature not available on the current plan'],
  AI_DISABLED: [403, 'AUTH', 'AI features are disabled'],
  NOT_FOUND: [404, 'NOT_FOUND', 'Not found'],
  USER_NOT_FOUND: [404, 'NOT_FOUND', 'User not found'],
  TENANT_NOT_FOUND: [404, 'NOT_FOUND', 'Company not found'],
  CONTENT_NOT_FOUND: [404, 'NOT_FOUND', 'Content not found'],
  PICK_TOKEN_INVALID: [404, 'NOT_FOUND', 'The pick link is not valid'],
  PICK_TOKEN_EXPIRED: [410, 'CONFLICT', 'The pick link has expired'],
  PICK_TOKEN_USED: [410, 'CONFLICT', 'The pick link was already used'],
  EMAIL_EXISTS: [409, 'CONFLICT', 'Email already registered'],
  TENANT_EXISTS: [409, 'CONFLICT', 'Company name already exists'],
  MEMBER_EXISTS: [409, 'CONFLICT', 'Already a member'],
  AUDIENCE_IN_USE: [409, 'CONFLICT', 'Audience is still referenced'],
  LOCALE_IN_USE: [409, 'CONFLICT', 'Locale still has translations'],
  INVALID_STATE_TRANSITION: [409, 'CONFLICT', 'This action is not allowed in the current state'],
  VERSION_CONFLICT: [409, 'CONFLICT', 'The record was changed by someone else'],
  RESEND_LIMIT_REACHED: [409, 'CONFLICT', 'Invite resend limit reached'],
  LAST_OWNER: [409, 'CONFLICT', 'The last owner cannot be removed or demoted'],
  ALREADY_ENROLLED: [409, 'CONFLICT', 'The end user may not enroll in this journey now'],
  REQUEST_TIMEOUT: [408, 'VALIDATION', 'The request was not received in time'],
  PAYLOAD_TOO_LARGE: [413, 'VALIDATION', 'Request body is too large'],
  EXPECTATION_FAILED: [417, 'VALIDATION', 'Only "Expect: 100-continue" is supported'],
  HEADERS_TOO_LARGE: [431, 'VALIDATION', 'Request headers are too large'],
  RATE_LIMITED: [429, 'RATE_LIMIT', 'Too many requests'],
  INTERNAL_ERROR: [500, 'INTERNAL', 'Internal server error'],
  EXTERNAL_SERVICE_ERROR: [500, 'EXTERNAL_SERVICE', 'An external service failed'],
  REGISTRATION_FAILED: [500, 'INTERNAL', 'Registration could not complete'],
  SERVICE_UNAVAILABLE: [503, 'INTERNAL', 'Service unavailable'],
} as const satisfies Record<string, readonly [number, ErrorCategory, string]>;

export type ErrorCode = keyof typeof catalogue;

/** Every code the service can answer with (the OpenAPI `Error` schema lists them). */
export const ERROR_CODES = Object.keys(catalogue) as [ErrorCode, ...ErrorCode[]];

export interface ValidationIssue {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly category: ErrorCategory;
  readonly details: unknown;

  constructor(code: ErrorCode, message?: string, details?: unknown) {
    const [statusCode, category, defaultMessage] = catalogue[code];
    super(message ?? defaultMessage);
    this.name = 'AppError';
    this.code = code;
    this.statusCode = statusCode;
    this.category = category;
    this.details = details;
  }

  toEnvelope() {
    return {
      error: {
        message: this.message,
        statusCode: this.statusCode,
        code: this.code,
        category: this.category,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

export const validationError = (issues: ValidationIssue[], message?: string) =>
  new AppError('VALIDATION_ERROR', message ?? issues[0]?.message ?? undefined, issues);

/** 404 for flows, steps, content, NPS surveys, responses, journeys, experiments (DECISIONS §1). */
export const contentNotFound = (what = 'Content') => new AppError('CONTENT_NOT_FOUND', `${what} not found`);
export const notFound = (what = 'Resource') => new AppError('NOT_FOUND', `${what} not found`);

export const invalidTransition = (from: string, action: string) =>
  new AppError('INVALID_STATE_TRANSITION', `Cannot ${action} from ${from}`, { from, action });

export function errorCatalogue() {
  return Object.entries(catalogue).map(([code, [statusCode, category, message]]) => ({
    code,
    statusCode,
    category,
    message,
  }));
}
