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
/**
 * An app's token (ADR 041) lasts 30 days from its sign-in or last refresh; an admin's only 12 hours from the
 * sign-in, however often it is refreshed.
 */
export const APP_TOKEN_MS = 30 * 24 * 60 * 60 * 1000;
export const ADMIN_APP_TOKEN_MS = BROWSER_SESSION_MS;

/** A browser's session (named by its cookie) or an app's (named by a Bearer token): one never works as the other. */
export type SessionKind = "browser" | "app";
/** Where an app's token was issued to: a phone app, or any other program (a partner's). */
export type AppPlatform = "android" | "ios" | "api";

export type SessionUser = {
  sessionId: string;
  id: number;
  name: string;
  username: string;
  email: string;
  role: "client" | "freelancer" | "admin";
  preferredCurrency: "UGX" | "USD";
  timeZone: "EAT" | "UTC";
  /** The language the member chose (Settings › Preferences, or the switcher while signed in). */
  language: "en" | "lg" | "sw";
  /** Data-saver mode (ADR 054): set when the member turned it on; absent is off. */
  dataSaver?: boolean;
  /** An app's session: the platform its token was issued to. */
  platform?: AppPlatform;
  /**
   * A browser session whose end is due to move 12 hours ahead, or an app's whose last use is due to be noted
   * (keepSessionAlive); absent when it is not.
   */
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
  const token = newToken();
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

const newToken = () => randomBytes(32).toString("base64url");

export type AppSessionInput = { userId: number; admin: boolean; platform: AppPlatform; deviceName: string | null; userAgent?: string | null };

/**
 * Starts an app's session (ADR 041): a new family of tokens and its first token. A member's lasts 30 days; an
 * admin's 12 hours, and it is not persistent, as every admin session must be (readSession).
 */
export async function createAppSession(db: Db, input: AppSessionInput): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken();
  const [row] = await db("sessions")
    .insert({
      id: hashToken(token),
      user_id: input.userId,
      kind: "app",
      family_id: randomBytes(12).toString("base64url"),
      platform: input.platform,
      device_name: input.deviceName?.slice(0, 100) ?? null,
      expires_at: db.raw(`now() + interval '${input.admin ? ADMIN_APP_TOKEN_MS : APP_TOKEN_MS} milliseconds'`),
      persistent: !input.admin,
      user_agent: input.userAgent?.slice(0, 300) ?? null,
      last_used_at: db.fn.now(),
    })
    .returning("expires_at");
  return { token, expiresAt: new Date(row.expires_at) };
}

/**
 * Replaces an app's token with a new one of its family (a refresh). The old row stays, marked rotated, until it
 * would have expired: presented again it is a reuse (appTokenReused). A member's new token lasts 30 days from
 * now; an admin's keeps its family's end. Null when the session is not a live, unrotated app session.
 * Call inside a transaction: the old row is locked, so two refreshes of one token give one new token.
 */
export async function rotateAppSession(db: Db, sessionId: string): Promise<{ token: string; expiresAt: Date } | null> {
  const old = await db("sessions")
    .where({ id: sessionId, kind: "app" })
    .whereNull("rotated_at")
    .andWhere("expires_at", ">", db.fn.now())
    .forUpdate()
    .first("user_id", "family_id", "platform", "device_name", "user_agent", "persistent", "expires_at");
  if (!old) return null;
  await db("sessions").where({ id: sessionId }).update({ rotated_at: db.fn.now() });
  const token = newToken();
  const [row] = await db("sessions")
    .insert({
      id: hashToken(token),
      user_id: old.user_id,
      kind: "app",
      family_id: old.family_id,
      platform: old.platform,
      device_name: old.device_name,
      user_agent: old.user_agent,
      persistent: old.persistent,
      expires_at: old.persistent ? db.raw(`now() + interval '${APP_TOKEN_MS} milliseconds'`) : old.expires_at,
      last_used_at: db.fn.now(),
    })
    .returning("expires_at");
  return { token, expiresAt: new Date(row.expires_at) };
}

/**
 * Whether a token is one an app was given and has since replaced by a refresh: someone else holds a copy. Its
 * whole family is ended then (every token of that sign-in), and the owner signs in again. Returns the member's
 * id and the sessions ended when it was such a token.
 */
export async function endReusedAppSession(db: Db, token: string | null | undefined): Promise<{ userId: number; ended: string[] } | null> {
  if (!token || token.length > 200) return null;
  const row = await db("sessions")
    .where({ id: hashToken(token), kind: "app" })
    .whereNotNull("rotated_at")
    .first("family_id", "user_id");
  if (!row) return null;
  const ended: { id: string }[] = await db("sessions").where({ family_id: row.family_id }).delete().returning("id");
  return { userId: Number(row.user_id), ended: ended.map((r) => r.id) };
}

/** A member's live sessions, browsers and apps, newest use first (Settings › Security). */
export type MemberSession = {
  id: string;
  kind: SessionKind;
  platform: AppPlatform | null;
  deviceName: string | null;
  userAgent: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string;
};

export async function listMemberSessions(db: Db, userId: number): Promise<MemberSession[]> {
  const rows = await db("sessions")
    .where({ user_id: userId })
    .whereNull("rotated_at")
    .andWhere("expires_at", ">", db.fn.now())
    .orderByRaw("coalesce(last_used_at, created_at) DESC")
    .select("id", "kind", "platform", "device_name", "user_agent", "created_at", "last_used_at", "expires_at");
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    platform: r.platform,
    deviceName: r.device_name,
    userAgent: r.user_agent,
    createdAt: new Date(r.created_at).toISOString(),
    lastUsedAt: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
    expiresAt: new Date(r.expires_at).toISOString(),
  }));
}

/**
 * Ends one of a member's sessions by its id, with its whole family when it is an app's (the replaced tokens of
 * that sign-in too). Returns the ids that went; none when the id is not this member's.
 */
export async function deleteMemberSession(db: Db, userId: number, sessionId: string): Promise<string[]> {
  const row = await db("sessions").where({ id: sessionId, user_id: userId }).first("family_id");
  if (!row) return [];
  const query = db("sessions").where({ user_id: userId });
  const rows: { id: string }[] = await (row.family_id ? query.where({ family_id: row.family_id }) : query.where({ id: sessionId })).delete().returning("id");
  return rows.map((r) => r.id);
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
export function getSessionUser(db: Db, token: string | null | undefined, kind: SessionKind = "browser"): Promise<SessionUser | null> {
  if (!token || token.length > 200) return Promise.resolve(null);
  const id = hashToken(token);
  const key = kind === "browser" ? id : `${kind}:${id}`;
  return (
    inFlight(db).get(key) ??
    share(
      db,
      key,
      readSession(db, id, false, kind).then((found) => found?.user ?? null),
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
  const found = readSession(db, id, true, "browser");
  share(
    db,
    id,
    found.then((f) => f?.user ?? null),
  );
  const session = await found;
  return session ? { user: session.user, counts: session.counts! } : null;
}

/** A token's member and when its session ends (app/server/token-cache.server.ts holds the answer until then at most). */
export async function getSessionWithEnd(db: Db, token: string, kind: SessionKind): Promise<{ user: SessionUser; expiresAt: Date } | null> {
  if (!token || token.length > 200) return null;
  const session = await readSession(db, hashToken(token), false, kind);
  return session && { user: session.user, expiresAt: session.expiresAt };
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

async function readSession(
  db: Db,
  id: string,
  withCounts: boolean,
  kind: SessionKind,
): Promise<{ user: SessionUser; counts: HeaderCounts | null; expiresAt: Date } | null> {
  // Every request and socket event of a member asks this: a prepared statement (one text with counts, one without).
  const row = await prepared(
    db("sessions as s")
      .join("users as u", "u.id", "s.user_id")
      .where("s.id", id)
      .andWhere("s.kind", kind)
      .whereNull("s.rotated_at")
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
        "u.language",
        "u.data_saver",
        "s.platform",
        "s.expires_at",
        db.raw(`${RENEWAL_DUE} AS renewal_due`),
        db.raw(`${ACTIVE_DUE} AS active_due`),
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
    language: row.language,
    ...(row.data_saver ? { dataSaver: true } : {}),
    ...(row.platform ? { platform: row.platform } : {}),
    ...(row.renewal_due || row.active_due ? { renewalDue: true } : {}),
  };
  return { user, counts: withCounts ? headerCountsOf(row) : null, expiresAt: new Date(row.expires_at) };
}

/**
 * Due for keepSessionAlive: a browser session (not "remember me") with less than 12 hours less five minutes left,
 * or an app's whose last use was noted more than five minutes ago. So a session in use is written at most once
 * every five minutes.
 */
const RENEWAL_DUE = `(CASE WHEN s.kind = 'app' THEN (s.last_used_at IS NULL OR s.last_used_at < now() - interval '${RENEW_AFTER_MS} milliseconds')
  ELSE (NOT s.persistent AND s.expires_at < now() + interval '${BROWSER_SESSION_MS - RENEW_AFTER_MS} milliseconds') END)`;

/**
 * Due for noting the member's own last activity (users.last_active_at, the directory's "recently active"): not
 * noted in the last five minutes.
 */
const ACTIVE_DUE = `(u.last_active_at IS NULL OR u.last_active_at < now() - interval '${RENEW_AFTER_MS} milliseconds')`;

/**
 * A session in use: a browser session's end moves 12 hours from now (a persistent one keeps its fixed end),
 * and its last use is noted, as is its member's last activity. Each only when still due (RENEWAL_DUE,
 * ACTIVE_DUE), so parallel requests of one page write once.
 */
export async function renewSession(db: Db, sessionId: string): Promise<boolean> {
  await db("users as u")
    .whereIn("u.id", db("sessions").where({ id: sessionId }).select("user_id"))
    .andWhereRaw(ACTIVE_DUE)
    .update({ last_active_at: db.fn.now() });
  const renewed = await db("sessions as s")
    .where("s.id", sessionId)
    .whereNull("s.rotated_at")
    .andWhere("s.expires_at", ">", db.fn.now())
    .andWhereRaw(RENEWAL_DUE)
    .update({
      expires_at: db.raw(`CASE WHEN kind = 'browser' THEN now() + interval '${BROWSER_SESSION_MS} milliseconds' ELSE expires_at END`),
      last_used_at: db.fn.now(),
    });
  return renewed > 0;
}

export async function deleteSession(db: Db, token: string) {
  await db("sessions")
    .where({ id: hashToken(token) })
    .delete();
}

/** Ends every session of a user (suspend, ban, delete, "sign out everywhere"), except one if given. */
export async function deleteUserSessions(db: Db, userId: number, { exceptSessionId }: { exceptSessionId?: string } = {}) {
  const query = db("sessions").where({ user_id: userId });
  if (exceptSessionId) query.whereNot({ id: exceptSessionId });
  return query.delete();
}
