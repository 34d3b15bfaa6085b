-- Unique views per page that add up across days (ADR 018, "Unique views that add up").
--
-- The top pages' unique views merged every day's `uniq` state of the sessions that viewed each page: ~100 ms
-- for ten pages over 30 days at 10M events, half of the page views report. A session confined to its build
-- (session_days.confined: no event of its id outside the build, 99% of sessions) views its pages on that day
-- only, so each build now keeps, per page, a plain count of its confined sessions (they add across days) and
-- an `uniq` state of the others only. A report adds the counts and merges the small states; `page_sessions`
-- names which confined session viewed which page, so that the few a report also meets in the events it reads
-- itself (today's sessions that went on after the build) are taken out of the counts and merged instead.
--
-- page_days and page_hours are kept in granules of 256 rows: a report reads the states of ten pages only, and
-- every state in a granule it touches is read.
--
-- Every build is forgotten first, as 005 did: the worker's next round builds every day again, and until then
-- the reports read the events, with the same figures.

TRUNCATE TABLE {database}.rollup_builds;

DROP TABLE IF EXISTS {database}.page_days;
CREATE TABLE IF NOT EXISTS {database}.page_days (
  day Date,
  version UInt64,
  page String,
  views UInt64,
  confined_sessions UInt64,
  open_sessions AggregateFunction(uniq, String)
) ENGINE = MergeTree
PARTITION BY (day, version)
ORDER BY page
SETTINGS index_granularity = 256;

-- page_hours again, in granules of 256 rows as page_days: a report reads its ten top pages' states, and a
-- granule of 8,192 rows was 8,192 states to read for each page found in it (page_days: 30 → 14 ms at 10M events).
DROP TABLE IF EXISTS {database}.page_hours;
CREATE TABLE IF NOT EXISTS {database}.page_hours (
  day Date,
  version UInt64,
  hour DateTime('UTC'),
  page String,
  views UInt64,
  sessions AggregateFunction(uniq, String)
) ENGINE = MergeTree
PARTITION BY (day, version)
ORDER BY (page, hour)
SETTINGS index_granularity = 256;

-- One row per page and confined session of a build: the pages each session counted in confined_sessions viewed.
CREATE TABLE IF NOT EXISTS {database}.page_sessions (
  day Date,
  version UInt64,
  session_id String,
  page String
) ENGINE = MergeTree
PARTITION BY (day, version)
ORDER BY (session_id, page)
SETTINGS index_granularity = 1024;
