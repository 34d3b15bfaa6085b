-- page_hours holds each page's views per hour, with the sessions that viewed it as an `uniq` state, beside
-- page_days (ADR 018, "Hour keys, the heatmap's cells and pages by the hour").
--
-- A report's window rarely starts at midnight: page_days could serve only the days wholly inside it, so the
-- rest of the window's first day (up to 24 hours of page views) was read from the events on every report,
-- most of the page views report's time at 10M events. The whole hours of a day the window cuts are read from
-- here instead, and only the window's ragged first hour from the events, as session_hours already allows.
--
-- Every build is forgotten, as 005 did: the worker's next round builds every day again, now with its hours,
-- and until then the reports read the events, with the same figures.

CREATE TABLE IF NOT EXISTS {database}.page_hours (
  day Date,
  version UInt64,
  hour DateTime('UTC'),
  page String,
  views UInt64,
  sessions AggregateFunction(uniq, String)
) ENGINE = MergeTree
PARTITION BY (day, version)
ORDER BY (page, hour);
TRUNCATE TABLE {database}.rollup_builds;
