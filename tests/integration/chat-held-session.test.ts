/**
 * A live socket's session lookup is held by its web process (ADR 016, app/server/token-cache.server.ts) and
 * forgotten when Postgres announces a change to the member: through the real built server, a change made by SQL
 * alone (no push, no operation) reaches the socket's very next event. The member's language is part of what the
 * socket knows of them, so a switch of language is heard too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession, createUser } from "../support/factories";
import { LiveClient } from "../support/live-client";
import { orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("chat_held_session");
let server: TestServer;
const sockets: LiveClient[] = [];

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, TOKEN_CACHE: "on" });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await server?.stop();
});

async function socketOf(userId: number): Promise<LiveClient> {
  const client = new LiveClient(server, await createSession(t.db, userId));
  sockets.push(client);
  return client.connect();
}

describe("a socket's held session", () => {
  it("answers in the member's language as soon as it changes, by SQL alone", async () => {
    const member = await createUser(t.db, { name: "Zawadi Held" });
    const other = await createUser(t.db);
    const socket = await socketOf(member.id);
    // Asking for another member's room is refused in the member's words: English first (several events, so the lookup is held).
    for (let i = 0; i < 3; i++) {
      expect(await socket.ask("join", { userId: other.id })).toMatchObject({ ok: false, message: "You can only join your own conversations." });
    }
    await t.db("users").where({ id: member.id }).update({ language: "sw" });
    expect(await socket.ask("join", { userId: other.id })).toMatchObject({
      ok: false,
      message: "Unaweza kujiunga na mazungumzo yako mwenyewe pekee.",
    });
  });

  it("keeps answering a member whose sessions and account did not change", async () => {
    const member = await createUser(t.db);
    const socket = await socketOf(member.id);
    // Another member's change is announced too: it leaves this member's held lookup alone.
    const bystander = await createUser(t.db);
    await t.db("users").where({ id: bystander.id }).update({ status: "suspended" });
    for (let i = 0; i < 5; i++) expect(await socket.ask("join", {})).toEqual({ ok: true, userId: member.id });
  });
});
