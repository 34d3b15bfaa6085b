-- The analytics event tables (ADR 007). One table per event kind; every table has the same leading
-- columns, then the kind's own. ReplacingMergeTree(received_at) keeps one row per event_id within a
-- (day, ...) key: a re-sent event (retry, worker restart, the no-JavaScript page view sent again by the
-- tracker) replaces the earlier copy, so exact reports read with FINAL or count uniqExact(event_id).
-- The ORDER BY holds only values that are the same when an event is re-sent (never received_at).
-- Written for ClickHouse 18.16 and current ClickHouse alike (docs/architecture.md): no DateTime64, TTL or CODEC.

CREATE TABLE IF NOT EXISTS {database}.sessions (
  event_id UUID,
  session_id String,
  user_id UInt64,
  event_time DateTime('UTC'),
  received_at DateTime('UTC'),
  platform LowCardinality(String),
  ip String,
  country LowCardinality(String),
  city String,
  device LowCardinality(String),
  browser LowCardinality(String),
  os LowCardinality(String),
  user_agent String,
  screen_resolution String,
  timezone String
) ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(event_time)
ORDER BY (toDate(event_time), session_id, event_id);

CREATE TABLE IF NOT EXISTS {database}.pageviews (
  event_id UUID,
  session_id String,
  user_id UInt64,
  event_time DateTime('UTC'),
  received_at DateTime('UTC'),
  platform LowCardinality(String),
  ip String,
  country LowCardinality(String),
  city String,
  device LowCardinality(String),
  browser LowCardinality(String),
  os LowCardinality(String),
  page String,
  title String,
  url String,
  referrer String
) ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(event_time)
ORDER BY (toDate(event_time), page, event_id);

CREATE TABLE IF NOT EXISTS {database}.actions (
  event_id UUID,
  session_id String,
  user_id UInt64,
  event_time DateTime('UTC'),
  received_at DateTime('UTC'),
  platform LowCardinality(String),
  ip String,
  country LowCardinality(String),
  city String,
  device LowCardinality(String),
  browser LowCardinality(String),
  os LowCardinality(String),
  action_type LowCardinality(String),
  page String,
  element_id String,
  element_class String,
  element_tag String,
  element_text String,
  x UInt32,
  y UInt32,
  value Float64
) ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(event_time)
ORDER BY (toDate(event_time), page, action_type, event_id);

CREATE TABLE IF NOT EXISTS {database}.errors (
  event_id UUID,
  session_id String,
  user_id UInt64,
  event_time DateTime('UTC'),
  received_at DateTime('UTC'),
  platform LowCardinality(String),
  ip String,
  country LowCardinality(String),
  city String,
  device LowCardinality(String),
  browser LowCardinality(String),
  os LowCardinality(String),
  page String,
  message String,
  stack String
) ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(event_time)
ORDER BY (toDate(event_time), page, event_id);

CREATE TABLE IF NOT EXISTS {database}.conversions (
  event_id UUID,
  session_id String,
  user_id UInt64,
  event_time DateTime('UTC'),
  received_at DateTime('UTC'),
  platform LowCardinality(String),
  ip String,
  country LowCardinality(String),
  city String,
  device LowCardinality(String),
  browser LowCardinality(String),
  os LowCardinality(String),
  conversion_type LowCardinality(String),
  value UInt64,
  metadata String
) ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(event_time)
ORDER BY (toDate(event_time), conversion_type, event_id);

CREATE TABLE IF NOT EXISTS {database}.user_actions (
  event_id UUID,
  session_id String,
  user_id UInt64,
  event_time DateTime('UTC'),
  received_at DateTime('UTC'),
  platform LowCardinality(String),
  ip String,
  country LowCardinality(String),
  city String,
  device LowCardinality(String),
  browser LowCardinality(String),
  os LowCardinality(String),
  action String,
  details String,
  page String
) ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(event_time)
ORDER BY (toDate(event_time), action, event_id);
