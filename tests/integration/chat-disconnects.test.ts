/**
 * What a socket may still do once its member may not (ADR 016), through the real built
 * server: the admin portal's suspend, ban (one member or a selection) and delete end the member's open
 * sockets within moments; a socket whose disconnect push was lost (the member suspended, the session ended
 * or expired, all by SQL here, so nothing is pushed) can send nothing and is closed at its next event; and
 * live events announce only what is stored: a send that rolls back at its commit pushes nothing, and when
 * `new_message` arrives another database connection already sees the row.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { changeUserStatus, bulkUserAction, deleteUser } from "~/operations/admin-users.server";
import { sendMessage, startConversation } from "~/operations/messages.server";
import { createSession, createUser, type TestUser } from "../support/factories";
import { LiveClient } from "../support/live-client";
import { memberActor, orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("chat_disconnects", { admin: { name: "Portal Admin" } });
let server: TestServer;
const sockets: LiveClient[] = [];

beforeAll(async () => {
  // A commit hook for this file's database only: a message whose text says so is slow to commit, or refused at
  // its commit (a deferred trigger runs at COMMIT, after the operation has queued its live events).
  await t.db.raw(`
    CREATE FUNCTION test_commit_hook() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.body LIKE 'slow commit%' THEN PERFORM pg_sleep(0.5); END IF;
      IF NEW.body LIKE 'refused at commit%' THEN RAISE EXCEPTION 'refused at commit'; END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER test_commit_hook AFTER INSERT ON messages DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_commit_hook();
  `);
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix });
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await server?.stop();
});

/** A member's socket on a new session of theirs, connected. */
async function socketOf(user: TestUser, token?: string): Promise<LiveClient> {
  const client = new LiveClient(server, token ?? (await createSession(t.db, user.id)));
  sockets.push(client);
  return client.connect();
}

/** The reason the socket ends, or "still connected" after `ms`. */
function endsWithin(client: LiveClient, ms = 2_000): Promise<string> {
  return Promise.race([client.disconnection(), new Promise<string>((resolve) => setTimeout(() => resolve("still connected"), ms))]);
}

async function conversation(a: TestUser, b: TestUser) {
  const started = await startConversation(memberActor(a), { userId: b.id }, { db: t.db });
  if (!started.ok) throw new Error(JSON.stringify(started));
  return started.value.conversationId;
}

const bodies = (conversationId: string) => t.db("messages").where({ conversation_id: conversationId }).orderBy("id").pluck("body");

describe("the admin portal ends a member's sockets at once", () => {
  it("on suspend, on a bulk ban, and on delete", async () => {
    const admin = memberActor(t.admin);
    const [sam, bea, bo, dan] = await Promise.all(["Suspended Sam", "Banned Bea", "Banned Bo", "Deleted Dan"].map((name) => createUser(t.db, { name })));

    const samSockets = await Promise.all([socketOf(sam!), socketOf(sam!)]);
    const samGone = Promise.all(samSockets.map((s) => endsWithin(s)));
    expect(await changeUserStatus(admin, { userId: sam!.id, action: "suspend" }, { db: t.db })).toMatchObject({ ok: true });
    expect(await samGone).toEqual(["io server disconnect", "io server disconnect"]);

    const banned = await Promise.all([socketOf(bea!), socketOf(bo!)]);
    const bystander = await socketOf(dan!);
    const bannedGone = Promise.all(banned.map((s) => endsWithin(s)));
    expect(await bulkUserAction(admin, { userIds: [bea!.id, bo!.id], action: "ban" }, { db: t.db })).toMatchObject({ ok: true, value: { changed: 2 } });
    expect(await bannedGone).toEqual(["io server disconnect", "io server disconnect"]);
    expect(bystander.socket.connected).toBe(true);

    const danGone = endsWithin(bystander);
    expect(await deleteUser(admin, { userId: dan!.id }, { db: t.db })).toMatchObject({ ok: true });
    expect(await danGone).toBe("io server disconnect");
  });
});

describe("a socket whose disconnect push was lost", () => {
  it("cannot send once its member is suspended, and is closed", async () => {
    const [mia, ned] = [await createUser(t.db, { name: "Mia Stale" }), await createUser(t.db)];
    const id = await conversation(mia, ned);
    const socket = await socketOf(mia);
    expect(await socket.ask("send_message", { conversationId: id, body: "before", clientId: "stale-1" })).toMatchObject({ ok: true });

    // Suspended without the push (and with the session row left in place): only the socket's own check can stop it.
    await t.db("users").where({ id: mia.id }).update({ status: "suspended" });
    const gone = endsWithin(socket);
    expect(await socket.ask("send_message", { conversationId: id, body: "after the suspension", clientId: "stale-2" })).toMatchObject({
      ok: false,
      error: "unauthorized",
    });
    expect(await gone).toBe("io server disconnect");
    expect(await bodies(id)).toEqual(["before"]);
  });

  it("cannot act once its session has ended or expired", async () => {
    const [eve, fay] = [await createUser(t.db, { name: "Eve Ended" }), await createUser(t.db)];
    const id = await conversation(eve, fay);
    const ended = await socketOf(eve);
    const expired = await socketOf(eve);
    const [endedToken, expiredToken] = await t.db("sessions").where({ user_id: eve.id }).orderBy("created_at").pluck("id");
    await t.db("sessions").where({ id: endedToken }).delete();
    await t
      .db("sessions")
      .where({ id: expiredToken })
      .update({ expires_at: new Date(Date.now() - 1_000) });

    const gone = Promise.all([endsWithin(ended), endsWithin(expired)]);
    expect(await ended.ask("send_message", { conversationId: id, body: "from an ended session", clientId: "ended-1" })).toMatchObject({
      ok: false,
      error: "unauthorized",
    });
    expect(await expired.ask("get_conversations", {})).toMatchObject({ ok: false, error: "unauthorized" });
    expect(await gone).toEqual(["io server disconnect", "io server disconnect"]);
    expect(await bodies(id)).toEqual([]);
  });
});

describe("live events announce only what is stored", () => {
  let ann: TestUser, ben: TestUser, id: string;
  let annSocket: LiveClient, benSocket: LiveClient;

  beforeAll(async () => {
    [ann, ben] = [await createUser(t.db, { name: "Ann Commit" }), await createUser(t.db, { name: "Ben Commit" })];
    id = await conversation(ann, ben);
    [annSocket, benSocket] = await Promise.all([socketOf(ann), socketOf(ben)]);
  });

  it("a send that rolls back at its commit pushes nothing (by the socket and by the operation)", async () => {
    const answer = await annSocket.ask("send_message", { conversationId: id, body: "refused at commit, by socket", clientId: "commit-1" });
    expect(answer).toMatchObject({ ok: false, error: "unavailable" });
    await expect(sendMessage(memberActor(ann), { conversationId: id, body: "refused at commit, in process" }, { db: t.db })).rejects.toThrow(
      /refused at commit/,
    );
    // A later message that does commit arrives; nothing arrived before it.
    expect(await annSocket.ask("send_message", { conversationId: id, body: "this one commits", clientId: "commit-2" })).toMatchObject({ ok: true });
    // Each socket's events come in order: once this one is here, an earlier push would be too.
    await Promise.all([benSocket, annSocket].map((s) => s.next("new_message")));
    expect(benSocket.all<{ message: { body: string } }>("new_message").map((e) => e.message.body)).toEqual(["this one commits"]);
    expect(annSocket.all<{ message: { body: string } }>("new_message").map((e) => e.message.body)).toEqual(["this one commits"]);
    expect(await bodies(id)).toEqual(["this one commits"]);
  });

  it("when new_message arrives, another connection already sees the message (its commit took half a second)", async () => {
    const seen = new Promise<unknown>((resolve) => {
      benSocket.socket.once("new_message", (data: { message: { id: number } }) => {
        // At once, on receipt: this process's own connection, not the server's.
        void t.db("messages").where({ id: data.message.id }).first("body").then(resolve);
      });
    });
    expect(await annSocket.ask("send_message", { conversationId: id, body: "slow commit, then pushed", clientId: "commit-3" })).toMatchObject({ ok: true });
    expect(await seen).toEqual({ body: "slow commit, then pushed" });
  });
});
