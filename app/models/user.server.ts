/**
 * Users: joining, signing in, and what a member keeps in their profile and settings. Plain reads and writes
 * on a `Db` that may be a transaction: the account operations (app/operations/accounts.server.ts) decide who
 * may change what and write each change, its activity and the sessions it ends in one transaction. No
 * function here opens a transaction of its own or writes activity. What a profile shows (the public page,
 * the completion panel) is app/models/profile.server.ts; the admin's list of members,
 * app/models/admin-users.server.ts.
 */
import { randomInt } from "node:crypto";
import { deleteUserSessions } from "~/models/session.server";
import type { Level } from "~/domain/catalog-vocabulary";
import type { Db } from "~/server/db.server";
import { verifyPassword } from "~/server/password.server";

export type Role = "client" | "freelancer" | "admin";
export type UserStatus = "active" | "suspended" | "banned";

export type NewUser = {
  name: string;
  email: string;
  /** Hashed before the transaction (a hash takes a few hundred milliseconds). */
  passwordHash: string;
  role: Role;
  skills?: string[];
  yearsExperience?: number | null;
  portfolioUrl?: string | null;
  bio?: string;
  /** The language they joined in (the page's, ADR 047); English when not said. */
  language?: "en" | "lg" | "sw";
  /** Verified from the start: an account the platform makes for an address it knows (ADR 051). */
  emailVerified?: boolean;
};

export class EmailTakenError extends Error {
  constructor() {
    super("An account with this email already exists. Sign in instead, or use another email.");
  }
}

/**
 * A username from a name: lower case letters, digits and underscores, made unique with the next free number,
 * or, with `random`, a random one (after joins at the same moment kept taking the next number first).
 */
async function uniqueUsername(db: Db, name: string, { random = false } = {}): Promise<string> {
  const base =
    name
      .normalize("NFKD")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .slice(0, 24) || "member";
  const padded = base.length < 3 ? `${base}_member` : base;
  if (random) return `${padded}_${randomInt(1000, 100_000)}`;
  const taken = new Set((await db("users").where("username", "like", `${padded}%`).pluck("username")) as string[]);
  if (!taken.has(padded)) return padded;
  for (let n = 2; ; n++) {
    const candidate = `${padded}_${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * How many usernames a join tries when other joins took the one it chose between its read and its insert:
 * the first tries take the next free number, the last ones a random number.
 */
const USERNAME_ATTEMPTS = 6;
const NUMBERED_ATTEMPTS = 3;

/**
 * Creates a member. A taken email (in any letter case) is an EmailTakenError, and nothing is stored.
 * Two people of the same name joining at once may both be offered the same free username. The insert is
 * ON CONFLICT DO NOTHING, so a clash leaves the caller's transaction usable (a unique violation would abort
 * it): it waits for the other join to commit, inserts nothing, and the next attempt reads the usernames
 * again, now with the other one's row (so takes the next number).
 */
export async function createUser(db: Db, input: NewUser): Promise<{ id: number; username: string }> {
  for (let attempt = 1; attempt <= USERNAME_ATTEMPTS; attempt++) {
    const username = await uniqueUsername(db, input.name, { random: attempt > NUMBERED_ATTEMPTS });
    const [row] = await db("users")
      .insert({
        name: input.name,
        username,
        email: input.email,
        password_hash: input.passwordHash,
        role: input.role,
        skills: input.skills ?? [],
        years_experience: input.yearsExperience ?? null,
        portfolio_url: input.portfolioUrl ?? null,
        bio: input.bio ?? "",
        level: input.role === "freelancer" ? "new" : "member",
        language: input.language ?? "en",
        email_verified_at: input.emailVerified ? db.fn.now() : null,
      })
      .onConflict()
      .ignore()
      .returning(["id", "username"]);
    if (row) return { id: Number(row.id), username: row.username as string };
    if (await emailExists(db, input.email)) throw new EmailTakenError();
  }
  throw new Error(`no free username for a join after ${USERNAME_ATTEMPTS} attempts`);
}

export async function emailExists(db: Db, email: string): Promise<boolean> {
  return Boolean(await db("users").whereRaw("lower(email) = lower(?)", [email]).first("id"));
}

export type VerifiedUser = { id: number; role: Role; status: UserStatus; passwordHash: string; language: Settings["language"] };

/**
 * The member an email and password name, whatever their status, or null. Unknown email and wrong password
 * are the same answer; the password of an unknown email is still hashed, so the two take the same time.
 */
export async function verifyCredentials(db: Db, email: string, password: string): Promise<VerifiedUser | null> {
  const user = await db("users").whereRaw("lower(email) = lower(?)", [email]).first("id", "password_hash", "role", "status", "language");
  const valid = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !valid) return null;
  return { id: Number(user.id), role: user.role, status: user.status, passwordHash: user.password_hash, language: user.language };
}

/** Stores a stronger hash of the same password, unless the password changed meanwhile. */
export async function upgradePasswordHash(db: Db, userId: number, { from, to }: { from: string; to: string }) {
  await db("users").where({ id: userId, password_hash: from }).update({ password_hash: to });
}

// A hash in today's format and parameters for a password nobody has, so an unknown email costs a full hash
// too (with weaker parameters here, the time of an answer would tell which emails have accounts).
const DUMMY_HASH = "scrypt$131072$8$1$3b9a1d1f2c4e5a6b7c8d9e0f1a2b3c4d$Wq1hA6fJt0mD2YkZB0m7b6cQvS1xk3t2b9E5aW8n0lU=";

export type Settings = {
  id: number;
  name: string;
  username: string;
  email: string;
  /** When the member followed the link mailed to `email` (ADR 051); null: not yet. */
  emailVerifiedAt: Date | null;
  role: Role;
  bio: string;
  location: string;
  avatarKey: string | null;
  skills: string[];
  languages: string[];
  portfolioUrl: string | null;
  yearsExperience: number | null;
  level: Level;
  rating: number;
  reviewsCount: number;
  createdAt: Date;
  notifications: NotificationPreferences;
  mobileMoneyNumber: string | null;
  /** When the member last set their payout number (null: before this was stored, or set by the platform). */
  payoutNumberSetAt: Date | null;
  /** When a code texted to the payout number proved it (ADR 055); withdrawals wait for it. */
  payoutNumberVerifiedAt: Date | null;
  /** The member's own number, once a code texted to it came back (ADR 050). */
  verifiedPhone: string | null;
  language: "en" | "lg" | "sw";
  preferredCurrency: "UGX" | "USD";
  timeZone: "EAT" | "UTC";
};

export type NotificationPreferences = {
  emailOrders: boolean;
  emailMessages: boolean;
  emailMarketing: boolean;
  pushOrders: boolean;
  pushMessages: boolean;
  /** Texts about orders and unread messages to the verified phone (ADR 050). */
  smsOrders: boolean;
  smsMessages: boolean;
};

export const NOTIFICATION_COLUMNS = {
  emailOrders: "notify_email_orders",
  emailMessages: "notify_email_messages",
  emailMarketing: "notify_email_marketing",
  pushOrders: "notify_push_orders",
  pushMessages: "notify_push_messages",
  smsOrders: "notify_sms_orders",
  smsMessages: "notify_sms_messages",
} as const satisfies Record<keyof NotificationPreferences, string>;

/** How the platform reaches a member about their orders and messages: where to, whether they can be, and what they chose. */
export type Reach = {
  email: string;
  name: string;
  active: boolean;
  emailOrders: boolean;
  emailMessages: boolean;
  pushOrders: boolean;
  pushMessages: boolean;
};

/** The users columns a Reach is made of (for reads that join users, as a message's send does). */
export const REACH_COLUMNS = [
  "email",
  "name",
  "status",
  NOTIFICATION_COLUMNS.emailOrders,
  NOTIFICATION_COLUMNS.emailMessages,
  NOTIFICATION_COLUMNS.pushOrders,
  NOTIFICATION_COLUMNS.pushMessages,
] as const;

export function reachOf(u: Record<string, unknown>): Reach {
  return {
    email: u.email as string,
    name: u.name as string,
    active: u.status === "active",
    emailOrders: Boolean(u[NOTIFICATION_COLUMNS.emailOrders]),
    emailMessages: Boolean(u[NOTIFICATION_COLUMNS.emailMessages]),
    pushOrders: Boolean(u[NOTIFICATION_COLUMNS.pushOrders]),
    pushMessages: Boolean(u[NOTIFICATION_COLUMNS.pushMessages]),
  };
}

export async function reachOfUser(db: Db, userId: number): Promise<Reach | null> {
  const u = await db("users")
    .where({ id: userId })
    .first(...REACH_COLUMNS);
  return u ? reachOf(u) : null;
}

export async function getSettings(db: Db, userId: number): Promise<Settings | null> {
  const u = await db("users").where({ id: userId }).first();
  if (!u) return null;
  return {
    id: u.id,
    name: u.name,
    username: u.username,
    email: u.email,
    emailVerifiedAt: u.email_verified_at ?? null,
    role: u.role,
    bio: u.bio,
    location: u.location,
    avatarKey: u.avatar_key,
    skills: u.skills,
    languages: u.languages,
    portfolioUrl: u.portfolio_url,
    yearsExperience: u.years_experience,
    level: u.level,
    rating: u.rating,
    reviewsCount: u.reviews_count,
    createdAt: u.created_at,
    notifications: {
      emailOrders: u.notify_email_orders,
      emailMessages: u.notify_email_messages,
      emailMarketing: u.notify_email_marketing,
      pushOrders: u.notify_push_orders,
      pushMessages: u.notify_push_messages,
      smsOrders: u.notify_sms_orders,
      smsMessages: u.notify_sms_messages,
    },
    mobileMoneyNumber: u.mobile_money_number,
    payoutNumberSetAt: u.payout_number_set_at ?? null,
    payoutNumberVerifiedAt: u.payout_number_verified_at ?? null,
    verifiedPhone: u.phone_verified_at ? u.phone : null,
    language: u.language,
    preferredCurrency: u.preferred_currency,
    timeZone: u.time_zone,
  };
}

async function updateUser(db: Db, userId: number, values: Record<string, unknown>): Promise<boolean> {
  const updated = await db("users")
    .where({ id: userId })
    .update({ ...values, updated_at: db.fn.now() });
  return updated === 1;
}

/**
 * Stores a member's profile; with `avatarKey`, their new picture. Answers the picture it replaced (for the
 * caller to delete once this commits), or undefined when the member does not exist.
 */
export async function updateProfile(
  db: Db,
  userId: number,
  p: {
    name: string;
    bio: string;
    location: string;
    skills: string[];
    languages: string[];
    portfolioUrl: string | null;
    yearsExperience: number | null;
    avatarKey?: string;
    avatarSizeBytes?: number;
  },
): Promise<{ previousAvatarKey: string | null } | undefined> {
  const current = await db("users").where({ id: userId }).forUpdate().first("avatar_key");
  if (!current) return undefined;
  await updateUser(db, userId, {
    name: p.name,
    bio: p.bio,
    location: p.location,
    skills: p.skills,
    languages: p.languages,
    portfolio_url: p.portfolioUrl,
    years_experience: p.yearsExperience,
    ...(p.avatarKey ? { avatar_key: p.avatarKey, avatar_size_bytes: p.avatarSizeBytes ?? 0 } : {}),
  });
  return { previousAvatarKey: current.avatar_key ?? null };
}

export function updateNotifications(db: Db, userId: number, prefs: NotificationPreferences) {
  const values = Object.fromEntries(Object.entries(NOTIFICATION_COLUMNS).map(([key, column]) => [column, prefs[key as keyof NotificationPreferences]]));
  return updateUser(db, userId, values);
}

/** A member's role and level, the row locked so no other recomputation of their level runs at once (ADR 049). */
export async function lockLevel(db: Db, userId: number): Promise<{ role: Role; level: Level; responseTimeHours: number | null } | undefined> {
  const u = await db("users").where({ id: userId }).forUpdate().first("role", "level", "response_time_hours");
  return u ? { role: u.role, level: u.level, responseTimeHours: u.response_time_hours } : undefined;
}

/** A seller's level and response time as the platform measured them (app/operations/seller-levels.server.ts). */
export function setLevel(db: Db, userId: number, p: { level: Level; responseTimeHours: number | null }) {
  return updateUser(db, userId, { level: p.level, response_time_hours: p.responseTimeHours });
}

export function updatePreferences(
  db: Db,
  userId: number,
  p: { language: Settings["language"]; preferredCurrency: Settings["preferredCurrency"]; timeZone: Settings["timeZone"] },
) {
  return updateUser(db, userId, {
    language: p.language,
    preferred_currency: p.preferredCurrency,
    time_zone: p.timeZone,
  });
}

/** The footer's currency switch, for a signed-in member: stored with their preferences. */
export function setPreferredCurrency(db: Db, userId: number, currency: Settings["preferredCurrency"]) {
  return updateUser(db, userId, { preferred_currency: currency });
}

/** The language switch, for a signed-in member: stored with their preferences. */
export function setLanguage(db: Db, userId: number, language: Settings["language"]) {
  return updateUser(db, userId, { language });
}

/** Data-saver mode (ADR 054), for a signed-in member: stored with their preferences. */
export function setDataSaver(db: Db, userId: number, on: boolean) {
  return updateUser(db, userId, { data_saver: on });
}

/** A member's stored password hash (null for a member without a password), or undefined for no such member. */
export async function getPasswordHash(db: Db, userId: number): Promise<string | null | undefined> {
  const row = await db("users").where({ id: userId }).first("password_hash");
  return row ? (row.password_hash ?? null) : undefined;
}

/** Stores a new password hash (the caller ends the sessions and reset links it must). */
export function setPasswordHash(db: Db, userId: number, passwordHash: string) {
  return updateUser(db, userId, { password_hash: passwordHash });
}

/**
 * Suspends, bans or re-activates a member; anything but active ends their sessions at once. False when
 * there is no such member. Call it on a transaction to have both writes together (the operation does).
 */
export async function setUserStatus(db: Db, userId: number, status: UserStatus): Promise<boolean> {
  const updated = await updateUser(db, userId, { status });
  if (updated && status !== "active") await deleteUserSessions(db, userId);
  return updated;
}

/** A client starts selling: the same account becomes a freelancer (buying stays open to them). False for anyone else. */
export async function becomeSeller(db: Db, userId: number): Promise<boolean> {
  const updated = await db("users").where({ id: userId, role: "client" }).update({ role: "freelancer", updated_at: db.fn.now() });
  return updated === 1;
}

// ——— What an admin does to members (app/operations/admin-users.server.ts) ———

export type LockedUser = { id: number; name: string; role: Role; status: UserStatus; deleted: boolean; avatarKey: string | null };

/**
 * Members by id, their rows locked for the rest of the transaction (in id order, so two admins' batches
 * cannot deadlock); ids with no row are simply absent.
 */
export async function lockUsers(db: Db, ids: number[]): Promise<LockedUser[]> {
  if (ids.length === 0) return [];
  const rows = await db("users").whereIn("id", ids).orderBy("id").forUpdate().select("id", "name", "role", "status", "deleted_at", "avatar_key");
  return rows.map((u) => ({ id: Number(u.id), name: u.name, role: u.role, status: u.status, deleted: u.deleted_at !== null, avatarKey: u.avatar_key ?? null }));
}

/**
 * The ids of the active admins, their rows locked: an operation that may leave the platform without an
 * admin takes this lock first, so two admins suspending each other at once cannot both succeed (the second
 * finds itself no longer active once the first commits).
 */
export async function lockActiveAdmins(db: Db): Promise<number[]> {
  const rows = await db("users").where({ role: "admin", status: "active" }).whereNull("deleted_at").orderBy("id").forUpdate().select("id");
  return rows.map((r) => Number(r.id));
}

/**
 * A member deleted: the row stays (orders, the ledger, reviews and messages name it) but nothing of the
 * person does: a placeholder name, username and email (unique by id, on a domain that cannot receive
 * mail), no password, picture, profile or payout number; status banned (never active again) and
 * `deleted_at`. Their sessions end. The caller locks the row, deletes the old picture after the commit,
 * and ends their sockets.
 */
export async function anonymiseUser(db: Db, userId: number): Promise<boolean> {
  const updated = await updateUser(db, userId, {
    name: "Deleted member",
    username: `deleted_${userId}`,
    email: `deleted-${userId}@deleted.invalid`,
    password_hash: null,
    status: "banned",
    deleted_at: db.fn.now(),
    bio: "",
    location: "",
    profile_pic_url: null,
    avatar_key: null,
    skills: [],
    languages: [],
    portfolio_url: null,
    years_experience: null,
    mobile_money_number: null,
    payout_number_set_at: null,
    payout_number_verified_at: null,
    phone: null,
    phone_verified_at: null,
  });
  if (!updated) return false;
  await deleteUserSessions(db, userId);
  await db("password_resets").where({ user_id: userId }).whereNull("used_at").update({ used_at: db.fn.now() });
  // Their gigs leave the catalogue (kept for the orders that name them).
  await db("gigs").where({ seller_id: userId, status: "published" }).update({ status: "paused", updated_at: db.fn.now() });
  return true;
}

/** Whether a member is buyer or seller on an order still under way (awaiting payment, in progress, delivered). */
export async function hasOpenOrders(db: Db, userId: number): Promise<boolean> {
  const row = await db("orders")
    .whereIn("status", ["pending_payment", "in_progress", "delivered"])
    .andWhere((w) => w.where("buyer_id", userId).orWhere("seller_id", userId))
    .first("id");
  return Boolean(row);
}

/**
 * A member's new email, unverified until its own link is followed (ADR 051). False when it is the address they
 * already have (in any letter case); a taken one is an EmailTakenError (a race with another account's change
 * too: the unique index refuses it, and the caller's operation rolls back).
 */
export async function setEmail(db: Db, userId: number, email: string): Promise<boolean> {
  const current = await db("users").where({ id: userId }).forUpdate().first("email");
  if (!current || String(current.email).toLowerCase() === email.toLowerCase()) return false;
  if (await db("users").whereRaw("lower(email) = lower(?)", [email]).whereNot({ id: userId }).first("id")) throw new EmailTakenError();
  try {
    await db("users").where({ id: userId }).update({ email, email_verified_at: null });
  } catch (error) {
    if ((error as { code?: string }).code === "23505") throw new EmailTakenError();
    throw error;
  }
  return true;
}

/** A member's row for vetting (ADR 051), locked for the rest of the transaction; null when there is none. */
export async function lockVetting(db: Db, userId: number) {
  const u = await db("users").where({ id: userId }).forUpdate().first("id", "name", "role", "deleted_at", "vetted_at");
  return u ? { id: Number(u.id), name: String(u.name), role: u.role as Role, deleted: u.deleted_at !== null, vetted: u.vetted_at !== null } : null;
}

/** Marks a freelancer vetted by an admin, with the admin's note, or (`by` null) no longer vetted. */
export async function setVetted(db: Db, userId: number, by: { adminId: number; note: string } | null) {
  await db("users")
    .where({ id: userId })
    .update(by ? { vetted_at: db.fn.now(), vetted_by: by.adminId, vetted_note: by.note } : { vetted_at: null, vetted_by: null, vetted_note: null });
}
