-- session_days holds each build's sessions whole: one row per session of the day, its hours' pieces
-- (session_hours) merged, beside a flag saying whether the session has any event outside the build
-- (ADR 018, "Sessions whole per day").
--
-- The session reports regrouped every piece of their window by session at read time: 260k pieces of 200k
-- sessions at 10M events, a GROUP BY of strings that was 80% of a 30-day session report. A session whose
-- events all lie in one build (`confined`: nearly every session, as few cross midnight) and whose hours all
-- lie in the window is this row as it stands, and a report reads it without grouping; only the rest (sessions
-- that cross a day, the window's edge or the events not built yet) are put back together from their pieces.
--
-- Every build is forgotten first, as 005 did: the worker's next round builds every day again, now with its
-- sessions, and until then the reports read the events, with the same figures.

TRUNCATE TABLE {database}.rollup_builds;

-- session_hours again, with `confined` (the same for every piece of a session in a build) first in its key:
-- a report reads the pieces of the sessions that cross a day as one short range of each build.
DROP TABLE IF EXISTS {database}.session_hours;
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
  converted UInt8,
  confined UInt8
) ENGINE = MergeTree
PARTITION BY (day, version)
ORDER BY (confined, hour, session_id, user_id);

CREATE TABLE IF NOT EXISTS {database}.session_days (
  day Date,
  version UInt64,
  session_id String,
  first_hour DateTime('UTC'),
  last_hour DateTime('UTC'),
  confined UInt8,
  active UInt8,
  pageview_count UInt64,
  interaction_count UInt64,
  duration UInt32,
  session_device String,
  session_country String,
  session_browser String,
  session_source String,
  gig_view UInt8,
  continued UInt8,
  converted UInt8
) ENGINE = MergeTree
PARTITION BY (day, version)
ORDER BY (confined, first_hour, session_id);
