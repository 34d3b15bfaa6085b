import type { Knex } from "knex";

/**
 * A member's level is stored as a code (new, level_1, level_2, top_rated, member), not as the English words
 * it used to hold ("New Seller", "Top Rated"): pages say it in the reader's language through the catalogue
 * (catalog.level.*), and a change of wording no longer changes stored data. A level that was none of the five
 * becomes the role's starting one (new for a freelancer, member for others), so the CHECK can hold.
 */
const CODES: [string, string][] = [
  ["New Seller", "new"],
  ["Level 1", "level_1"],
  ["Level 2", "level_2"],
  ["Top Rated", "top_rated"],
  ["Member", "member"],
];

export async function up(db: Knex) {
  const cases = CODES.map(() => "WHEN lower(level) = lower(?) THEN ?").join(" ");
  await db.raw(
    `UPDATE users SET level = CASE ${cases} WHEN role = 'freelancer' THEN 'new' ELSE 'member' END
     WHERE level NOT IN ('new', 'level_1', 'level_2', 'top_rated', 'member')`,
    CODES.flatMap(([words, code]) => [words, code]),
  );
  await db.raw(`ALTER TABLE users ALTER COLUMN level SET DEFAULT 'new'`);
  await db.raw(`ALTER TABLE users ADD CONSTRAINT users_level_code CHECK (level IN ('new', 'level_1', 'level_2', 'top_rated', 'member'))`);
}

export async function down(db: Knex) {
  await db.raw(`ALTER TABLE users DROP CONSTRAINT IF EXISTS users_level_code`);
  await db.raw(`ALTER TABLE users ALTER COLUMN level SET DEFAULT 'New Seller'`);
  const cases = CODES.map(() => "WHEN level = ? THEN ?").join(" ");
  await db.raw(
    `UPDATE users SET level = CASE ${cases} ELSE level END`,
    CODES.flatMap(([words, code]) => [code, words]),
  );
}
