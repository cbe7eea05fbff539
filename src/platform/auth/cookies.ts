/** The names of the auth cookies: the access token (every route) and the refresh token (auth routes only). */
export const SESSION_COOKIE = 'session_token';
export const REFRESH_COOKIE = 'refresh_token';
