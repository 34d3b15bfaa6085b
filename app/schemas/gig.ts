/**
 * The gig form's rules, which the server decides by (the editor sends the form as it stands and shows the
 * server's messages: app/components/gig-form.tsx), with, re-exported, the catalog's URL vocabulary and the
 * form's limits: those live without zod, for the browser.
 */
import { z } from "~/schemas/zod";
import { msg } from "~/i18n/message-key";
import { isUnnamedPackage, TIER_LABEL, TIERS, type Tier } from "~/domain/catalog-vocabulary";
import {
  DELIVERY_DAYS,
  DESCRIPTION_MAX,
  MAX_FEATURES,
  MAX_IMAGES,
  MAX_TAGS,
  normaliseTags,
  PRICE_MAX_UGX,
  TAG_MAX,
  TITLE_MAX,
  type TierValues,
  type GigFormValues,
} from "~/domain/gig-rules";

// The words the gig form shares with the light pages (tiers, the catalog's URL), and its limits, live without zod.
export * from "~/domain/catalog-vocabulary";
export * from "~/domain/gig-rules";

const optionalText = (max: number, message: string) => z.string().trim().max(max, message).optional();

// The messages are catalogue keys of the `dashboard` namespace (the gig form's page, ADR 047): ErrorList says
// them in the reader's language. A tier is named by a `select` in the message ("basic", "standard", "premium").

/** A package as typed: every field a string (or absent), checked and converted by `checkTier`. */
const TierInput = z
  .object({
    name: optionalText(60, msg("dashboard.gigForm.packageNameTooLong", { max: 60 })),
    description: optionalText(600, msg("dashboard.gigForm.packageDescriptionTooLong", { max: 600 })),
    price: z.string().trim().max(30, "dashboard.gigForm.priceWhole").optional(),
    delivery: z.string().trim().max(10).optional(),
    revisions: z.string().trim().max(10).optional(),
    features: z
      .string()
      .max(2000, msg("dashboard.gigForm.featuresTooMany", { max: MAX_FEATURES }))
      .optional(),
  })
  .default({});

export type PackageInput = {
  tier: Tier;
  name: string;
  description: string;
  priceUgx: number;
  deliveryDays: number;
  revisions: number;
  features: string[];
};

type Issue = { path: string[]; message: string };

/** Checks one package as typed; returns it converted (null when a optional tier is left empty) and what is wrong. */
function checkTier(tier: Tier, input: z.infer<typeof TierInput>, required: boolean): { pkg: PackageInput | null; issues: Issue[] } {
  const issues: Issue[] = [];
  const offered = Object.values(input).some((v) => typeof v === "string" && v.trim() !== "");
  if (!offered && !required) return { pkg: null, issues };
  const label = TIER_LABEL[tier];
  const issue = (field: string, message: string) => issues.push({ path: [tier, field], message });

  let priceUgx = Number.NaN;
  const price = (input.price ?? "").replace(/[\s,]/g, "").replace(/^UGX/i, "");
  if (price === "") issue("price", msg("dashboard.gigForm.priceRequired", { tier }));
  else if (!/^-?\d+(\.\d+)?$/.test(price)) issue("price", "dashboard.gigForm.priceWhole");
  else if (!/^-?\d+$/.test(price)) issue("price", "dashboard.gigForm.priceNoCents");
  else {
    priceUgx = Number(price);
    if (priceUgx <= 0) issue("price", "dashboard.gigForm.pricePositive");
    else if (priceUgx > PRICE_MAX_UGX) issue("price", msg("dashboard.gigForm.priceTooHigh", { max: PRICE_MAX_UGX }));
  }

  const options: readonly number[] = DELIVERY_DAYS[tier];
  const deliveryDays = Number(input.delivery);
  if (!input.delivery) issue("delivery", msg("dashboard.gigForm.deliveryRequired", { tier }));
  else if (!options.includes(deliveryDays)) issue("delivery", msg("dashboard.gigForm.deliveryChoice", { options: options.join(", "), tier }));

  const revisions = input.revisions ? Number(input.revisions) : 1;
  if (!Number.isInteger(revisions) || revisions < 0 || revisions > 20) issue("revisions", msg("dashboard.gigForm.revisionsRange", { min: 0, max: 20 }));

  const features = normaliseTags((input.features ?? "").split("\n"));
  if (features.length > MAX_FEATURES) issue("features", msg("dashboard.gigForm.featuresTooManyLines", { max: MAX_FEATURES }));
  if (features.some((f) => f.length > 100)) issue("features", msg("dashboard.gigForm.featureTooLong", { max: 100 }));

  return { pkg: { tier, name: input.name || label, description: input.description ?? "", priceUgx, deliveryDays, revisions, features }, issues };
}

export const GIG_INTENTS = ["draft", "publish"] as const;
export type GigIntent = (typeof GIG_INTENTS)[number];

/**
 * The gig form. Save as Draft needs a title and a category; Publish Gig also needs a description and the
 * Basic package (price and delivery). Any package that is filled in at all is checked in full either way.
 */
export function gigFormSchema(intent: GigIntent) {
  const publishing = intent === "publish";
  return (
    z
      .object({
        title: z
          .string({ required_error: "dashboard.gigForm.titleRequired" })
          .trim()
          .min(1, "dashboard.gigForm.titleRequired")
          .max(TITLE_MAX, msg("dashboard.gigForm.titleTooLong", { max: TITLE_MAX })),
        category: z.string({ required_error: "dashboard.gigForm.categoryRequired" }).trim().max(60),
        description: z
          .string()
          .trim()
          .max(DESCRIPTION_MAX, msg("dashboard.gigForm.descriptionTooLong", { max: DESCRIPTION_MAX }))
          .optional(),
        tags: z
          .array(z.string().max(200))
          .max(100)
          .default([])
          .transform(normaliseTags)
          .pipe(
            z
              .array(z.string().max(TAG_MAX, msg("dashboard.gigForm.tagTooLong", { max: TAG_MAX })))
              .max(MAX_TAGS, msg("dashboard.gigForm.tooManyTags", { max: MAX_TAGS })),
          ),
        images: z
          .array(z.string().regex(/^[0-9a-f-]{36}$/))
          .max(MAX_IMAGES, msg("dashboard.gigForm.tooManyImages", { max: MAX_IMAGES }))
          .default([]),
        basic: TierInput,
        standard: TierInput,
        premium: TierInput,
      })
      // One refinement for everything that depends on the intent, so every message shows on the first try.
      .superRefine((v, ctx) => {
        if (publishing && !v.description) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, path: ["description"], message: "dashboard.gigForm.descriptionRequired" });
        }
        for (const tier of TIERS) {
          for (const { path, message } of checkTier(tier, v[tier], tier === "basic" && publishing).issues) {
            ctx.addIssue({ code: z.ZodIssueCode.custom, path, message });
          }
        }
      })
      .transform((v) => {
        const packages = TIERS.map((tier) => checkTier(tier, v[tier], tier === "basic" && publishing).pkg).filter((p): p is PackageInput => p !== null);
        return {
          title: v.title,
          categorySlug: v.category,
          description: v.description ?? "",
          tags: v.tags,
          images: [...new Set(v.images)],
          packages,
        };
      })
  );
}
export type GigFormValue = z.output<ReturnType<typeof gigFormSchema>>;

const EMPTY_TIER: TierValues = { name: "", description: "", price: "", delivery: "", revisions: "", features: "" };

/** A new gig's form. */
export function emptyGigForm(): GigFormValues {
  return { title: "", category: "", description: "", tags: [], images: [], basic: { ...EMPTY_TIER }, standard: { ...EMPTY_TIER }, premium: { ...EMPTY_TIER } };
}

/** A stored gig as the form shows it. */
export function gigFormOf(gig: {
  title: string;
  category: string;
  description: string;
  tags: string[];
  images: string[];
  packages: {
    tier: "basic" | "standard" | "premium";
    name: string;
    description: string;
    priceUgx: number;
    deliveryDays: number;
    revisions: number;
    features: string[];
  }[];
}): GigFormValues {
  const values = emptyGigForm();
  values.title = gig.title;
  values.category = gig.category;
  values.description = gig.description;
  values.tags = gig.tags;
  values.images = gig.images;
  for (const p of gig.packages) {
    values[p.tier] = {
      // A package left unnamed shows an empty field (its placeholder is the tier, in the reader's language), not the English stored.
      name: isUnnamedPackage(p.tier, p.name) ? "" : p.name,
      description: p.description,
      price: String(p.priceUgx),
      delivery: String(p.deliveryDays),
      revisions: String(p.revisions),
      features: p.features.join("\n"),
    };
  }
  return values;
}
