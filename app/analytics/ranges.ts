/** Report ranges, 7d by default: zod-free, for the analytics screens' period choices in the browser. */
export const RANGES = { "1d": 1, "7d": 7, "30d": 30, "90d": 90 } as const;
export type Range = keyof typeof RANGES;
