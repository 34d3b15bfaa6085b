/**
 * What makes a buyer trust a seller, as badges (ADR 051): an email verified by its link, a phone verified by an
 * SMS code, and an admin's vetting after checking their portfolio. Read from users' email_verified_at,
 * phone_verified_at and vetted_at; shown on public profiles and gig pages. Zod-free: pages use it in the browser.
 */
export type TrustBadges = { emailVerified: boolean; phoneVerified: boolean; vetted: boolean };

/** The badges of a users row (or of columns selected with a prefix: `seller_email_verified_at`). */
export function trustBadgesOf(row: Record<string, unknown>, prefix = ""): TrustBadges {
  return {
    emailVerified: row[`${prefix}email_verified_at`] != null,
    phoneVerified: row[`${prefix}phone_verified_at`] != null,
    vetted: row[`${prefix}vetted_at`] != null,
  };
}
