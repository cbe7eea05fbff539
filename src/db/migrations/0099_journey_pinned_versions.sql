-- The versions that in-progress enrollments run, found with one index probe per (journey,
-- version) instead of a read of every in-progress enrollment (journeys store,
-- listPinnedVersions, once per delivery snapshot load).
create index journey_enrollments_version_active_idx on journey_enrollments (journey_id, journey_version)
  where status = 'in_progress';
