/**
 * Every code an operation's failure (or a field issue it raises itself) can carry, with its parameters
 * (ADR 035). A code is stable and dotted (`order.not_allowed_now`, `payout.below_minimum`); its parameters
 * are plain JSON values. This is the contract the doors share: the HTML pages and socket acks turn codes
 * into words with app/content/operation-messages.ts, which must give every code here its words (TypeScript
 * refuses the map otherwise); the JSON API hands the code and parameters on as they are.
 *
 * Types only: nothing here runs, so the words module and the browser may import it.
 */
import type { LimitName } from "~/server/rate-limit.server";

/** What the platform (a worker timer, a script) alone does, or never does; for `access.platform_only` and `access.not_for_platform`. */
export type PlatformTask =
  | "settle_payments"
  | "poll_payments"
  | "settle_payouts"
  | "poll_payouts"
  | "load_reviews"
  | "run_order_timers"
  | "send_message_mail"
  | "send_mail"
  | "carry_out_effects"
  | "keep_house"
  | "make_admins"
  | "make_accounts"
  | "set_payout_numbers"
  | "recompute_levels"
  | "notify_saved_followers";
export type NotForPlatform = "sign_in" | "session" | "ask_reset_link" | "use_reset_link";

/** Which image check refused a file; `file` names it when the form took several. */
type ImageParams = { file?: string };

export type FailureParams = {
  // Who may act at all.
  "access.denied": Record<string, never>;
  "access.sign_in_required": Record<string, never>;
  "access.admins_only": Record<string, never>;
  "access.platform_only": { task: PlatformTask };
  "access.not_for_platform": { task: NotForPlatform };
  "record.not_found": Record<string, never>;

  // Rate limits (ADR 010): which limit, and in how many seconds to try again.
  "limit.exceeded": { limit: Exclude<LimitName, "unavailable">; retryAfter: number };
  "limit.unavailable": { retryAfter: number };

  // Accounts.
  "account.sign_in_required": Record<string, never>;
  "account.already_member": Record<string, never>;
  "account.email_taken": Record<string, never>;
  "account.invalid_sign_in": Record<string, never>;
  "account.suspended": Record<string, never>;
  "account.banned": Record<string, never>;
  "account.wrong_current_password": Record<string, never>;
  "account.reset_link_expired": Record<string, never>;
  "account.own_status": Record<string, never>;

  // Stored files (ADR 031) and images.
  "upload.storage_full": { storedBytes: number; maxBytes: number };
  "upload.no_file": Record<string, never>;
  "upload.too_many_files": { max: number };
  "upload.file_empty": { file: string };
  "upload.file_too_large": { file: string; maxMegabytes: number };
  "upload.file_wrong_type": { file: string };
  "image.empty": ImageParams;
  "image.too_many_bytes": ImageParams & { maxMegabytes: number };
  "image.wrong_type": ImageParams;
  "image.too_many_pixels": ImageParams & { width: number; height: number; maxMegapixels: number };
  "image.unreadable": ImageParams;

  // Selling and gigs.
  "seller.sign_in_required": Record<string, never>;
  "seller.admins_do_not_sell": Record<string, never>;
  "seller.only_sellers": Record<string, never>;
  "gig.not_found": Record<string, never>;
  "gig.gone": Record<string, never>;
  "gig.no_such_package": Record<string, never>;
  "gig.category_unknown": Record<string, never>;
  "gig.image_not_yours": Record<string, never>;
  "gig.not_published": Record<string, never>;
  "gig.not_paused": Record<string, never>;
  "gig.open_orders": Record<string, never>;
  "gig.too_many_images": { max: number };
  // Saved gigs and sellers (ADR 052).
  "saved.own_gig": Record<string, never>;
  "saved.own_profile": Record<string, never>;

  // Orders and disputes (ADR 014).
  "order.not_found": Record<string, never>;
  "order.not_allowed_now": { status: string };
  "order.dispute_open": Record<string, never>;
  "order.no_revisions_left": Record<string, never>;
  "order.already_reviewed": Record<string, never>;
  "order.admins_do_not_buy": Record<string, never>;
  "order.own_gig": Record<string, never>;
  "order.account_cannot_order": Record<string, never>;
  "order.cancel_pending": Record<string, never>;
  "order.no_cancel_request": Record<string, never>;
  "order.no_open_dispute": Record<string, never>;
  /** A file named by an upload key that is not the member's unused upload (unknown, used already, or too old). */
  "order.upload_unknown": Record<string, never>;
  "dispute.admins_only": Record<string, never>;
  /** Another admin (or this one, a moment ago) decided it first; `resolution` is what they decided. */
  "dispute.already_resolved": { resolution: "release" | "refund" | "split" };
  /** A split's refund must leave something to each side: 1 to the price less 1, in whole shillings (ADR 044). */
  "dispute.split_out_of_range": { maxUgx: number };
  "dispute.split_amount_required": Record<string, never>;
  "dispute.reason_required": Record<string, never>;

  // Payments and payouts (ADR 015, 032).
  "payment.unavailable": Record<string, never>;
  "payment.not_found": Record<string, never>;
  "payment.callback_unknown": Record<string, never>;
  /** An unpaid order's `minutes` are over: no new prompt (ADR 043). */
  "payment.window_closed": { minutes: number };
  "payout.not_found": Record<string, never>;
  "payout.sign_in_required": Record<string, never>;
  "payout.account_cannot_withdraw": Record<string, never>;
  "payout.no_number": Record<string, never>;
  /** The payout number (masked) was never proven by a texted code (ADR 055). */
  "payout.number_unverified": { number: string };
  /** `until` is an ISO time; `timeZone` the member's, as they read times. */
  "payout.number_held": { number: string; until: string; timeZone: string };
  "payout.unavailable": Record<string, never>;
  "payout.above_available": { maxUgx: number };
  "payout.below_minimum": { minUgx: number };

  // Reviews.
  "review.sign_in_required": Record<string, never>;
  "review.own_gig": Record<string, never>;
  "review.order_not_completed": Record<string, never>;
  "review.account_inactive": Record<string, never>;
  "review.order_required": Record<string, never>;
  "review.not_found": Record<string, never>;
  /** Its author may change or delete a review only within `days` of posting it. */
  "review.edit_window_closed": { days: number };
  /** Reviews with replies and hiding (ADR 053). */
  "review.hidden": Record<string, never>;
  "review.reply_not_seller": Record<string, never>;
  "review.already_replied": Record<string, never>;
  "review.already_hidden": Record<string, never>;
  "review.not_hidden": Record<string, never>;

  // Members, as an admin acts on them (ADR 017). `batch`: one of several members, so nothing was changed.
  "member.not_found": Record<string, never>;
  "member.unknown": { ids: number[] };
  "member.deleted": { name: string };
  "member.not_active": { name: string };
  "member.already_banned": { name: string };
  "member.already_active": { name: string };
  "member.open_orders": Record<string, never>;
  "member.money_held": Record<string, never>;
  "admin.own_account": { batch?: boolean };
  "admin.no_longer_active": { batch?: boolean };
  "admin.last_admin": { batch?: boolean };
  "admin.nothing_selected": Record<string, never>;

  // Categories (ADR 026).
  "category.not_found": Record<string, never>;
  "category.name_taken": Record<string, never>;
  "category.name_needs_letters": Record<string, never>;
  "category.has_gigs": Record<string, never>;

  // Messages (ADR 016).
  "message.sign_in_required": Record<string, never>;
  "message.to_yourself": Record<string, never>;
  "message.empty": Record<string, never>;
  "message.recipient_unavailable": Record<string, never>;
  "message.file_unavailable": Record<string, never>;
  "message.file_type": { file: string };
  "conversation.not_found": Record<string, never>;
  "notification.not_found": Record<string, never>;

  // The analytics pipeline's failed events (ADR 036).
  "pipeline.admins_only": Record<string, never>;
  "pipeline.nothing_failed": Record<string, never>;

  // The JSON API's door (ADR 041): what is wrong with a request before any operation sees it.
  "request.malformed_json": Record<string, never>;
  /** What the call takes: JSON, JSON in UTF-8, or a multipart form with the file in the field `file`. */
  "request.unsupported_type": { expected: "json" | "json_utf8" | "multipart" };
  "request.too_large": { maxBytes: number };
  "request.invalid": Record<string, never>;
  "request.unknown_call": Record<string, never>;
  "request.method_not_allowed": { allow: string };
  "request.server_error": Record<string, never>;
  "token.missing": Record<string, never>;
  "token.invalid": Record<string, never>;
  "token.reused": Record<string, never>;
  "token.admins_only": Record<string, never>;
  "idempotency.in_progress": Record<string, never>;
  "idempotency.key_reused": Record<string, never>;
  "idempotency.bad_key": Record<string, never>;

  // Verified emails and vetted sellers (ADR 051).
  /** A verification link that is unknown or used, out of time, or mailed to an address the member has since changed. */
  "verify.link_dead": { why: "used" | "expired" | "stale" };
  "verify.already_verified": Record<string, never>;
  /** A freelancer publishes only once their email is verified; drafts are allowed. */
  "verify.required_to_publish": Record<string, never>;
  "vetted.only_freelancers": { name: string };
  "vetted.already": { name: string };
  "vetted.not_vetted": { name: string };
};

export type FailureCode = keyof FailureParams;

/** A code with its parameters, as a failure or a field issue carries them. */
export type Coded<C extends FailureCode = FailureCode> = { [K in C]: { code: K; params: FailureParams[K] } }[C];

/**
 * One problem beside a form field: a code of ours, or a message of the form's zod schema (the form layer's
 * own words, which Conform also shows in the browser before anything is sent), kept as it is.
 */
export type FieldIssue = Coded | { code: "schema"; message: string };

/** Issues by field name ("" or "form" for the form as a whole), as Conform shows them beside fields. */
export type Issues = Record<string, FieldIssue[]>;
