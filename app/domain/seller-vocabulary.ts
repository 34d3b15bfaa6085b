/**
 * A seller's level and rating as people read them: the names of the levels as catalogue keys and the rating's
 * number format. Apart from app/domain/catalog-vocabulary.ts (which re-exports them) so that a page showing a
 * level (the dashboard's level panel) carries no other catalog words.
 */

/** A member's level, as stored (users.level, a CHECK holds it to these): a seller's four, and a client's `member`. */
export const LEVELS = ["new", "level_1", "level_2", "top_rated", "member"] as const;
export type Level = (typeof LEVELS)[number];

/** Each level's name in the reader's language, as a catalogue key (app/locales/<language>/catalog.json). */
export const LEVEL_KEY: Record<Level, string> = {
  new: "catalog.level.new",
  level_1: "catalog.level.one",
  level_2: "catalog.level.two",
  top_rated: "catalog.level.top",
  member: "catalog.level.member",
};

/** A level in the reader's language (`t` from useT). */
export const sayLevel = (t: (key: string) => string, level: Level): string => t(LEVEL_KEY[level]);

/** A rating as people read it, with one decimal ("4.0"): `number(rating, ONE_DECIMAL)` (usePreferences). */
export const ONE_DECIMAL: Intl.NumberFormatOptions = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
