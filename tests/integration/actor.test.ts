/**
 * One actor from any door (ADR 012): a page request's cookie, a socket.io handshake's cookie or app token and a
 * tracking request's headers all name the same member, through actorOf; anything else is an anonymous
 * visitor, with the client they act from (address, software, analytics choice). A cookie names only a browser's
 * session and a Bearer token only an app's (ADR 041).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getActor, getSocketActor } from "~/server/auth.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser } from "../support/factories";
import { createAppToken } from "../support/api";

let t: TestDatabase;
let userId: number;
let token: string;
let appToken: string;
const SID = "3f2b6c1e-9d7a-4c1b-8e2f-5a6b7c8d9e0f";

beforeAll(async () => {
  t = await createTestDatabase();
  ({ id: userId } = await createUser(t.db, { role: "freelancer", name: "Actor Tester", email: "actor@example.ug", password: null }));
  token = await createSession(t.db, userId);
  appToken = await createAppToken(t.db, userId, { platform: "android" });
});
afterAll(async () => {
  await t?.drop();
});

const page = (headers: Record<string, string>) => new Request("http://localhost/dashboard", { headers });

describe("getActor (pages)", () => {
  it("names the member of a session cookie, with the client they act from", async () => {
    const actor = await getActor(
      page({
        Cookie: `soko_consent=granted; soko_session=${token}; soko_sid=${SID}`,
        "User-Agent": "Mozilla/5.0 (Linux; Android 10)",
        // The request's id, as the request log sets it on every request it serves (ADR 057).
        "X-Request-Id": "req-actor-1",
      }),
      "196.43.1.2",
      t.db,
    );
    expect(actor).toMatchObject({ kind: "member", user: { id: userId, role: "freelancer", username: "actor_tester" } });
    expect(actor.kind !== "system" && actor.client).toEqual({
      ip: "196.43.1.2",
      userAgent: "Mozilla/5.0 (Linux; Android 10)",
      analyticsConsent: true,
      tabSessionId: SID,
      requestId: "req-actor-1",
    });
  });

  it("reads only the cookie: a Bearer token on a page is no session, and an app's token in the cookie is none either", async () => {
    expect((await getActor(page({ Authorization: `Bearer ${appToken}` }), "196.43.1.2", t.db)).kind).toBe("anonymous");
    expect((await getActor(page({ Authorization: `Bearer ${token}` }), "196.43.1.2", t.db)).kind).toBe("anonymous");
    expect((await getActor(page({ Cookie: `soko_session=${appToken}` }), "196.43.1.2", t.db)).kind).toBe("anonymous");
  });

  it("is an anonymous visitor without a live session, and keeps no tab session without consent", async () => {
    const none = await getActor(page({ Cookie: `soko_sid=${SID}` }), "196.43.1.3", t.db);
    expect(none).toEqual({ kind: "anonymous", client: { ip: "196.43.1.3", userAgent: "", analyticsConsent: false, tabSessionId: null, requestId: null } });
    expect((await getActor(page({ Cookie: "soko_session=not-a-real-token" }), "", t.db)).kind).toBe("anonymous");
    const [expired] = await t
      .db("sessions")
      .insert({ id: "0".repeat(64), user_id: userId, expires_at: new Date(Date.now() - 1000), persistent: false })
      .returning("id");
    expect(expired).toBeTruthy();
    await t.db("users").where({ id: userId }).update({ status: "suspended" });
    expect((await getActor(page({ Cookie: `soko_session=${token}` }), "", t.db)).kind).toBe("anonymous");
    await t.db("users").where({ id: userId }).update({ status: "active" });
  });
});

describe("getSocketActor (socket.io)", () => {
  it("names the member of the handshake's cookie, from the socket's address", async () => {
    const actor = await getSocketActor({ headers: { cookie: `soko_session=${token}`, "user-agent": "socket test" }, address: "::ffff:196.43.1.9" }, t.db);
    expect(actor).toMatchObject({ kind: "member", user: { id: userId }, client: { ip: "::ffff:196.43.1.9", userAgent: "socket test" } });
    expect((await getSocketActor({ headers: {}, address: "127.0.0.1" }, t.db)).kind).toBe("anonymous");
  });

  it("names the member of an app's token given as `auth: { token }`, and not of a browser's session given so", async () => {
    const actor = await getSocketActor({ headers: {}, address: "127.0.0.1", auth: { token: appToken } }, t.db);
    expect(actor).toMatchObject({ kind: "member", user: { id: userId, platform: "android" } });
    expect((await getSocketActor({ headers: {}, address: "127.0.0.1", auth: { token } }, t.db)).kind).toBe("anonymous");
  });
});
