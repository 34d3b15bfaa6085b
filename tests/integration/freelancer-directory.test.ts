/**
 * The freelancer directory's model (ADR 052), which the /freelancers page and GET /users/freelancers both read:
 * each sort's keyset pages, forward with `after` and backward with `before`, never repeat or skip a member
 * whatever the ties (a fast-check property over drawn ratings, levels and activity times), and the language and
 * vetted filters; a cursor says its sort and round-trips exactly.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  decodeDirectoryCursor,
  DIRECTORY_SORTS,
  encodeDirectoryCursor,
  listFreelancers,
  type DirectoryCursor,
  type DirectorySort,
} from "~/models/freelancer-directory.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createUser } from "../support/factories";

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

const LEVELS = ["new", "level_1", "level_2", "top_rated"] as const;
const RANK: Record<string, number> = { new: 0, level_1: 1, level_2: 2, top_rated: 3 };

/** Every row of a query in one page: the order the pages must add up to. */
async function whole(sort: DirectorySort, skill: string) {
  return (await listFreelancers(t.db, { sort, skill, limit: 1000, after: null })).items.map((f) => f.id);
}

/** Every page from the first by "Next": the ids in order, and the last page's "Previous". */
async function forward(sort: DirectorySort, skill: string, limit: number) {
  const ids: number[] = [];
  let after: DirectoryCursor | null = null;
  let previous: DirectoryCursor | null = null;
  for (let pages = 0; pages < 200; pages++) {
    const page = await listFreelancers(t.db, { sort, skill, limit, after });
    ids.push(...page.items.map((f) => f.id));
    previous = page.previous;
    // Through the text a link carries, as the page and the API pass it on.
    after = page.next ? decodeDirectoryCursor(encodeDirectoryCursor(page.next)) : null;
    if (!after) break;
  }
  return { ids, previous };
}

/** Every page before `from` by "Previous", back to the first: their ids in order. */
async function backward(sort: DirectorySort, skill: string, limit: number, from: DirectoryCursor) {
  const pages: number[][] = [];
  let before: DirectoryCursor | null = from;
  for (let n = 0; n < 200 && before; n++) {
    const page = await listFreelancers(t.db, { sort, skill, limit, after: null, before });
    pages.unshift(page.items.map((f) => f.id));
    before = page.previous ? decodeDirectoryCursor(encodeDirectoryCursor(page.previous)) : null;
  }
  return pages.flat();
}

describe("the directory's keyset pages", () => {
  it("add up to the whole list in each sort, forward and backward, whatever the ties", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            rating: fc.constantFrom(0, 3.5, 4.5, 4.5, 5),
            level: fc.constantFrom(...LEVELS),
            activeMinutesAgo: fc.option(fc.constantFrom(0, 5, 5, 60), { nil: null }),
          }),
          { minLength: 0, maxLength: 12 },
        ),
        fc.integer({ min: 1, max: 5 }),
        async (members, limit) => {
          const skill = `prop-skill-${++run}`;
          const at = Date.UTC(2026, 11, 7, 12, 0, 0, 123);
          const made: { id: number; rating: number; rank: number; active: number }[] = [];
          for (const m of members) {
            const u = await createUser(t.db, { role: "freelancer" });
            const lastActive = m.activeMinutesAgo === null ? null : new Date(at - m.activeMinutesAgo * 60_000);
            await t
              .db("users")
              .where({ id: u.id })
              .update({ rating: m.rating, level: m.level, skills: [skill], last_active_at: lastActive });
            made.push({ id: u.id, rating: m.rating, rank: RANK[m.level]!, active: lastActive?.getTime() ?? 0 });
          }
          const expected: Record<DirectorySort, number[]> = {
            rating: [...made].sort((a, b) => b.rating - a.rating || a.id - b.id).map((m) => m.id),
            level: [...made].sort((a, b) => b.rank - a.rank || b.rating - a.rating || a.id - b.id).map((m) => m.id),
            active: [...made].sort((a, b) => b.active - a.active || a.id - b.id).map((m) => m.id),
          };
          for (const sort of DIRECTORY_SORTS) {
            expect(await whole(sort, skill), sort).toEqual(expected[sort]);
            const { ids, previous } = await forward(sort, skill, limit);
            expect(ids, `${sort} forward by ${limit}`).toEqual(expected[sort]);
            if (ids.length > limit) {
              // From the last page back to the first by "Previous": every row before the last page, once, in order.
              expect(previous, sort).not.toBeNull();
              const back = await backward(sort, skill, limit, previous!);
              const lastPageSize = ids.length % limit || limit;
              expect(back, `${sort} backward by ${limit}`).toEqual(expected[sort].slice(0, ids.length - lastPageSize));
            } else {
              expect(previous, sort).toBeNull();
            }
          }
        },
      ),
      { numRuns: 15 },
    );
  });

  it("refuses cursors it did not give, and keeps the rating cursor's old form", () => {
    expect(decodeDirectoryCursor(Buffer.from("4.50:12").toString("base64url"))).toEqual({ sort: "rating", rating: "4.50", id: 12 });
    expect(decodeDirectoryCursor(Buffer.from("level:3:4.50:12").toString("base64url"))).toEqual({ sort: "level", rank: 3, rating: "4.50", id: 12 });
    const active = { sort: "active", at: "2026-12-07 12:00:00.123000+00", id: 7 } as const;
    expect(decodeDirectoryCursor(encodeDirectoryCursor(active))).toEqual(active);
    for (const text of ["level:4:4.50:1", "level:3:6.00:1", "active:yesterday:1", "active:2026-12-07 12:00:00+00:0", "9.99:1"]) {
      expect(decodeDirectoryCursor(Buffer.from(text).toString("base64url")), text).toBeNull();
    }
  });
});

describe("the directory's filters", () => {
  it("keeps only vetted freelancers, and those who speak a language, whatever its case", async () => {
    const skill = "filter-skill-vetted";
    const vetted = await createUser(t.db, { role: "freelancer", name: "Vetted Luganda" });
    const plain = await createUser(t.db, { role: "freelancer", name: "Plain Swahili" });
    const admin = await createUser(t.db, { role: "admin" });
    await t
      .db("users")
      .where({ id: vetted.id })
      .update({ skills: [skill], languages: ["Luganda", "English"], vetted_at: t.db.fn.now(), vetted_by: admin.id });
    await t
      .db("users")
      .where({ id: plain.id })
      .update({ skills: [skill], languages: ["Kiswahili"] });
    const ids = async (q: { vetted?: boolean; language?: string }) =>
      (await listFreelancers(t.db, { skill, limit: 10, after: null, ...q })).items.map((f) => [f.id, f.vetted]);
    expect(await ids({})).toHaveLength(2);
    expect(await ids({ vetted: true })).toEqual([[vetted.id, true]]);
    expect(await ids({ language: "luganda" })).toEqual([[vetted.id, true]]);
    expect(await ids({ language: "KISWAHILI" })).toEqual([[plain.id, false]]);
    expect(await ids({ language: "Lug" })).toEqual([]);
  });
});
