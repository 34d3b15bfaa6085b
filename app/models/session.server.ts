import { createHash, randomBytes } from "node:crypto";
import { headerCounts, headerCountsOf, headerCountsSql, type HeaderCounts } from "~/models/notification.server";
import { prepared, type Db } from "~/server/db.server";

/** The session cookie's name; the cookie holds the token, the row is named by its SHA-256. */
export const SESSION_COOKIE = "soko_session";
/**
 * A "remember me" session lasts 30 days from sign-in. Any other (every admin's: ADR 030) has a cookie that ends
 * with the browser and a row that ends after 12 hours without activity: each request that finds less than
 * BROWSER_SESSION_MS - RENEW_AFTER_MS left puts its end 12 hours ahead again (renewSession, through the
 * operation keepSessionAlive), so a session in use is written at most once every RENEW_AFTER_MS.
 */
export const PERSISTENT_SESSION_MS = 30 * 24 * 60 * 60 * 1000;
export const BROWSER_SESSION_MS = 12 * 60 * 60 * 1000;
export const RENEW_AFTER_MS = 5 * 60 * 1000;

export type SessionUser = {
  sessionId: string;
  id: number;
  name: string;
  username: string;
  email: string;
  role: "client" | "freelancer" | "admin";
  preferredCurrency: "UGX" | "USD";
  timeZone: "EAT" | "UTC";
  /** A browser session whose end is due to move 12 hours ahead (keepSessionAlive); absent when it is not. */
  renewalDue?: boolean;
};

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * Starts a session and returns the token to put in the cookie (or hand out as a Bearer token). Its end is
 * set by the database's clock, the clock every later check of it reads.
 */
export async function createSession(
  db: Db,
  { userId, persistent, userAgent }: { userId: number; persistent: boolean; userAgent?: string | null },
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString("base64url");
  const [row] = await db("sessions")
    .insert({
      id: hashToken(token),
      user_id: userId,
      expires_at: db.raw(`now() + interval '${persistent ? PERSISTENT_SESSION_MS : BROWSER_SESSION_MS} milliseconds'`),
      persistent,
      user_agent: userAgent?.slice(0, 300) ?? null,
    })
    .returning("expires_at");
  return { token, expiresAt: new Date(row.expires_at) };
}

/**
 * The signed-in user for a session token, or null: unknown or expired token, a user who is not active
 * (suspended and banned users have no working session, whatever rows remain), or an admin whose session is
 * not a browser session of at most 12 hours (a "remember me" session from before they became an admin, or
 * from before admins' sessions were limited: ADR 030), so no admin ever holds a long session.
 *
 * Calls for the same token and database handle while a lookup is in flight share it: a page's loaders (the
 * root's and the route's, which Remix starts together) then cost one statement. Nothing is kept once it has
 * answered, so a call that starts after a sign-out never sees the old session.
 */
export function getSessionUser(db: Db, token: string | null | undefined): Promise<SessionUser | null> {
  if (!token || token.length > 200) return Promise.resolve(null);
  const id = hashToken(token);
  return (
    inFlight(db).get(id) ??
    share(
      db,
      id,
      readSession(db, id, false).then((found) => found?.user ?? null),
    )
  );
}

/**
 * getSessionUser with the header's counts of the member's unread notifications and messages, in the same
 * statement (the root loader of every marketplace page). A plain lookup already in flight is waited for
 * and the counts read after it.
 */
export async function getSessionUserWithCounts(db: Db, token: string | null | undefined): Promise<{ user: SessionUser; counts: HeaderCounts } | null> {
  if (!token || token.length > 200) return null;
  const id = hashToken(token);
  const pending = inFlight(db).get(id);
  if (pending) {
    const user = await pending;
    return user ? { user, counts: await headerCounts(db, user.id) } : null;
  }
  const found = readSession(db, id, true);
  share(
    db,
    id,
    found.then((f) => f?.user ?? null),
  );
  const session = await found;
  return session ? { user: session.user, counts: session.counts! } : null;
}

const lookups = new WeakMap<Db, Map<string, Promise<SessionUser | null>>>();

function inFlight(db: Db): Map<string, Promise<SessionUser | null>> {
  let byId = lookups.get(db);
  if (!byId) lookups.set(db, (byId = new Map()));
  return byId;
}

/** Makes `lookup` the one in flight for this session until it settles. */
function share(db: Db, id: string, lookup: Promise<SessionUser | null>): Promise<SessionUser | null> {
  const byId = inFlight(db);
  byId.set(id, lookup);
  const done = () => {
    if (byId.get(id) === lookup) byId.delete(id);
  };
  lookup.then(done, done);
  return lookup;
}

async function readSession(db: Db, id: string, withCounts: boolean): Promise<{ user: SessionUser; counts: HeaderCounts | null } | null> {
  // Every request and socket event of a member asks this: a prepared statement (one text with counts, one without).
  const row = await prepared(
    db("sessions as s")
      .join("users as u", "u.id", "s.user_id")
      .where("s.id", id)
      .andWhere("s.expires_at", ">", db.fn.now())
      .andWhere("u.status", "active")
      .andWhere((q) =>
        q
          .whereNot("u.role", "admin")
          .orWhere((admin) =>
            admin.where("s.persistent", false).andWhere("s.expires_at", "<=", db.raw(`now() + interval '${BROWSER_SESSION_MS} milliseconds'`)),
          ),
      )
      .first(
        "s.id as session_id",
        "u.id",
        "u.name",
        "u.username",
        "u.email",
        "u.role",
        "u.preferred_currency",
        "u.time_zone",
        db.raw(`(NOT s.persistent AND s.expires_at < now() + interval '${BROWSER_SESSION_MS - RENEW_AFTER_MS} milliseconds') AS renewal_due`),
        ...(withCounts ? [db.raw(headerCountsSql('"u"."id"'))] : []),
      ),
  );
  if (!row) return null;
  const user: SessionUser = {
    sessionId: row.session_id,
    id: row.id,
    name: row.name,
    username: row.username,
    email: row.email,
    role: row.role,
    preferredCurrency: row.preferred_currency,
    timeZone: row.time_zone,
    ...(row.renewal_due ? { renewalDue: true } : {}),
  };
  return { user, counts: withCounts ? headerCountsOf(row) : null };
}

/**
 * Moves a browser session's end 12 hours from now (its member is active). Only when it is still due, so
 * parallel requests of one page write once; a persistent session keeps its fixed end.
 */
export async function renewSession(db: Db, sessionId: string): Promise<boolean> {
  const renewed = await db("sessions")
    .where({ id: sessionId, persistent: false })
    .andWhere("expires_at", ">", db.fn.now())
    .andWhere("expires_at", "<", db.raw(`now() + interval '${BROWSER_SESSION_MS - RENEW_AFTER_MS} milliseconds'`))
    .update({ expires_at: db.raw(`now() + interval '${BROWSER_SESSION_MS} milliseconds'`) });
  return renewed > 0;
}

export async function deleteSession(db: Db, token: string) {
  await db("sessions")
    .where({ id: hashToken(token) })
    .delete();
}

/** Ends one session by its row id (a SessionUser's `sessionId`: the token's hash). */
export async function deleteSessionById(db: Db, sessionId: string) {
  await db("sessions").where({ id: sessionId }).delete();
}

/** Ends every session of a user (suspend, ban, delete, "sign out everywhere"), except one if given. */
export async function deleteUserSessions(db: Db, userId: number, { exceptSessionId }: { exceptSessionId?: string } = {}) {
  const query = db("sessions").where({ user_id: userId });
  if (exceptSessionId) query.whereNot({ id: exceptSessionId });
  return query.delete();
}
