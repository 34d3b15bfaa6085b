/**
 * The words for every code an operation's failure can carry (ADR 035), in one place: the HTML pages, the
 * socket acks, the JSON API and the worker's logs all say a failure through `messageOf` / `failureMessage`,
 * in the reader's language (ADR 047: the `ops` catalogue, app/locales/<language>/ops.json; English unless a
 * language is given). Each code of app/operations/failure-codes.ts must have its words here, or the map does
 * not compile. Where a form's schema already has the sentence (app/content/refusal-words.ts), it is reused,
 * so the browser's check and the server's say the same; those, and a schema's issues, may be keys
 * ("account.reset.linkExpired", app/i18n/message-key.ts), said here through the whole catalogue.
 *
 * Server-side only in effect: the routes and the API call it from actions, loaders and handlers.
 */
import type { I18n } from "@lingui/core";
import type { Coded, FailureCode, FailureParams, FieldIssue, Issues, NotForPlatform, PlatformTask } from "~/operations/failure-codes";
import type { Limited, LimitName } from "~/server/rate-limit.server";
import type { OrderEvent } from "~/models/order.server";
import { DISPUTE_REASON_REQUIRED, NAME_NEEDS_LETTERS, NAME_TAKEN, NOTHING_SELECTED, RESET_LINK_EXPIRED, SPLIT_AMOUNT_REQUIRED } from "~/content/refusal-words";
import { EMPTY_MESSAGE } from "~/domain/message-rules";
import { serverI18n } from "~/i18n/catalog.server";
import { formatNumber } from "~/i18n/format";
import { DEFAULT_LOCALE, type Locale } from "~/i18n/locales";
import { sayMessage } from "~/i18n/message-key";
import { formatDateTime, type TimeZoneChoice } from "~/utils/dates";

type Say = I18n["_"];

/** The server's words in a language, as a function (`_` needs its catalogue as `this`). */
export function sayIn(locale: Locale = DEFAULT_LOCALE): Say {
  const i18n = serverI18n(locale);
  return i18n._.bind(i18n);
}

const ONLY_THE_PLATFORM: Record<PlatformTask, string> = {
  settle_payments: "ops.platform.settlePayments",
  poll_payments: "ops.platform.pollPayments",
  settle_payouts: "ops.platform.settlePayouts",
  poll_payouts: "ops.platform.pollPayouts",
  load_reviews: "ops.platform.loadReviews",
  run_order_timers: "ops.platform.runOrderTimers",
  send_message_mail: "ops.platform.sendMessageMail",
  send_mail: "ops.platform.sendMail",
  carry_out_effects: "ops.platform.carryOutEffects",
  keep_house: "ops.platform.keepHouse",
  make_admins: "ops.platform.makeAdmins",
  make_accounts: "ops.platform.makeAccounts",
  set_payout_numbers: "ops.platform.setPayoutNumbers",
  recompute_levels: "ops.levels.platformOnly",
  notify_saved_followers: "ops.saved.notifyFollowers",
};

const NOT_THE_PLATFORM: Record<NotForPlatform, string> = {
  sign_in: "ops.notPlatform.signIn",
  session: "ops.notPlatform.session",
  ask_reset_link: "ops.notPlatform.askResetLink",
  use_reset_link: "ops.notPlatform.useResetLink",
};

const DISPUTE_DECIDED = {
  release: "ops.dispute.alreadyReleased",
  refund: "ops.dispute.alreadyRefunded",
  split: "ops.dispute.alreadySplit",
} as const;

/** An order's status as a refusal names it, in the middle of a sentence ("This order is delivered, so …"). */
const ORDER_STATUS: Record<string, string> = {
  pending_payment: "ops.order.status.pendingPayment",
  in_progress: "ops.order.status.inProgress",
  delivered: "ops.order.status.delivered",
  completed: "ops.order.status.completed",
  cancelled: "ops.order.status.cancelled",
};

/**
 * What each rate limit tells the member it stops (ADR 010), as keys of the `ops` catalogue: the same keys as
 * LIMITS' own messages in app/server/rate-limit.server.ts, which doors that are not operations (the catalog,
 * tracking, payment callbacks) answer with; tests/unit/operation-messages.test.ts keeps the two equal.
 */
export const LIMIT_MESSAGES: Record<Exclude<LimitName, "unavailable">, string> = {
  signIn: "ops.limit.signIn",
  signInDevice: "ops.limit.signInDevice",
  signInAddress: "ops.limit.signInAddress",
  signInEmail: "ops.limit.signInEmail",
  join: "ops.limit.join",
  currentPassword: "ops.limit.currentPassword",
  reset: "ops.limit.reset",
  uploadFilesMinute: "ops.limit.uploadMinute",
  uploadBytesMinute: "ops.limit.uploadMinute",
  uploadFilesHour: "ops.limit.uploadHour",
  uploadBytesHour: "ops.limit.uploadHour",
  uploadFilesDay: "ops.limit.uploadDay",
  uploadBytesDay: "ops.limit.uploadDay",
  catalog: "ops.limit.catalog",
  checkout: "ops.limit.checkout",
  payAgain: "ops.limit.payAgain",
  callback: "ops.limit.callback",
  message: "ops.limit.message",
  conversation: "ops.limit.conversation",
  gigCreate: "ops.limit.gigCreate",
  saved: "ops.saved.limit",
  apiToken: "ops.limit.apiToken",
  apiAddress: "ops.limit.apiAddress",
  analytics: "ops.limit.analytics",
  phoneCode: "ops.limit.phoneCode",
  phoneCodeNumber: "ops.limit.phoneCode",
  verifyEmail: "ops.verify.resendLimit",
};

/** The sign-in limits end with when to try again (ADR 030): "… Please try again in 2 minutes." */
const SAYS_WHEN = new Set<LimitName>(["signIn", "signInDevice", "signInAddress", "signInEmail"]);

function afterWait(_: Say, message: string, seconds: number): string {
  if (seconds < 60) return _("ops.limit.retryInSeconds", { message, count: seconds });
  return _("ops.limit.retryInMinutes", { message, count: Math.ceil(seconds / 60) });
}

const MB = 1024 * 1024;
/** Sizes are written without grouping ("1000 MB", "1024 KB"), as they always were. */
const PLAIN = { useGrouping: false } as const;

/** "350 MB", "1 GB", "1.2 GB" (the units are the same in every language; the number is the reader's). */
function amount(bytes: number, locale: Locale): string {
  if (bytes < 1000 * MB) return `${formatNumber(Math.ceil(bytes / MB), locale, PLAIN)} MB`;
  return `${formatNumber(Number((bytes / (1024 * MB)).toFixed(1)), locale, { ...PLAIN, maximumFractionDigits: 1 })} GB`;
}

/** An image's problem, after the file's name when the form took several. */
const image = (_: Say, params: { file?: string }, words: string) => (params.file === undefined ? words : _("ops.image.ofFile", { file: params.file, words }));

/** An admin's refusal about one of several members ends by saying that none of them changed. */
const batch = (_: Say, params: { batch?: boolean }, words: string) => (params.batch ? _("ops.admin.nothingChanged", { words }) : words);

/** A sum of shillings as the refusals write it after "UGX": "5,000" (grouped as the reader's language groups). */
const ugx = (n: number, locale: Locale) => formatNumber(n, locale);

/** The body a call takes, as a 415 says it. */
const EXPECTED_BODY: Record<FailureParams["request.unsupported_type"]["expected"], string> = {
  json: "ops.request.sendJson",
  json_utf8: "ops.request.sendJsonUtf8",
  multipart: "ops.request.sendMultipart",
};

type Words<C extends FailureCode> = (params: FailureParams[C], _: Say, locale: Locale) => string;

/** Why a verification link does not verify (ADR 051). */
const DEAD_LINK: Record<FailureParams["verify.link_dead"]["why"], string> = {
  used: "ops.verify.linkUsed",
  expired: "ops.verify.linkExpired",
  stale: "ops.verify.linkStale",
};

export const OPERATION_MESSAGES: { [C in FailureCode]: Words<C> } = {
  "access.denied": (_p, _) => _("ops.access.denied"),
  "access.sign_in_required": (_p, _) => _("ops.access.signInRequired"),
  "access.admins_only": (_p, _) => _("ops.access.adminsOnly"),
  "access.platform_only": ({ task }, _) => _(ONLY_THE_PLATFORM[task]),
  "access.not_for_platform": ({ task }, _) => _(NOT_THE_PLATFORM[task]),
  "record.not_found": (_p, _) => _("ops.record.notFound"),

  "limit.exceeded": ({ limit, retryAfter }, _) => (SAYS_WHEN.has(limit) ? afterWait(_, _(LIMIT_MESSAGES[limit]), retryAfter) : _(LIMIT_MESSAGES[limit])),
  "limit.unavailable": (_p, _) => _("ops.limit.unavailable"),

  "account.sign_in_required": (_p, _) => _("ops.account.signInRequired"),
  "account.already_member": (_p, _) => _("ops.account.alreadyMember"),
  "account.email_taken": (_p, _) => _("ops.account.emailTaken"),
  "account.invalid_sign_in": (_p, _) => _("ops.account.invalidSignIn"),
  "account.suspended": (_p, _) => _("ops.account.suspended"),
  "account.banned": (_p, _) => _("ops.account.banned"),
  "account.wrong_current_password": (_p, _) => _("ops.account.wrongCurrentPassword"),
  "account.reset_link_expired": (_p, _) => sayMessage(_, RESET_LINK_EXPIRED),
  "account.own_status": (_p, _) => _("ops.account.ownStatus"),

  "upload.storage_full": ({ storedBytes, maxBytes }, _, locale) =>
    _("ops.upload.storageFull", { max: amount(maxBytes, locale), stored: amount(storedBytes, locale) }),
  "upload.no_file": (_p, _) => _("ops.upload.noFile"),
  "upload.too_many_files": ({ max }, _) => _("ops.upload.tooManyFiles", { max }),
  "upload.file_empty": ({ file }, _) => _("ops.upload.fileEmpty", { file }),
  "upload.file_too_large": ({ file, maxMegabytes }, _) => _("ops.upload.fileTooLarge", { file, max: maxMegabytes }),
  "upload.file_wrong_type": ({ file }, _) => _("ops.upload.fileWrongType", { file }),
  "image.empty": (p, _) => image(_, p, _("ops.image.empty")),
  "image.too_many_bytes": (p, _) => image(_, p, _("ops.image.tooManyBytes", { max: p.maxMegabytes })),
  "image.wrong_type": (p, _) => image(_, p, _("ops.image.wrongType")),
  "image.too_many_pixels": (p, _) => image(_, p, _("ops.image.tooManyPixels", { width: p.width, height: p.height, max: p.maxMegapixels })),
  "image.unreadable": (p, _) => image(_, p, _("ops.image.unreadable")),

  "seller.sign_in_required": (_p, _) => _("ops.seller.signInRequired"),
  "seller.admins_do_not_sell": (_p, _) => _("ops.seller.adminsDoNotSell"),
  "seller.only_sellers": (_p, _) => _("ops.seller.onlySellers"),
  "gig.not_found": (_p, _) => _("ops.gig.notFound"),
  "gig.gone": (_p, _) => _("ops.gig.gone"),
  "gig.no_such_package": (_p, _) => _("ops.gig.noSuchPackage"),
  "gig.category_unknown": (_p, _) => _("ops.gig.categoryUnknown"),
  "gig.image_not_yours": (_p, _) => _("ops.gig.imageNotYours"),
  "gig.not_published": (_p, _) => _("ops.gig.notPublished"),
  "gig.not_paused": (_p, _) => _("ops.gig.notPaused"),
  "gig.open_orders": (_p, _) => _("ops.gig.openOrders"),
  "gig.too_many_images": ({ max }, _) => _("ops.gig.tooManyImages", { max }),
  "saved.own_gig": (_p, _) => _("ops.saved.ownGig"),
  "saved.own_profile": (_p, _) => _("ops.saved.ownProfile"),

  "order.not_found": (_p, _) => _("ops.order.notFound"),
  "order.not_allowed_now": ({ status }, _) =>
    _("ops.order.notAllowedNow", { status: ORDER_STATUS[status] ? _(ORDER_STATUS[status]) : _("ops.order.status.unknown") }),
  "order.dispute_open": (_p, _) => _("ops.order.disputeOpen"),
  "order.no_revisions_left": (_p, _) => _("ops.order.noRevisionsLeft"),
  "order.already_reviewed": (_p, _) => _("ops.order.alreadyReviewed"),
  "order.admins_do_not_buy": (_p, _) => _("ops.order.adminsDoNotBuy"),
  "order.own_gig": (_p, _) => _("ops.order.ownGig"),
  "order.account_cannot_order": (_p, _) => _("ops.order.accountCannotOrder"),
  "order.cancel_pending": (_p, _) => _("ops.order.cancelPending"),
  "order.no_cancel_request": (_p, _) => _("ops.order.noCancelRequest"),
  "order.no_open_dispute": (_p, _) => _("ops.order.noOpenDispute"),
  "order.upload_unknown": (_p, _) => _("ops.order.uploadUnknown"),
  "dispute.admins_only": (_p, _) => _("ops.dispute.adminsOnly"),
  "dispute.already_resolved": ({ resolution }, _) => _("ops.dispute.alreadyResolved", { decided: _(DISPUTE_DECIDED[resolution]) }),
  "dispute.split_out_of_range": ({ maxUgx }, _, locale) => _("ops.dispute.splitOutOfRange", { max: ugx(maxUgx, locale) }),
  "dispute.split_amount_required": (_p, _) => sayMessage(_, SPLIT_AMOUNT_REQUIRED),
  "dispute.reason_required": (_p, _) => sayMessage(_, DISPUTE_REASON_REQUIRED),

  "payment.unavailable": (_p, _) => _("ops.payment.unavailable"),
  "payment.not_found": (_p, _) => _("ops.payment.notFound"),
  "payment.callback_unknown": (_p, _) => _("ops.payment.callbackUnknown"),
  "payment.window_closed": ({ minutes }, _) => _("ops.payment.windowClosed", { minutes }),
  "payout.not_found": (_p, _) => _("ops.payout.notFound"),
  "payout.sign_in_required": (_p, _) => _("ops.payout.signInRequired"),
  "payout.account_cannot_withdraw": (_p, _) => _("ops.payout.accountCannotWithdraw"),
  "payout.no_number": (_p, _) => _("ops.payout.noNumber"),
  "payout.number_unverified": ({ number }, _) => _("ops.payout.numberUnverified", { number }),
  "payout.number_held": ({ number, until, timeZone }, _, locale) =>
    _("ops.payout.numberHeld", { number, until: formatDateTime(until, timeZone as TimeZoneChoice, locale) }),
  "payout.unavailable": (_p, _) => _("ops.payout.unavailable"),
  "payout.above_available": ({ maxUgx }, _, locale) => _("ops.payout.aboveAvailable", { max: ugx(maxUgx, locale) }),
  "payout.below_minimum": ({ minUgx }, _, locale) => _("ops.payout.belowMinimum", { min: ugx(minUgx, locale) }),

  "review.sign_in_required": (_p, _) => _("ops.review.signInRequired"),
  "review.own_gig": (_p, _) => _("ops.review.ownGig"),
  "review.order_not_completed": (_p, _) => _("ops.review.orderNotCompleted"),
  "review.account_inactive": (_p, _) => _("ops.review.accountInactive"),
  "review.order_required": (_p, _) => _("ops.review.orderRequired"),
  "review.not_found": (_p, _) => _("ops.review.notFound"),
  "review.edit_window_closed": ({ days }, _) => _("ops.review.editWindowClosed", { days }),
  "review.hidden": (_p, _) => _("ops.reviewReplies.hidden"),
  "review.reply_not_seller": (_p, _) => _("ops.reviewReplies.notSeller"),
  "review.already_replied": (_p, _) => _("ops.reviewReplies.alreadyReplied"),
  "review.already_hidden": (_p, _) => _("ops.reviewReplies.alreadyHidden"),
  "review.not_hidden": (_p, _) => _("ops.reviewReplies.notHidden"),

  "member.not_found": (_p, _) => _("ops.member.notFound"),
  "member.unknown": ({ ids }, _) => _("ops.member.unknown", { ids: ids.map((id) => `#${id}`).join(", ") }),
  "member.deleted": ({ name }, _) => _("ops.member.deleted", { name }),
  "member.not_active": ({ name }, _) => _("ops.member.notActive", { name }),
  "member.already_banned": ({ name }, _) => _("ops.member.alreadyBanned", { name }),
  "member.already_active": ({ name }, _) => _("ops.member.alreadyActive", { name }),
  "member.open_orders": (_p, _) => _("ops.member.openOrders"),
  "member.money_held": (_p, _) => _("ops.member.moneyHeld"),
  "admin.own_account": (p, _) => batch(_, p, _("ops.admin.ownAccount")),
  "admin.no_longer_active": (p, _) => batch(_, p, _("ops.admin.noLongerActive")),
  "admin.last_admin": (p, _) => batch(_, p, _("ops.admin.lastAdmin")),
  "admin.nothing_selected": (_p, _) => sayMessage(_, NOTHING_SELECTED),

  "category.not_found": (_p, _) => _("ops.category.notFound"),
  "category.name_taken": (_p, _) => sayMessage(_, NAME_TAKEN),
  "category.name_needs_letters": (_p, _) => sayMessage(_, NAME_NEEDS_LETTERS),
  "category.has_gigs": (_p, _) => _("ops.category.hasGigs"),

  "message.sign_in_required": (_p, _) => _("ops.message.signInRequired"),
  "message.to_yourself": (_p, _) => _("ops.message.toYourself"),
  "message.empty": (_p, _) => sayMessage(_, EMPTY_MESSAGE),
  "message.recipient_unavailable": (_p, _) => _("ops.message.recipientUnavailable"),
  "message.file_unavailable": (_p, _) => _("ops.message.fileUnavailable"),
  "message.file_type": (p, _) => _("ops.message.fileType", { file: p.file }),
  "conversation.not_found": (_p, _) => _("ops.conversation.notFound"),
  "notification.not_found": (_p, _) => _("ops.notification.notFound"),

  "pipeline.admins_only": (_p, _) => _("ops.pipeline.adminsOnly"),
  "pipeline.nothing_failed": (_p, _) => _("ops.pipeline.nothingFailed"),

  "request.malformed_json": (_p, _) => _("ops.request.malformedJson"),
  "request.unsupported_type": ({ expected }, _) => _(EXPECTED_BODY[expected]),
  "request.too_large": ({ maxBytes }, _, locale) => _("ops.request.tooLarge", { max: formatNumber(Math.round(maxBytes / 1024), locale, PLAIN) }),
  "request.invalid": (_p, _) => _("ops.request.invalid"),
  "request.unknown_call": (_p, _) => _("ops.request.unknownCall"),
  "request.method_not_allowed": ({ allow }, _) => _("ops.request.methodNotAllowed", { allow }),
  "request.server_error": (_p, _) => _("ops.request.serverError"),
  "token.missing": (_p, _) => _("ops.token.missing"),
  "token.invalid": (_p, _) => _("ops.token.invalid"),
  "token.reused": (_p, _) => _("ops.token.reused"),
  "token.admins_only": (_p, _) => _("ops.token.adminsOnly"),
  "idempotency.in_progress": (_p, _) => _("ops.idempotency.inProgress"),
  "idempotency.key_reused": (_p, _) => _("ops.idempotency.keyReused"),
  "idempotency.bad_key": (_p, _) => _("ops.idempotency.badKey"),
  "verify.link_dead": ({ why }, _) => _(DEAD_LINK[why]),
  "verify.already_verified": (_p, _) => _("ops.verify.alreadyVerified"),
  "verify.required_to_publish": (_p, _) => _("ops.verify.requiredToPublish"),
  "vetted.only_freelancers": ({ name }, _) => _("ops.vetted.onlyFreelancers", { name }),
  "vetted.already": ({ name }, _) => _("ops.vetted.already", { name }),
  "vetted.not_vetted": ({ name }, _) => _("ops.vetted.notVetted", { name }),
};

/** A code and its parameters in words, in the reader's language (English unless given). */
export function messageOf(coded: Coded, locale: Locale = DEFAULT_LOCALE): string {
  const _ = sayIn(locale);
  return sayMessage(_, (OPERATION_MESSAGES[coded.code] as (params: unknown, _: Say, locale: Locale) => string)(coded.params, _, locale));
}

/** One field issue in words: a code's, or the schema's own message (a key, said in the language; or words as they are). */
export function issueMessage(issue: FieldIssue, locale: Locale = DEFAULT_LOCALE): string {
  return issue.code === "schema" ? sayMessage(sayIn(locale), issue.message) : messageOf(issue, locale);
}

/** Field issues in words, by field, as Conform shows them. */
export function issueMessages(issues: Issues, locale: Locale = DEFAULT_LOCALE): Record<string, string[]> {
  return Object.fromEntries(Object.entries(issues).map(([field, list]) => [field, list.map((issue) => issueMessage(issue, locale))]));
}

/**
 * A failure in words, for a door that shows one sentence (a socket ack, an error page, a log line): its
 * message, or for field issues the first one (the form's own, else the first field's).
 */
export function failureMessage(failure: Coded | { error: "invalid"; issues: Issues }, locale: Locale = DEFAULT_LOCALE): string {
  if ("issues" in failure) {
    const first = failure.issues.form?.[0] ?? Object.values(failure.issues).find((list) => list.length)?.[0];
    return first ? issueMessage(first, locale) : "";
  }
  return messageOf(failure, locale);
}

/**
 * A rate limit's refusal (app/server/rate-limit.server.ts) in the reader's language, for a door that is not an
 * operation (the catalog page, the tracking endpoints): a named limit's words (with when to try again, for
 * sign-in's), "unavailable" for a 503; an unnamed one keeps the English it carries.
 */
export function limitedMessage(limited: Limited, locale: Locale = DEFAULT_LOCALE): string {
  if (limited.status === 503 || limited.limit === "unavailable")
    return messageOf({ code: "limit.unavailable", params: { retryAfter: limited.retryAfter } }, locale);
  if (!limited.limit) return limited.message;
  return messageOf({ code: "limit.exceeded", params: { limit: limited.limit, retryAfter: limited.retryAfter } }, locale);
}

/** Words kept as a key of the catalogue and its values (ADR 047), stored beside their English and said when read. */
export type Said = {
  key: string;
  values?: Record<string, string | number>;
  /** the English to store instead of the key's (a provider's own diagnosis) */ english?: string;
};

/** Stored words in the reader's language: the key's when the row has one, else the text as stored (older rows, a member's own words). */
export function sayStored(text: string, said: Said | null | undefined, locale: Locale = DEFAULT_LOCALE): string {
  return said ? sayIn(locale)(said.key, said.values) : text;
}

/** Words to store: the English text (for anything reading the table directly) with the key and values to say them by. */
export function storedWords(reason: string | Said | null | undefined): { text: string; key: string | null; values: string | null } {
  if (reason === null || reason === undefined || typeof reason === "string") return { text: reason ?? "", key: null, values: null };
  return { text: reason.english ?? sayIn(DEFAULT_LOCALE)(reason.key, reason.values), key: reason.key, values: JSON.stringify(reason.values ?? {}) };
}

/** An order's timeline with every reason in the reader's language (Soko's by their keys; a member's words as they are). */
export function eventsIn(events: OrderEvent[], locale: Locale): OrderEvent[] {
  return events.map((e) => (e.reasonSaid ? { ...e, reason: sayStored(e.reason, e.reasonSaid, locale), reasonSaid: null } : e));
}
