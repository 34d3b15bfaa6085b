/** Report ranges, 7d by default: zod-free, for the analytics screens' period choices in the browser. */
export const RANGES = { "1d": 1, "7d": 7, "30d": 30, "90d": 90 } as const;
export type Range = keyof typeof RANGES;

/** Each range's name on the admin screens, as a catalogue key (namespace `admin`): `t(RANGE_LABEL_KEYS[range])`. */
export const RANGE_LABEL_KEYS: Record<Range, string> = {
  "1d": "admin.range.1d",
  "7d": "admin.range.7d",
  "30d": "admin.range.30d",
  "90d": "admin.range.90d",
};

/**
 * The period's field messages (app/analytics/period.ts words them in English), as catalogue keys of namespace
 * `admin`: `PERIOD_ERROR_KEYS[message] ?? message`.
 */
export const PERIOD_ERROR_KEYS: Record<string, string> = {
  "Choose a range: last 24 hours, 7 days, 30 days or 90 days, or custom dates.": "admin.period.chooseRange",
  "Enter the first day (YYYY-MM-DD).": "admin.period.enterFrom",
  "Enter the first day as a date, such as 2026-01-31.": "admin.period.fromNotDate",
  "Enter the last day (YYYY-MM-DD).": "admin.period.enterTo",
  "Enter the last day as a date, such as 2026-01-31.": "admin.period.toNotDate",
  "The last day must be on or after the first day.": "admin.period.toBeforeFrom",
  "Choose at most one year (366 days).": "admin.period.tooLong",
};
