-- On PostgreSQL an SDK request's body (16 kB of JSON) is stored as text and compressed by the
-- database as the row is written: pglz took 181–190 µs per body, lz4 28–32 µs (3.1 against 4.2 kB
-- stored; bench/RESULTS.md, "Event bodies: lz4"), about half of the database's CPU per events
-- request. lz4 wherever the server was built with it (PostgreSQL 14 and later with lz4, as
-- Debian's and the official images are), pglz elsewhere. Only new values are compressed with it;
-- rows already stored keep theirs. The embedded database stores brotli bytes (0065) and is
-- unaffected.
do $$
begin
  if exists (
    select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any (enumvals)
  ) then
    alter table event_batches alter column events set compression lz4;
  end if;
end
$$;
