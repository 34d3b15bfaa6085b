/**
 * Users calls (ADR 041): the token's own profile (read, edited as Settings › Profile edits it, its picture
 * replaced), any active member's public profile as their page shows it, and the directory of freelancers.
 * Another member is never shown with their email or payout number; a suspended, banned or deleted member,
 * or an admin, is not found.
 */
import { z } from "zod";
import { LEVELS } from "~/domain/catalog-vocabulary";
import { encodeDirectoryCursor, listFreelancers } from "~/models/freelancer-directory.server";
import { DirectoryFilters } from "~/schemas/directory.server";
import { getPublicProfile, getPublicProfileById, type PublicProfile } from "~/models/profile.server";
import { getSettings, type Settings } from "~/models/user.server";
import { updateProfile } from "~/operations/account-settings.server";
import { invalid, memberOf, notFound, ok, type Actor, type Result } from "~/operations/core.server";
import { bio, languagesArray, location, name, portfolioUrl, skillsArray, yearsExperience } from "~/schemas/account";
import { responseWords } from "~/domain/seller-levels";
import { FORM_BODY_LIMIT } from "~/server/body-limit.server";
import { MAX_IMAGE_BYTES } from "~/server/files/storage.server";
import { getDb } from "~/server/db.server";
import { imageUrl } from "~/utils/media";
import { ANSWERED, call } from "../route.server";
import { iso, Iso, PageQuery, pageOf } from "../shapes";
import { besideFile, FILE_FIELD, readFileParts } from "./uploads.server";

const avatarUrlOf = (key: string | null) => (key ? imageUrl(key, "avatar") : null);

const avatarUrl = z.string().nullable().describe("The profile picture (256 x 256 WebP), a path on this site; null without one.");
const level = z.enum(LEVELS).describe("The member's level, a code: new, level_1, level_2, top_rated (a seller's), member (a client's).");
const rating = z.number().min(0).max(5).describe("The average of their reviews, 0 before any.");
const portfolio = z.string().nullable().describe("Their portfolio's address (http or https); null without one.");
const years = z.number().int().nullable().describe("Their years of experience, as they gave them; null when not given.");

/** The token's own member, as Settings shows them. */
const OwnProfile = z.object({
  id: z.number().int(),
  name: z.string(),
  username: z.string(),
  email: z.string(),
  role: z.enum(["client", "freelancer", "admin"]),
  bio: z.string(),
  skills: z.array(z.string()),
  location: z.string(),
  languages: z.array(z.string()),
  portfolioUrl: portfolio,
  yearsExperience: years,
  avatarUrl,
  level,
  rating,
  reviewsCount: z.number().int(),
  language: z.enum(["en", "lg", "sw"]).describe("The language they chose for Soko."),
  preferredCurrency: z.enum(["UGX", "USD"]),
  timeZone: z.enum(["EAT", "UTC"]),
  memberSince: Iso,
});

const ownProfileOf = (s: Settings): z.input<typeof OwnProfile> => ({
  id: Number(s.id),
  name: s.name,
  username: s.username,
  email: s.email,
  role: s.role,
  bio: s.bio,
  skills: s.skills,
  location: s.location,
  languages: s.languages,
  portfolioUrl: s.portfolioUrl,
  yearsExperience: s.yearsExperience,
  avatarUrl: avatarUrlOf(s.avatarKey),
  level: s.level,
  rating: Number(s.rating),
  reviewsCount: Number(s.reviewsCount),
  language: s.language,
  preferredCurrency: s.preferredCurrency,
  timeZone: s.timeZone,
  memberSince: iso(s.createdAt),
});

/** What anyone may see of an active member: their page's facts, never their email or payout number. */
const PublicMember = z.object({
  id: z.number().int(),
  name: z.string(),
  username: z.string(),
  role: z.enum(["client", "freelancer"]),
  avatarUrl,
  level,
  rating,
  reviewsCount: z.number().int(),
  location: z.string(),
  bio: z.string(),
  skills: z.array(z.string()),
  languages: z.array(z.string()),
  portfolioUrl: portfolio,
  yearsExperience: years,
  responseTimeHours: z
    .number()
    .int()
    .nullable()
    .describe(
      "The median time to their first reply in conversations buyers started in the last 30 days, rounded up to whole hours; null below 3 such conversations or over a day.",
    ),
  responseTime: z
    .string()
    .nullable()
    .describe('How the profile says it: hour ("within 1 hour"), hours ("within a few hours"), day ("within a day"); null: nothing is shown.'),
  memberSince: Iso,
});

const PublicFacts = PublicMember.omit({ role: true });

const Freelancer = PublicFacts.extend({
  vetted: z.boolean().describe("An admin checked their portfolio."),
  lastActiveAt: Iso.nullable().describe("When they were last active on Soko; null if never."),
});

/** A member's public facts (their page's, or the directory's row). */
const publicFactsOf = (p: Omit<PublicProfile, "role" | "trust">): z.input<typeof PublicFacts> => ({
  id: Number(p.id),
  name: p.name,
  username: p.username,
  avatarUrl: avatarUrlOf(p.avatarKey),
  level: p.level,
  rating: Number(p.rating),
  reviewsCount: Number(p.reviewsCount),
  location: p.location,
  bio: p.bio,
  skills: p.skills,
  languages: p.languages,
  portfolioUrl: p.portfolioUrl,
  yearsExperience: p.yearsExperience,
  responseTimeHours: responseWords(p.responseTimeHours) ? p.responseTimeHours : null,
  responseTime: responseWords(p.responseTimeHours),
  memberSince: iso(p.memberSince),
});

const publicMemberOf = (p: PublicProfile): z.input<typeof PublicMember> => ({ ...publicFactsOf(p), role: p.role as "client" | "freelancer" });

/** The fields of Settings › Profile; one left out keeps its value. Lists are arrays (the form's commas split them too). */
const ProfileBody = z
  .object({
    name: name.optional(),
    bio: bio.optional(),
    location: location.optional(),
    skills: skillsArray.optional().describe("At most 20 skills of at most 40 characters; repeats and blanks are dropped."),
    languages: languagesArray.optional().describe("At most 10 languages of at most 40 characters."),
    portfolioUrl: portfolioUrl.nullable().optional().describe("An http or https address of at most 300 characters; null clears it."),
    yearsExperience: yearsExperience.nullable().optional().describe("A whole number from 0 to 60; null clears it."),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: "api.profile.nothingSent" });

const MemberParams = z.object({
  id: z
    .string()
    .regex(/^(\d{1,15}|[A-Za-z0-9_]{3,30})$/, "api.member.id")
    .describe("The member's numeric id, or their username."),
});

const DirectoryQuery = PageQuery.extend(DirectoryFilters.shape);

/** The token's member's settings, as an answer; not found when their row is gone. */
async function ownProfile(actor: Actor): Promise<Result<z.input<typeof OwnProfile>>> {
  const user = memberOf(actor);
  const settings = user ? await getSettings(getDb(), user.id) : null;
  return settings ? ok(ownProfileOf(settings)) : notFound();
}

export const userCalls = [
  call({
    method: "get",
    path: "/users/profile",
    operationId: "getOwnProfile",
    summary: "The token's member: their profile and settings",
    tag: "Users",
    access: "member",
    response: OwnProfile,
    failures: [404],
    handle: ({ actor }) => ownProfile(actor),
  }),
  call({
    method: "put",
    path: "/users/profile",
    operationId: "updateOwnProfile",
    summary: "Edit the token's member's profile",
    description:
      "The fields of Settings › Profile: name, bio, location, skills, languages, portfolio and years of experience. A field left out keeps its value. The picture is POST /users/avatar.",
    tag: "Users",
    access: "member",
    body: ProfileBody,
    response: OwnProfile,
    failures: [404],
    async handle({ actor, body }) {
      const user = memberOf(actor);
      const current = user ? await getSettings(getDb(), user.id) : null;
      if (!current) return notFound();
      const result = await updateProfile(actor, {
        name: body.name ?? current.name,
        bio: body.bio ?? current.bio,
        location: body.location ?? current.location,
        skills: body.skills ?? current.skills,
        languages: body.languages ?? current.languages,
        portfolioUrl: body.portfolioUrl === undefined ? current.portfolioUrl : body.portfolioUrl,
        yearsExperience: body.yearsExperience === undefined ? current.yearsExperience : body.yearsExperience,
      });
      return result.ok ? ownProfile(actor) : result;
    },
  }),
  call({
    method: "post",
    path: "/users/avatar",
    operationId: "uploadAvatar",
    summary: "Replace the token's member's profile picture",
    description:
      "Multipart, the image in the field `file`: JPEG, PNG or WebP, at most 5 MB and 40 megapixels; it is cropped square and re-encoded. " +
      "Counts against the member's upload quota (429 over a rate, 400 over the storage cap). Answers the profile with its new picture.",
    tag: "Users",
    access: "member",
    body: "multipart",
    response: OwnProfile,
    failures: [404],
    async handle({ actor, req, res, locale }) {
      const files = await readFileParts(req, res, {
        locale,
        maxFileBytes: MAX_IMAGE_BYTES,
        maxBodyBytes: 2 * MAX_IMAGE_BYTES + FORM_BODY_LIMIT,
        oversized: (file) => ({ code: "image.too_many_bytes", params: { file, maxMegabytes: MAX_IMAGE_BYTES / (1024 * 1024) } }),
      });
      if (files === ANSWERED) return ANSWERED;
      if (files.length !== 1) {
        return invalid({ [FILE_FIELD]: [files.length ? { code: "upload.too_many_files", params: { max: 1 } } : { code: "image.empty", params: {} }] });
      }
      const user = memberOf(actor);
      const current = user ? await getSettings(getDb(), user.id) : null;
      if (!current) return notFound();
      // The profile's words as they are, with the new picture: the same operation as the settings form.
      const avatar = Buffer.from(await files[0]!.arrayBuffer());
      const profile = {
        name: current.name,
        bio: current.bio,
        location: current.location,
        skills: current.skills,
        languages: current.languages,
        portfolioUrl: current.portfolioUrl,
        yearsExperience: current.yearsExperience,
      };
      const result = besideFile(await updateProfile(actor, { ...profile, avatar }), "avatar");
      return result.ok ? ownProfile(actor) : result;
    },
  }),
  call({
    method: "get",
    path: "/users/freelancers",
    operationId: "listFreelancers",
    summary: "The directory of freelancers",
    description:
      "Active freelancers, filtered by skill, category, location, language, lowest rating, level and vetting, sorted best rated first " +
      "(`sort=rating`, the default), highest level first (`level`, then by rating) or most recently active first (`active`), then by id; " +
      "an empty filter is none. A `nextCursor` pages only through the sort it came with.",
    tag: "Users",
    access: "public",
    query: DirectoryQuery,
    response: pageOf(Freelancer),
    async handle({ query }) {
      const { cursor, ...filters } = query;
      // A cursor pages through the sort it was given for, and no other.
      if (cursor && cursor.sort !== filters.sort) return invalid({ "query.cursor": [{ code: "schema", message: "api.profile.cursor" }] });
      // The same model, filters and sorts as the /freelancers page.
      const page = await listFreelancers(getDb(), { ...filters, after: cursor });
      return ok({
        items: page.items.map((f) => ({ ...publicFactsOf(f), vetted: f.vetted, lastActiveAt: f.lastActiveAt ? iso(f.lastActiveAt) : null })),
        nextCursor: page.next ? encodeDirectoryCursor(page.next) : null,
      });
    },
  }),
  call({
    method: "get",
    path: "/users/{id}",
    operationId: "getMember",
    summary: "A member's public profile",
    description: "By numeric id or username (digits alone are an id). No email, no payout number. Suspended, banned and deleted members are not found.",
    tag: "Users",
    access: "public",
    params: MemberParams,
    response: PublicMember,
    failures: [404],
    async handle({ params }) {
      const db = getDb();
      const profile = /^\d+$/.test(params.id) ? await getPublicProfileById(db, Number(params.id)) : await getPublicProfile(db, params.id.toLowerCase());
      return profile ? ok(publicMemberOf(profile)) : notFound();
    },
  }),
];
