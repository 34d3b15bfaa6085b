-- The analytics pipeline's counters per minute (pipeline health, ADR 017): how many events the web
-- accepted, the worker inserted or failed, and the web dropped by reason, in each UTC minute.
--
-- Both sides count into a Redis hash per minute; the worker moves those hashes here (app/analytics/
-- pipeline-stats.server.ts). Each move is one `batch` (a random id named in Redis before the insert), so
-- a move that is retried after its insert writes the same rows again and ReplacingMergeTree keeps them
-- once; counts of one minute that arrive after it was moved come in another batch. Readers take
-- sum(n) FROM ... FINAL grouped by minute and counter. Plain types, accepted by 18.16 and current ClickHouse.
CREATE TABLE IF NOT EXISTS {database}.pipeline_minutes (
  minute DateTime('UTC'),
  counter String,
  batch String,
  n UInt64
) ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(minute)
ORDER BY (minute, counter, batch);
