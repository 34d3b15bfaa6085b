/**
 * The operations layer's core against a real Postgres: one transaction per operation, activity and effects
 * committed iff the operation commits, effects deduplicated by key, and the worker carrying effects out at
 * least once (retrying a failure, refusing anyone but the platform).
 */
import fs from "node:fs";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conflict, invalid, issue, ok, recordEffect, systemActor, transact, type Actor } from "~/operations/core.server";
import { claimDueEffects, markEffectDone, markEffectFailed } from "~/operations/effects.server";
import { claimDueMail, markMailFailed, markMailSent } from "~/operations/mail.server";
import { getEnv } from "~/server/env.server";
import { IMAGE_SIZES, imageFile, uploadDir } from "~/server/files/storage.server";
import { startEffects } from "../../worker/effects-runner.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createUser } from "../support/factories";

let t: TestDatabase;
let userId: number;
const system = systemActor("test");

beforeAll(async () => {
  t = await createTestDatabase();
  ({ id: userId } = await createUser(t.db, { name: "Core Tester", email: "core@example.ug", password: null }));
});
afterAll(async () => {
  await t?.drop();
});

const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number((await t.db(table).where(where).count<{ c: string }[]>({ c: "*" }).first())?.c);
const bio = async () => (await t.db("users").where({ id: userId }).first("bio")).bio as string;

describe("transact", () => {
  it("commits the change, its activity and its effects together when the operation succeeds", async () => {
    const result = await transact(
      system,
      async (tx) => {
        await tx.trx("users").where({ id: userId }).update({ bio: "committed" });
        await tx.activity(userId, "profile_updated");
        await tx.effect({ kind: "delete_image", key: randomUUID() });
        return ok("done");
      },
      { db: t.db },
    );
    expect(result).toEqual({ ok: true, value: "done" });
    expect(await bio()).toBe("committed");
    expect(await count("activity", { user_id: userId, kind: "profile_updated" })).toBe(1);
    expect(await count("effects", { kind: "delete_image" })).toBe(1);
  });

  it("rolls everything back when the operation refuses after writing", async () => {
    const before = { activity: await count("activity"), effects: await count("effects") };
    const result = await transact(
      system,
      async (tx) => {
        await tx.trx("users").where({ id: userId }).update({ bio: "never seen" });
        await tx.activity(userId, "profile_updated");
        await tx.effect({ kind: "delete_image", key: randomUUID() });
        return invalid({ bio: [issue("account.wrong_current_password")] });
      },
      { db: t.db },
    );
    expect(result).toEqual({ ok: false, error: "invalid", issues: { bio: [{ code: "account.wrong_current_password", params: {} }] } });
    expect(await bio()).toBe("committed");
    expect({ activity: await count("activity"), effects: await count("effects") }).toEqual(before);
    const refused = await transact(system, async () => conflict("account.own_status"), { db: t.db });
    expect(refused).toMatchObject({ ok: false, error: "conflict", code: "account.own_status" });
  });

  it("writes no activity when the database refuses a write after the main one (a trigger forces the failure)", async () => {
    await t.db.raw(`
      CREATE FUNCTION refuse_effect() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'effects refused for the test'; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_effect BEFORE INSERT ON effects FOR EACH ROW EXECUTE FUNCTION refuse_effect();
    `);
    try {
      const before = await count("activity");
      await expect(
        transact(
          system,
          async (tx) => {
            await tx.trx("users").where({ id: userId }).update({ bio: "half written" });
            await tx.activity(userId, "profile_updated");
            await tx.effect({ kind: "delete_image", key: randomUUID() });
            return ok(null);
          },
          { db: t.db },
        ),
      ).rejects.toThrow(/effects refused for the test/);
      expect(await bio()).toBe("committed");
      expect(await count("activity")).toBe(before);
    } finally {
      await t.db.raw(`DROP TRIGGER refuse_effect ON effects; DROP FUNCTION refuse_effect();`);
    }
  });

  it("keeps an effect recorded twice under one key once", async () => {
    const key = `once-${randomUUID()}`;
    await recordEffect(t.db, { kind: "delete_image", key: randomUUID() }, key);
    await recordEffect(t.db, { kind: "delete_image", key: randomUUID() }, key);
    expect(await count("effects", { dedupe_key: key })).toBe(1);
  });
});

describe("the worker's effects", () => {
  it("refuses anyone but the platform, for effects and for the mail outbox alike", async () => {
    const member: Actor = { kind: "anonymous", client: { ip: "192.0.2.1", userAgent: "", analyticsConsent: false, tabSessionId: null } };
    expect(await claimDueEffects(member, {}, t.db)).toMatchObject({ ok: false, error: "forbidden" });
    for (const attempt of [
      () => markEffectDone(member, 1, t.db),
      () => markEffectFailed(member, 1, { error: "x", retryInMs: null }, t.db),
      () => claimDueMail(member, { limit: 1, leaseMs: 1000, maxAgeMs: 1000 }, { db: t.db }),
      () => markMailSent(member, 1, { db: t.db }),
      () => markMailFailed(member, 1, { error: "x", retryInMs: null }, { db: t.db }),
    ]) {
      expect(await attempt()).toMatchObject({ ok: false, error: "forbidden" });
    }
  });

  it("carries out a due effect after the commit: an image's files are deleted and the row marked done", async () => {
    await t.db("effects").update({ done_at: t.db.fn.now() });
    const key = randomUUID();
    fs.mkdirSync(uploadDir(), { recursive: true });
    for (const size of Object.keys(IMAGE_SIZES)) fs.writeFileSync(imageFile(key, size as keyof typeof IMAGE_SIZES)!, "image bytes");
    await transact(
      system,
      async (tx) => {
        await tx.effect({ kind: "delete_image", key });
        return ok(null);
      },
      { db: t.db },
    );
    const runner = startEffects(getEnv(), { db: t.db, pollMs: 50 });
    try {
      await expect
        .poll(async () => (await t.db("effects").where({ kind: "delete_image" }).whereNull("done_at").count<{ c: string }[]>({ c: "*" }).first())?.c, {
          timeout: 10_000,
        })
        .toEqual(0);
    } finally {
      await runner.close();
    }
    for (const size of Object.keys(IMAGE_SIZES)) expect(fs.existsSync(path.join(uploadDir(), `${key}-${size}.webp`))).toBe(false);
  });

  it("retries a failed effect later with its error kept, and gives it up after the last attempt", async () => {
    const fact = {
      type: "signup" as const,
      userId,
      subjectId: userId,
      atMs: Date.now(),
      valueUgx: 0,
      metadata: {},
      client: { ip: "", userAgent: "", analyticsConsent: false, tabSessionId: null },
    };
    const [row] = await t
      .db("effects")
      .insert({ kind: "conversion", payload: JSON.stringify({ fact }) })
      .returning("id");
    // A Redis nobody listens on: queueing the conversion fails.
    const runner = startEffects({ ...getEnv(), REDIS_URL: "redis://127.0.0.1:1" }, { db: t.db, pollMs: 50, retryInitialMs: 100, maxAttempts: 2 });
    try {
      await expect.poll(async () => (await t.db("effects").where({ id: row.id }).first("failed_at")).failed_at, { timeout: 15_000 }).not.toBeNull();
    } finally {
      await runner.close();
    }
    const stored = await t.db("effects").where({ id: row.id }).first();
    expect(stored.attempts).toBe(2);
    expect(stored.done_at).toBeNull();
    expect(stored.last_error).toBeTruthy();
  });
});
