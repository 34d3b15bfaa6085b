/**
 * The kinds of activity an account's log holds (app/models/activity.server.ts writes and reads them), and the
 * catalogue keys that say each one: to the member on their dashboard ("You published a gig"), and to an admin
 * about the member ("published a gig"). Zod-free: both screens use it in the browser.
 */
export const ACTIVITY_KINDS = [
  "joined",
  "signed_in",
  "profile_updated",
  "notifications_updated",
  "billing_updated",
  "preferences_updated",
  "password_changed",
  "password_reset",
  "signed_out_elsewhere",
  "status_active",
  "status_suspended",
  "status_banned",
  "gig_published",
  "gig_saved",
  "gig_paused",
  "gig_resumed",
  "gig_deleted",
  "became_seller",
  "review_left",
  "review_edited",
  "review_deleted",
  "order_placed",
  "payment_requested",
  "level_changed",
  "review_replied",
  "email_verified",
  "email_changed",
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

export const isActivityKind = (kind: string): kind is ActivityKind => (ACTIVITY_KINDS as readonly string[]).includes(kind);

/** What the member reads of their own activity (namespace `dashboard`). */
export const MEMBER_ACTIVITY_KEY: Record<ActivityKind, string> = {
  joined: "dashboard.activity.joined",
  signed_in: "dashboard.activity.signedIn",
  profile_updated: "dashboard.activity.profileUpdated",
  notifications_updated: "dashboard.activity.notificationsUpdated",
  billing_updated: "dashboard.activity.billingUpdated",
  preferences_updated: "dashboard.activity.preferencesUpdated",
  password_changed: "dashboard.activity.passwordChanged",
  password_reset: "dashboard.activity.passwordReset",
  signed_out_elsewhere: "dashboard.activity.signedOutElsewhere",
  status_active: "dashboard.activity.statusActive",
  status_suspended: "dashboard.activity.statusSuspended",
  status_banned: "dashboard.activity.statusBanned",
  gig_published: "dashboard.activity.gigPublished",
  gig_saved: "dashboard.activity.gigSaved",
  gig_paused: "dashboard.activity.gigPaused",
  gig_resumed: "dashboard.activity.gigResumed",
  gig_deleted: "dashboard.activity.gigDeleted",
  became_seller: "dashboard.activity.becameSeller",
  review_left: "dashboard.activity.reviewLeft",
  review_edited: "dashboard.activity.reviewEdited",
  review_deleted: "dashboard.activity.reviewDeleted",
  order_placed: "dashboard.activity.orderPlaced",
  payment_requested: "dashboard.activity.paymentRequested",
  level_changed: "dashboard.levels.activityChanged",
  review_replied: "dashboard.reviewReplies.activityReplied",
  email_verified: "dashboard.verify.activityVerified",
  email_changed: "dashboard.verify.activityChanged",
};

/** What an admin reads about the member, after their name (namespace `admin`). */
export const ADMIN_ACTIVITY_KEY: Record<ActivityKind, string> = {
  joined: "admin.activity.joined",
  signed_in: "admin.activity.signedIn",
  profile_updated: "admin.activity.profileUpdated",
  notifications_updated: "admin.activity.notificationsUpdated",
  billing_updated: "admin.activity.billingUpdated",
  preferences_updated: "admin.activity.preferencesUpdated",
  password_changed: "admin.activity.passwordChanged",
  password_reset: "admin.activity.passwordReset",
  signed_out_elsewhere: "admin.activity.signedOutElsewhere",
  status_active: "admin.activity.statusActive",
  status_suspended: "admin.activity.statusSuspended",
  status_banned: "admin.activity.statusBanned",
  gig_published: "admin.activity.gigPublished",
  gig_saved: "admin.activity.gigSaved",
  gig_paused: "admin.activity.gigPaused",
  gig_resumed: "admin.activity.gigResumed",
  gig_deleted: "admin.activity.gigDeleted",
  became_seller: "admin.activity.becameSeller",
  review_left: "admin.activity.reviewLeft",
  review_edited: "admin.activity.reviewEdited",
  review_deleted: "admin.activity.reviewDeleted",
  order_placed: "admin.activity.orderPlaced",
  payment_requested: "admin.activity.paymentRequested",
  level_changed: "admin.levels.activityChanged",
  review_replied: "admin.reviews.activityReplied",
  email_verified: "admin.verify.activityVerified",
  email_changed: "admin.verify.activityChanged",
};

type Say = (key: string, values?: Record<string, string | number>) => string;

/** A stored kind in words, with the kind itself inside `unknownKey`'s sentence when this code does not know it (an older row). */
export const sayActivity = (t: Say, keys: Record<ActivityKind, string>, kind: string, unknownKey: string): string =>
  isActivityKind(kind) ? t(keys[kind]) : t(unknownKey, { kind });
