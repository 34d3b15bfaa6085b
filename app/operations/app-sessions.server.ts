/**
 * A member's sessions, browsers and apps (ADR 041): an app's token refreshed (a new token of the same family,
 * the old one kept as replaced so that its reuse is caught), and any session ended from Settings › Security or
 * by the app itself. Signing in and out are in accounts.server.ts.
 */
import { deleteMemberSession, endReusedAppSession, listMemberSessions, rotateAppSession, type MemberSession } from "~/models/session.server";
import { forbidden, memberOf, notFound, ok, transact, type Actor, type Result } from "~/operations/core.server";
import { getDb } from "~/server/db.server";
import type { Options } from "./accounts.server";

/** An app's token is replaced by a new one (POST /auth/refresh). A browser's session cannot be refreshed so. */
export async function refreshAppToken(actor: Actor, { db }: Options = {}): Promise<Result<{ token: string; expiresAt: Date }>> {
  const user = memberOf(actor);
  if (!user) return forbidden("account.sign_in_required");
  return transact(
    actor,
    async (tx) => {
      const rotated = await rotateAppSession(tx.trx, user.sessionId);
      if (!rotated) return forbidden("token.invalid");
      // Sockets opened with the old token end: the app reconnects with the new one.
      tx.live({ disconnectSession: user.sessionId });
      return ok(rotated);
    },
    { db },
  );
}

/** The member's live sessions, with the one this request came with marked. */
export async function listSessions(actor: Actor, { db = getDb() }: Options = {}): Promise<Result<(MemberSession & { current: boolean })[]>> {
  const user = memberOf(actor);
  if (!user) return forbidden("account.sign_in_required");
  const sessions = await listMemberSessions(db, user.id);
  return ok(sessions.map((s) => ({ ...s, current: s.id === user.sessionId })));
}

/**
 * One of the member's sessions ends (Settings › Security, "Sign out" beside a browser or an app): an app's with
 * every token of its sign-in, and its open sockets close. Another member's session, or none, is not found.
 */
export async function endSession(actor: Actor, input: { sessionId: string }, { db }: Options = {}): Promise<Result<{ current: boolean }>> {
  const user = memberOf(actor);
  if (!user) return forbidden("account.sign_in_required");
  return transact(
    actor,
    async (tx) => {
      const ended = await deleteMemberSession(tx.trx, user.id, input.sessionId);
      if (!ended.length) return notFound("record.not_found");
      for (const id of ended) tx.live({ disconnectSession: id });
      await tx.activity(user.id, "signed_out_elsewhere");
      return ok({ current: ended.includes(user.sessionId) });
    },
    { db },
  );
}

/**
 * A token that names no live app session: when it is one a refresh replaced, someone else holds a copy, and
 * every token of its sign-in ends (their sockets close). Answers whether it was such a token.
 */
export async function endReusedToken(actor: Actor, input: { token: string }, { db }: Options = {}): Promise<Result<{ reused: boolean }>> {
  if (actor.kind === "system") return forbidden("access.not_for_platform", { task: "session" });
  return transact(
    actor,
    async (tx) => {
      const ended = await endReusedAppSession(tx.trx, input.token);
      for (const id of ended?.ended ?? []) tx.live({ disconnectSession: id });
      return ok({ reused: ended !== null });
    },
    { db },
  );
}
