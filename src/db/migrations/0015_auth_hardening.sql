-- Refresh-token reuse detection: the hash of the refresh secret a session rotated away from
-- last. Only that secret, presented again, counts as a replay and revokes the session; any other
-- unknown secret is merely refused (a known session id alone must not be a kill switch).
alter table sessions add column previous_refresh_token_hash text;
