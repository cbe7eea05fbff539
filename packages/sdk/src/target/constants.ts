/** How long a missing target is waited for before it is reported missing. */
export const TARGET_TIMEOUT_MS = 10_000;
/** How long after the page settled (load) a selector may find nothing before healing starts. */
export const HEAL_AFTER_MS = 3_000;
