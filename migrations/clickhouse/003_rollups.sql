-- The derived tables the reports read instead of every event (ADR 018), as ClickHouse analytics
-- tools keep them beside their events (Plausible's sessions, Umami's hourly rollups).
--
-- Built by the worker (app/analytics/rollups.server.ts), one UTC day at a time, from the event tables read
-- FINAL, so a re-sent event counts once and the server's copy of a page view that the tracker re-sent under
-- the tab's session leaves no session of its own behind (a table filled at insert by a materialized view
-- would see both copies). Each build of a day is a new `version`, a partition of its own: readers take,
-- per day, the version named in rollup_builds (written last), so a build is seen whole or not at all;
-- the builder then drops that day's older partitions but the one before (a reader may still be on it).
--
-- Plain types that ClickHouse 18.16 and current ClickHouse both accept (docs/architecture.md; the schema test
-- runs them on both). Strings, not LowCardinality, because the readers UNION these rows with rows
-- computed from the events, and 18.16 finds no common type between the two.

-- One row per session, member and hour that had a page view, an action or a counted conversion:
-- enough to put any whole hours' sessions back together exactly (sums, first and last, first device).
CREATE TABLE IF NOT EXISTS {database}.session_hours (
  day Date,
  version UInt64,
  hour DateTime('UTC'),
  session_id String,
  user_id UInt64,
  active UInt8,
  first_time DateTime('UTC'),
  last_time DateTime('UTC'),
  pageviews UInt32,
  interactions UInt32,
  clicks UInt32,
  device String,
  country String,
  browser String,
  first_pageview DateTime('UTC'),
  referrer_source String,
  gig_view UInt8,
  continued UInt8,
  converted UInt8
) ENGINE = MergeTree
PARTITION BY (day, version)
ORDER BY (hour, session_id, user_id);

-- Page views per page and day, with the sessions that viewed it as an `uniq` state (merged across days).
CREATE TABLE IF NOT EXISTS {database}.page_days (
  day Date,
  version UInt64,
  page String,
  views UInt64,
  sessions AggregateFunction(uniq, String)
) ENGINE = MergeTree
PARTITION BY (day, version)
ORDER BY page;

-- Clicks per page and day (the heatmap's page list).
CREATE TABLE IF NOT EXISTS {database}.click_days (
  day Date,
  version UInt64,
  page String,
  clicks UInt64
) ENGINE = MergeTree
PARTITION BY (day, version)
ORDER BY page;

-- One row per build: the day's version, and the end of what it holds (the day's end, or for today the
-- last whole hour that had ended two minutes before the build).
CREATE TABLE IF NOT EXISTS {database}.rollup_builds (
  day Date,
  version UInt64,
  built_to DateTime('UTC'),
  built_at DateTime('UTC')
) ENGINE = MergeTree
PARTITION BY toYYYYMM(day)
ORDER BY (day, version);
