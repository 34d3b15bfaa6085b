/**
 * The gig form's limits and its tag rules, without zod: the gig editor (app/components/gig-form.tsx) uses them in
 * the browser (the title counter, tags added with Enter), and the schema (app/schemas/gig.ts, which re-exports
 * all of this) stays on the server.
 */
import type { Tier } from "~/domain/catalog-vocabulary";
import { msg } from "~/i18n/message-key";

/** Delivery options per tier (docs/product.md, Catalog). */
export const DELIVERY_DAYS = {
  basic: [1, 3, 7, 14],
  standard: [3, 7, 14, 21],
  premium: [7, 14, 21, 30],
} as const satisfies Record<Tier, readonly number[]>;

export const TITLE_MAX = 80;
export const DESCRIPTION_MAX = 5000;
export const MAX_TAGS = 10;
export const TAG_MAX = 30;
export const MAX_IMAGES = 5;
export const PRICE_MAX_UGX = 100_000_000;
export const MAX_FEATURES = 10;

/** Trims tags, drops empty ones and repeats (ignoring letter case); keeps the first spelling. */
export function normaliseTags(tags: readonly unknown[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags) {
    if (typeof raw !== "string") continue;
    const tag = raw.trim().replace(/\s+/g, " ");
    if (!tag || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    out.push(tag);
  }
  return out;
}

/**
 * The tag a seller typed, added to the tags they have: the tag to insert, null when there is nothing to add
 * (an empty tag, or one they have in another letter case), or why it is refused. The browser (in place) and
 * the server (the form's Add tag button without JavaScript) decide alike. The reason is a catalogue key of the
 * `dashboard` namespace (ADR 047), which the form's ErrorList says in the reader's language.
 */
export function tagToAdd(tags: readonly string[], typed: string): { tag: string | null } | { error: string } {
  const [tag] = normaliseTags([typed]);
  if (tag === undefined) return { tag: null };
  if (tag.length > TAG_MAX) return { error: msg("dashboard.gigForm.tagTooLong", { max: TAG_MAX }) };
  const current = normaliseTags(tags);
  if (current.some((t) => t.toLowerCase() === tag.toLowerCase())) return { tag: null };
  if (current.length >= MAX_TAGS) return { error: msg("dashboard.gigForm.tooManyTags", { max: MAX_TAGS }) };
  return { tag };
}

/** The gig form's fields as the editor shows them (Conform's names: `basic.price`, `tags[0]`). */
export type TierValues = { name: string; description: string; price: string; delivery: string; revisions: string; features: string };
export type GigFormValues = { title: string; category: string; description: string; tags: string[]; images: string[] } & Record<Tier, TierValues>;
