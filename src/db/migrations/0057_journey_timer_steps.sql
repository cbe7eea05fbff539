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

-- The lines of a text parameter that carries many rows (src/db/text-rows.ts). string_to_table
-- itself is estimated at 1,000 rows: joined to a table of ~10^4–10^5 rows on its key, the planner
-- then scanned the table into a hash (2,000 rows of a timer chunk against every visit) instead of
-- probing its index per row. Declared with 100 rows, as json_to_recordset is; volatile only so
-- that it is not inlined (inlined, the estimate would be string_to_table's again).
create function text_lines(doc text) returns setof text
  language sql volatile rows 100
  as $$ select string_to_table(doc, E'\n') $$;
