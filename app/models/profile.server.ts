/**
 * What a member's profile shows: the public profile anyone may see of an active member (their page, a
 * conversation's side panel), and how complete the member's own profile is (the dashboard's panel). Reads
 * only; a member's profile is written by the account operations through app/models/user.server.ts.
 */
import type { Level } from "~/domain/catalog-vocabulary";
import { trustBadgesOf, type TrustBadges } from "~/domain/trust";
import type { Db } from "~/server/db.server";
import type { Role, Settings } from "~/models/user.server";

/** What the profile-completion panel counts, by code: the dashboard names what is missing in the reader's language. */
export type ProfilePart = "name" | "photo" | "bio" | "location" | "languages" | "skills" | "mobileMoney";

export function profileCompletion(s: Settings): { percent: number; missing: ProfilePart[] } {
  const fields: [ProfilePart, boolean][] = [
    ["name", s.name.trim().length > 0],
    ["photo", Boolean(s.avatarKey)],
    ["bio", s.bio.trim().length > 0],
    ["location", s.location.trim().length > 0],
    ["languages", s.languages.length > 0],
    ...(s.role === "freelancer"
      ? ([
          ["skills", s.skills.length > 0],
          ["mobileMoney", Boolean(s.mobileMoneyNumber)],
        ] as [ProfilePart, boolean][])
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
  level: Level;
  rating: number;
  reviewsCount: number;
  location: string;
  bio: string;
  memberSince: Date;
  /** The median hours to a first reply, rounded up (ADR 049); null while fewer than 3 conversations say. */
  responseTimeHours: number | null;
  languages: string[];
  skills: string[];
  /** An http(s) address (the schema allows no other), linked with rel="nofollow ugc noopener". */
  portfolioUrl: string | null;
  yearsExperience: number | null;
  /** "Email verified", "Phone verified", "Vetted" (ADR 051). */
  trust: TrustBadges;
};

/** What anyone may see of an active member; null for unknown usernames and for suspended or banned members. */
export async function getPublicProfile(db: Db, username: string): Promise<PublicProfile | null> {
  if (!/^[a-z0-9_]{3,30}$/.test(username)) return null;
  return publicProfileOf(await db("users").where({ username, status: "active" }).whereNot({ role: "admin" }).first());
}

/** The same by the member's id (the JSON API names members by id or username). */
export async function getPublicProfileById(db: Db, id: number): Promise<PublicProfile | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  return publicProfileOf(await db("users").where({ id, status: "active" }).whereNot({ role: "admin" }).first());
}

function publicProfileOf(u: Record<string, any> | undefined): PublicProfile | null {
  if (!u) return null;
  return {
    id: Number(u.id),
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
    // Only http(s) is ever linked, whatever an older row holds.
    portfolioUrl: typeof u.portfolio_url === "string" && /^https?:\/\//i.test(u.portfolio_url) ? u.portfolio_url : null,
    yearsExperience: u.years_experience ?? null,
    trust: trustBadgesOf(u),
  };
}
