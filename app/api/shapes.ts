/**
 * Shapes the JSON API's calls share (ADR 041): the member a token names, a cursor page, money and times.
 * Money is integer UGX with the USD figure at the current rate beside it; times are ISO 8601 strings in UTC.
 */
import { z } from "zod";
import { msg } from "~/i18n/message-key";

export const Platform = z.enum(["android", "ios", "api"]).describe("Where the token is used: a phone app, or any other program.");

/** The signed-in member, as auth calls answer it. */
export const SessionMember = z.object({
  id: z.number().int(),
  name: z.string(),
  username: z.string(),
  email: z.string(),
  role: z.enum(["client", "freelancer", "admin"]),
});

/** A token and when it ends. */
export const TokenAnswer = z.object({
  user: SessionMember,
  token: z.string().describe("Send as `Authorization: Bearer <token>`. Keep it secret."),
  expiresAt: z.string().datetime(),
});

/** `limit` (1–100, 20 by default) and `cursor` (a page's `nextCursor`), for every list. */
export const PageQuery = z.object({
  limit: z.coerce
    .number({ invalid_type_error: msg("api.field.numberFrom", { field: "limit", min: 1, max: 100 }) })
    .int()
    .min(1)
    .max(100)
    .default(20),
  cursor: z.string().max(500).optional(),
});

/** A page of a list: its items and the cursor of the next page (null on the last). */
export const pageOf = <T extends z.ZodTypeAny>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });

export const Money = z.object({
  ugx: z.number().int().describe("Whole Uganda shillings."),
  usd: z.number().nullable().describe("The same in US dollars at the current rate, to the cent; null when no rate is set."),
});

/** A numeric id in a path (`/gigs/{id}`). */
export const IdParams = z.object({
  id: z.coerce
    .number({ invalid_type_error: msg("api.field.number", { field: "id" }) })
    .int()
    .positive()
    .max(2 ** 53),
});

export const Iso = z.string().datetime();
export const iso = (d: Date | string) => new Date(d).toISOString();

/** An amount in UGX with its USD figure at `ugxPerUsd` (to the cent), or null USD without a rate. */
export const moneyOf = (ugx: number, ugxPerUsd: number | null | undefined) => ({
  ugx: Math.round(ugx),
  usd: ugxPerUsd ? Math.round((ugx / ugxPerUsd) * 100) / 100 : null,
});
