-- click_days holds each page's clicks binned on the heatmap's grid, per device (ADR 018).
--
-- Under the hour keys of 004 a heatmap's read of one page's clicks over 30 days could no longer skip the other
-- pages (an hour of actions is about one granule), and took seconds at 10M events. The heatmap now reads
-- the day's cells, as the other reports read their days, and only the window's edges from the events.
-- The cells are the heatmap's: column least(x / 80, 15), row least(y / 80, 59), and `unplaced` for a click
-- at 0,0 (app/analytics/rollups.server.ts, HEATMAP_*).
--
-- The old table's rows cannot be binned after the fact, so it is made again empty and every build is
-- forgotten: the worker's next round builds every day again (about 40 s for 10M events), and until then
-- the reports read the events, with the same figures.

DROP TABLE IF EXISTS {database}.click_days;
CREATE TABLE {database}.click_days (
  day Date,
  version UInt64,
  page String,
  device String,
  cell_col UInt8,
  cell_row UInt8,
  unplaced UInt8,
  clicks UInt64
) ENGINE = MergeTree
PARTITION BY (day, version)
ORDER BY (page, device, cell_row, cell_col);
TRUNCATE TABLE {database}.rollup_builds;
