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
