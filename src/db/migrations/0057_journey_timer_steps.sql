-- A fired timer rewrites its enrollment row (100,000 timers may come due at one instant).
--
-- The state is written whole by every step and read whole by the next, never searched: as json
-- (its text, checked on input) it is stored and returned as sent, where jsonb parsed it into its
-- binary form on every write (~half the cost of the update) and printed it back on every read.
-- `state -> 'waiting'` and the other operators still apply.
alter table journey_enrollments alter column state type json using state::json;

-- Room on each page for a second version of every row: the enrollments due at one instant were
-- mostly enrolled together, so they share pages, and one chunk updates them all before any old
-- version can be pruned. At 70 only about half of those updates stayed on their page (HOT); the
-- others added an entry to each of the table's five indexes.
alter table journey_enrollments set (fillfactor = 45);
