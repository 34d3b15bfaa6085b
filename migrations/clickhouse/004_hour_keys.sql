-- The event tables keyed by the hour of the event, not its day (ADR 018, "Hour keys").
--
-- The reports read whole hours and days from the derived tables (003) and only the window's ragged first
-- hour and the hours not built yet from the events. Under (toDate(event_time), ...) each of those reads had
-- to scan its whole day, a day of events at 10M events a month, for a few minutes of them: most of a 30-day
-- report's time (docs/benchmarks.md, bench:reports). Under (toStartOfHour(event_time), ...) a plain
-- condition on event_time narrows to the hour's granules, on 18.16 as on current ClickHouse (both infer it
-- through the monotonic toStartOfHour, checked on both), with or without FINAL.
--
-- The key's other columns stay as they were, and toStartOfHour of a re-sent event is the same in every
-- copy, so ReplacingMergeTree still keeps one row per event. ClickHouse cannot change a key's leading
-- column in place (MODIFY ORDER BY only appends new columns), so each table is copied into one with the
-- new key and swapped in by one RENAME. Every step can run again after a run that died at any point: a
-- leftover copy is dropped and made afresh, and once the swap has happened the old table is only dropped.
-- Run before the worker starts (npm start and the deploy migrate first), so no insert falls between copy and
-- swap.

DROP TABLE IF EXISTS {database}.sessions_by_day;
DROP TABLE IF EXISTS {database}.sessions_by_hour;
CREATE TABLE {database}.sessions_by_hour AS {database}.sessions
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(event_time)
ORDER BY (toStartOfHour(event_time), session_id, event_id);
INSERT INTO {database}.sessions_by_hour SELECT * FROM {database}.sessions;
RENAME TABLE {database}.sessions TO {database}.sessions_by_day, {database}.sessions_by_hour TO {database}.sessions;
DROP TABLE {database}.sessions_by_day;

DROP TABLE IF EXISTS {database}.pageviews_by_day;
DROP TABLE IF EXISTS {database}.pageviews_by_hour;
CREATE TABLE {database}.pageviews_by_hour AS {database}.pageviews
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(event_time)
ORDER BY (toStartOfHour(event_time), page, event_id);
INSERT INTO {database}.pageviews_by_hour SELECT * FROM {database}.pageviews;
RENAME TABLE {database}.pageviews TO {database}.pageviews_by_day, {database}.pageviews_by_hour TO {database}.pageviews;
DROP TABLE {database}.pageviews_by_day;

DROP TABLE IF EXISTS {database}.actions_by_day;
DROP TABLE IF EXISTS {database}.actions_by_hour;
CREATE TABLE {database}.actions_by_hour AS {database}.actions
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(event_time)
ORDER BY (toStartOfHour(event_time), page, action_type, event_id);
INSERT INTO {database}.actions_by_hour SELECT * FROM {database}.actions;
RENAME TABLE {database}.actions TO {database}.actions_by_day, {database}.actions_by_hour TO {database}.actions;
DROP TABLE {database}.actions_by_day;

DROP TABLE IF EXISTS {database}.errors_by_day;
DROP TABLE IF EXISTS {database}.errors_by_hour;
CREATE TABLE {database}.errors_by_hour AS {database}.errors
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(event_time)
ORDER BY (toStartOfHour(event_time), page, event_id);
INSERT INTO {database}.errors_by_hour SELECT * FROM {database}.errors;
RENAME TABLE {database}.errors TO {database}.errors_by_day, {database}.errors_by_hour TO {database}.errors;
DROP TABLE {database}.errors_by_day;

DROP TABLE IF EXISTS {database}.conversions_by_day;
DROP TABLE IF EXISTS {database}.conversions_by_hour;
CREATE TABLE {database}.conversions_by_hour AS {database}.conversions
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(event_time)
ORDER BY (toStartOfHour(event_time), conversion_type, event_id);
INSERT INTO {database}.conversions_by_hour SELECT * FROM {database}.conversions;
RENAME TABLE {database}.conversions TO {database}.conversions_by_day, {database}.conversions_by_hour TO {database}.conversions;
DROP TABLE {database}.conversions_by_day;

DROP TABLE IF EXISTS {database}.user_actions_by_day;
DROP TABLE IF EXISTS {database}.user_actions_by_hour;
CREATE TABLE {database}.user_actions_by_hour AS {database}.user_actions
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(event_time)
ORDER BY (toStartOfHour(event_time), action, event_id);
INSERT INTO {database}.user_actions_by_hour SELECT * FROM {database}.user_actions;
RENAME TABLE {database}.user_actions TO {database}.user_actions_by_day, {database}.user_actions_by_hour TO {database}.user_actions;
DROP TABLE {database}.user_actions_by_day;
