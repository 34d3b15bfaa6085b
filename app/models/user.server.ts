/**
 * Users: joining, signing in, and what a member keeps in their profile and settings.
 * Every write that changes who can sign in (password, status) ends the sessions it must, in the same transaction.
 */
import { randomInt } from "node:crypto";
import type { Knex } from "knex";
import { recordActivity, type ActivityKind } from "~/models/activity.server";
import { deleteUserSessions } from "~/models/session.server";
import type { Db } from "~/utils/db.server";
import { hashPassword, passwordNeedsRehash, verifyPassword } from "~/utils/password.server";

export type Role = "client" | "freelancer" | "admin";
export type UserStatus = "active" | "suspended" | "banned";

export type NewUser = {
  name: string;
  email: string;
  password: string;
  role: Role;
  skills?: string[];
  yearsExperience?: number | null;
  portfolioUrl?: string | null;
  bio?: string;
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
  const taken = new Set(
    (await db("users").where("username", "like", `${padded}%`).pluck("username")) as string[],
  );
  if (!taken.has(padded)) return padded;
  for (let n = 2; ; n++) {
    const candidate = `${padded}_${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

type UniqueViolation = { code?: string; constraint?: string };
const isUniqueViolation = (error: unknown, constraint: string) =>
  (error as UniqueViolation).code === "23505" && (error as UniqueViolation).constraint === constraint;

/**
 * How many times a join is tried when other joins took the username it chose between its read and its
 * insert: the first tries take the next free number, the last ones a random number.
 */
const USERNAME_ATTEMPTS = 6;
const NUMBERED_ATTEMPTS = 3;

/**
 * Creates a member. A taken email (in any letter case) is an EmailTakenError, and nothing is stored.
 * Two people of the same name joining at once may both be offered the same free username; the unique index
 * refuses the second, whose join then runs again and sees the first one's row (so takes the next number).
 */
export async function createUser(db: Knex, input: NewUser): Promise<{ id: number; username: string }> {
  const passwordHash = await hashPassword(input.password);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (trx) => {
        const username = await uniqueUsername(trx, input.name, { random: attempt > NUMBERED_ATTEMPTS });
        const [row] = await trx("users")
          .insert({
            name: input.name,
            username,
            email: input.email,
            password_hash: passwordHash,
            role: input.role,
            skills: input.skills ?? [],
            years_experience: input.yearsExperience ?? null,
            portfolio_url: input.portfolioUrl ?? null,
            bio: input.bio ?? "",
            level: input.role === "freelancer" ? "New Seller" : "Member",
          })
          .returning(["id", "username"]);
        await recordActivity(trx, row.id, "joined", { role: input.role });
        return { id: row.id as number, username: row.username as string };
      });
    } catch (error) {
      if (isUniqueViolation(error, "users_email_key")) throw new EmailTakenError();
      if (isUniqueViolation(error, "users_username_key") && attempt < USERNAME_ATTEMPTS) continue;
      throw error;
    }
  }
}

export async function emailExists(db: Db, email: string): Promise<boolean> {
  return Boolean(await db("users").whereRaw("lower(email) = lower(?)", [email]).first("id"));
}

export type SignInResult =
  | { ok: true; userId: number; role: Role }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "suspended" | "banned" };

/**
 * Checks an email and password. Unknown email and wrong password are the same answer; the password of an
 * unknown email is still hashed, so the two take the same time.
 */
export async function verifyCredentials(db: Db, email: string, password: string): Promise<SignInResult> {
  const user = await db("users")
    .whereRaw("lower(email) = lower(?)", [email])
    .first("id", "password_hash", "role", "status");
  const valid = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !valid) return { ok: false, reason: "invalid" };
  // A hash made with weaker parameters (before N was raised to 2^17) is replaced while we hold the password.
  if (passwordNeedsRehash(user.password_hash)) {
    const stronger = await hashPassword(password);
    await db("users").where({ id: user.id, password_hash: user.password_hash }).update({ password_hash: stronger });
  }
  if (user.status !== "active") return { ok: false, reason: user.status };
  return { ok: true, userId: user.id, role: user.role };
}
// A hash in today's format and parameters for a password nobody has, so an unknown email costs a full hash
// too (with weaker parameters here, the time of an answer would tell which emails have accounts).
const DUMMY_HASH =
  "scrypt$131072$8$1$3b9a1d1f2c4e5a6b7c8d9e0f1a2b3c4d$Wq1hA6fJt0mD2YkZB0m7b6cQvS1xk3t2b9E5aW8n0lU=";

export type Settings = {
  id: number;
  name: string;
  username: string;
  email: string;
  role: Role;
  bio: string;
  location: string;
  avatarKey: string | null;
  skills: string[];
  languages: string[];
  portfolioUrl: string | null;
  yearsExperience: number | null;
  level: string;
  rating: number;
  reviewsCount: number;
  createdAt: Date;
  notifications: NotificationPreferences;
  mobileMoneyNumber: string | null;
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
};

export const NOTIFICATION_COLUMNS = {
  emailOrders: "notify_email_orders",
  emailMessages: "notify_email_messages",
  emailMarketing: "notify_email_marketing",
  pushOrders: "notify_push_orders",
  pushMessages: "notify_push_messages",
} as const satisfies Record<keyof NotificationPreferences, string>;

export async function getSettings(db: Db, userId: number): Promise<Settings | null> {
  const u = await db("users").where({ id: userId }).first();
  if (!u) return null;
  return {
    id: u.id,
    name: u.name,
    username: u.username,
    email: u.email,
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
    },
    mobileMoneyNumber: u.mobile_money_number,
    language: u.language,
    preferredCurrency: u.preferred_currency,
    timeZone: u.time_zone,
  };
}

async function updateUser(db: Knex, userId: number, kind: ActivityKind, values: Record<string, unknown>) {
  await db.transaction(async (trx) => {
    await trx("users")
      .where({ id: userId })
      .update({ ...values, updated_at: trx.fn.now() });
    await recordActivity(trx, userId, kind, {});
  });
}

export function updateProfile(
  db: Knex,
  userId: number,
  p: { name: string; bio: string; location: string; skills: string[]; languages: string[]; avatarKey?: string },
) {
  return updateUser(db, userId, "profile_updated", {
    name: p.name,
    bio: p.bio,
    location: p.location,
    skills: p.skills,
    languages: p.languages,
    ...(p.avatarKey ? { avatar_key: p.avatarKey } : {}),
  });
}

export function updateNotifications(db: Knex, userId: number, prefs: NotificationPreferences) {
  const values = Object.fromEntries(
    Object.entries(NOTIFICATION_COLUMNS).map(([key, column]) => [column, prefs[key as keyof NotificationPreferences]]),
  );
  return updateUser(db, userId, "notifications_updated", values);
}

export function updateBilling(db: Knex, userId: number, mobileMoneyNumber: string) {
  return updateUser(db, userId, "billing_updated", { mobile_money_number: mobileMoneyNumber });
}

export function updatePreferences(
  db: Knex,
  userId: number,
  p: { language: Settings["language"]; preferredCurrency: Settings["preferredCurrency"]; timeZone: Settings["timeZone"] },
) {
  return updateUser(db, userId, "preferences_updated", {
    language: p.language,
    preferred_currency: p.preferredCurrency,
    time_zone: p.timeZone,
  });
}

/**
 * Changes a password after checking the current one, and ends every other session of the user
 * (a changed password should lock out whoever else knew the old one). False when the current one is wrong.
 */
export async function changePassword(
  db: Knex,
  userId: number,
  { current, next, keepSessionId }: { current: string; next: string; keepSessionId: string },
): Promise<boolean> {
  const user = await db("users").where({ id: userId }).first("password_hash");
  if (!(await verifyPassword(current, user?.password_hash))) return false;
  const passwordHash = await hashPassword(next);
  await db.transaction(async (trx) => {
    await trx("users").where({ id: userId }).update({ password_hash: passwordHash, updated_at: trx.fn.now() });
    await deleteUserSessions(trx, userId, { exceptSessionId: keepSessionId });
    // A reset link asked for before the change (perhaps by whoever knew the old password) stops working.
    await trx("password_resets").where({ user_id: userId }).whereNull("used_at").update({ used_at: trx.fn.now() });
    await recordActivity(trx, userId, "password_changed", {});
  });
  return true;
}

/** Sets a new password without the old one (a used reset link) and ends every session. */
export async function resetPassword(trx: Knex.Transaction, userId: number, password: string) {
  const passwordHash = await hashPassword(password);
  await trx("users").where({ id: userId }).update({ password_hash: passwordHash, updated_at: trx.fn.now() });
  await deleteUserSessions(trx, userId);
  await recordActivity(trx, userId, "password_reset", {});
}

/** Suspends, bans or re-activates a member; anything but active ends their sessions at once. */
export async function setUserStatus(db: Knex, userId: number, status: UserStatus) {
  await db.transaction(async (trx) => {
    await trx("users").where({ id: userId }).update({ status, updated_at: trx.fn.now() });
    if (status !== "active") await deleteUserSessions(trx, userId);
    await recordActivity(trx, userId, `status_${status}`, {});
  });
}

/** Makes an administrator (the `npm run admin:create` command). An existing email is an EmailTakenError. */
export function createAdmin(db: Knex, input: { name: string; email: string; password: string }) {
  return createUser(db, { ...input, role: "admin" });
}

/** What the profile-completion panel counts, and the names it shows for what is missing. */
export function profileCompletion(s: Settings): { percent: number; missing: string[] } {
  const fields: [string, boolean][] = [
    ["Name", s.name.trim().length > 0],
    ["Profile photo", Boolean(s.avatarKey)],
    ["Bio", s.bio.trim().length > 0],
    ["Location", s.location.trim().length > 0],
    ["Languages", s.languages.length > 0],
    ...(s.role === "freelancer"
      ? ([
          ["Skills", s.skills.length > 0],
          ["Mobile money number", Boolean(s.mobileMoneyNumber)],
        ] as [string, boolean][])
      : []),
  ];
  const done = fields.filter(([, ok]) => ok).length;
  return {
    percent: Math.round((done / fields.length) * 100),
    missing: fields.filter(([, ok]) => !ok).map(([name]) => name),
  };
}

export type PublicProfile = {
  id: number;
  name: string;
  username: string;
  role: Role;
  avatarKey: string | null;
  level: string;
  rating: number;
  reviewsCount: number;
  location: string;
  bio: string;
  memberSince: Date;
  responseTimeHours: number | null;
  languages: string[];
  skills: string[];
};

/** What anyone may see of an active member; null for unknown usernames and for suspended or banned members. */
export async function getPublicProfile(db: Db, username: string): Promise<PublicProfile | null> {
  if (!/^[a-z0-9_]{3,30}$/.test(username)) return null;
  const u = await db("users").where({ username, status: "active" }).whereNot({ role: "admin" }).first();
  if (!u) return null;
  return {
    id: u.id,
    name: u.name,
    username: u.username,
    role: u.role,
    avatarKey: u.avatar_key,
    level: u.level,
    rating: Number(u.rating),
    reviewsCount: u.reviews_count,
    location: u.location,
    bio: u.bio,
    memberSince: u.created_at,
    responseTimeHours: u.response_time_hours,
    languages: u.languages,
    skills: u.skills,
  };
}

/** A client starts selling: the same account becomes a freelancer (buying stays open to them). */
export async function becomeSeller(db: Knex, userId: number): Promise<boolean> {
  return db.transaction(async (trx) => {
    const updated = await trx("users").where({ id: userId, role: "client" }).update({ role: "freelancer", updated_at: trx.fn.now() });
    if (updated) await recordActivity(trx, userId, "became_seller", {});
    return updated === 1;
  });
}

/** The footer's currency switch, for a signed-in member: stored with their preferences. */
export function setPreferredCurrency(db: Knex, userId: number, currency: Settings["preferredCurrency"]) {
  return updateUser(db, userId, "preferences_updated", { preferred_currency: currency });
}
