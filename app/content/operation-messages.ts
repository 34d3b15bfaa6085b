/**
 * The words for every code an operation's failure can carry (ADR 035), in one place: the HTML pages, the
 * socket acks and the worker's logs all say a failure through `failureMessage`, and a translation would
 * replace this module. Each code of app/operations/failure-codes.ts must have its words here, or the map
 * does not compile. Where a form's schema already has the sentence (app/schemas), it is reused, so the
 * browser's check and the server's say the same.
 */
import { statusLabel } from "~/domain/order-rules";
import type { Coded, FailureCode, FailureParams, FieldIssue, Issues, NotForPlatform, PlatformTask } from "~/operations/failure-codes";
import type { LimitName } from "~/server/rate-limit.server";
import { DISPUTE_REASON_REQUIRED, NAME_NEEDS_LETTERS, NAME_TAKEN, NOTHING_SELECTED, RESET_LINK_EXPIRED, SPLIT_AMOUNT_REQUIRED } from "~/content/refusal-words";
import { EMPTY_MESSAGE } from "~/domain/message-rules";
import { formatDateTime, type TimeZoneChoice } from "~/utils/dates";

const ONLY_THE_PLATFORM: Record<PlatformTask, string> = {
  settle_payments: "Only the platform settles payments.",
  poll_payments: "Only the platform polls payments.",
  settle_payouts: "Only the platform settles payouts.",
  poll_payouts: "Only the platform polls payouts.",
  load_reviews: "Only the platform loads reviews in bulk.",
  run_order_timers: "Only the platform runs order timers.",
  send_message_mail: "Only the platform sends message mail.",
  send_mail: "Only the platform sends mail.",
  carry_out_effects: "Only the platform carries out effects.",
  keep_house: "Only the platform keeps house.",
  make_admins: "Only the platform makes administrators.",
  make_accounts: "Only the platform makes accounts this way.",
  set_payout_numbers: "Only the platform sets a member's payout number this way.",
};

const DISPUTE_DECIDED = { release: "released to the seller", refund: "refunded to the buyer", split: "split between them" } as const;

const NOT_THE_PLATFORM: Record<NotForPlatform, string> = {
  sign_in: "The platform does not sign in.",
  session: "The platform has no session.",
  ask_reset_link: "The platform does not ask for reset links.",
  use_reset_link: "The platform does not use reset links.",
};

/**
 * What each rate limit tells the member it stops (ADR 010). The same words as LIMITS' own messages in
 * app/server/rate-limit.server.ts, which doors that are not operations (the catalog, tracking, payment
 * callbacks) answer with; tests/unit/operation-messages.test.ts keeps the two equal.
 */
export const LIMIT_MESSAGES: Record<Exclude<LimitName, "unavailable">, string> = {
  signIn: "Too many sign-in attempts for this account from your network.",
  signInDevice: "Too many sign-in attempts for this account from this browser.",
  signInAddress: "Too many sign-in attempts from your network.",
  signInEmail: "Too many sign-in attempts for this account from new browsers. A browser you have signed in with before can still sign in.",
  join: "Too many accounts were created from your network. Please try again later.",
  currentPassword: "Too many wrong passwords. Please try again in an hour, or reset your password.",
  reset: "Too many reset requests. Please wait before asking again.",
  uploadFilesMinute: "You have uploaded many files in the last minute (at most 20 files or 25 MB a minute). Please wait a minute and try again.",
  uploadBytesMinute: "You have uploaded many files in the last minute (at most 20 files or 25 MB a minute). Please wait a minute and try again.",
  uploadFilesHour: "You have uploaded many files in the last hour (at most 100 files or 200 MB an hour). Please try again later.",
  uploadBytesHour: "You have uploaded many files in the last hour (at most 100 files or 200 MB an hour). Please try again later.",
  uploadFilesDay: "You have uploaded many files today (at most 300 files or 500 MB a day). Please try again tomorrow.",
  uploadBytesDay: "You have uploaded many files today (at most 300 files or 500 MB a day). Please try again tomorrow.",
  catalog: "Too many searches from your network in a short time. Please wait a moment and try again.",
  checkout: "You have started many orders in a short time. Please try again later.",
  payAgain: "You have asked for this payment many times. Please wait a few minutes and try again.",
  callback: "Too many callbacks from this address.",
  message: "You are sending messages very fast. Please wait a moment and try again.",
  conversation: "You have contacted many members in a short time. Please try again later.",
  gigCreate: "You have created many gigs in a short time. Please try again later.",
  apiToken: "Too many API calls with this token. Please slow down.",
  apiAddress: "Too many API calls from your network. Please slow down.",
  analytics: "Too many tracking requests from your network. Please slow down.",
};

/** The sign-in limits end with when to try again (ADR 030): "… Please try again in 2 minutes." */
const SAYS_WHEN = new Set<LimitName>(["signIn", "signInDevice", "signInAddress", "signInEmail"]);

function wait(seconds: number): string {
  if (seconds < 60) return `${seconds} ${seconds === 1 ? "second" : "seconds"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minutes === 1 ? "minute" : "minutes"}`;
}

const MB = 1024 * 1024;

/** "350 MB", "1 GB", "1.2 GB". */
function amount(bytes: number): string {
  if (bytes < 1000 * MB) return `${Math.ceil(bytes / MB)} MB`;
  return `${(bytes / (1024 * MB)).toFixed(1).replace(/\.0$/, "")} GB`;
}

/** An image's problem, after the file's name when the form took several. */
const image = (params: { file?: string }, words: string) => (params.file === undefined ? words : `${params.file}: ${words}`);

/** An admin's refusal about one of several members ends by saying that none of them changed. */
const batch = (params: { batch?: boolean }, words: string) => (params.batch ? `${words} Nothing was changed.` : words);

const NO_SUCH_GIG = "We could not find that gig.";
const NO_SUCH_ORDER = "We could not find that order.";
const NO_SUCH_MEMBER = "We could not find that member.";
const NO_SUCH_PAYMENT = "We could not find that payment.";
const ALREADY_REVIEWED = "You have already reviewed this order.";
const ADMINS_DO_NOT_SELL = "Admins do not sell on Soko";

export const OPERATION_MESSAGES: { [C in FailureCode]: (params: FailureParams[C]) => string } = {
  "access.denied": () => "You are not allowed to do that.",
  "access.sign_in_required": () => "Sign in to do that.",
  "access.admins_only": () => "You don't have administrator privileges.",
  "access.platform_only": ({ task }) => ONLY_THE_PLATFORM[task],
  "access.not_for_platform": ({ task }) => NOT_THE_PLATFORM[task],
  "record.not_found": () => "We could not find that.",

  "limit.exceeded": ({ limit, retryAfter }) =>
    SAYS_WHEN.has(limit) ? `${LIMIT_MESSAGES[limit]} Please try again in ${wait(retryAfter)}.` : LIMIT_MESSAGES[limit],
  "limit.unavailable": () => "This is unavailable for a moment. Please try again in a few seconds.",

  "account.sign_in_required": () => "Sign in to change your account.",
  "account.already_member": () => "You already have an account.",
  "account.email_taken": () => "An account with this email already exists. Sign in instead, or use another email.",
  "account.invalid_sign_in": () => "Incorrect email or password.",
  "account.suspended": () => "Your account is suspended. Contact support@soko.ug to find out why and how to restore it.",
  "account.banned": () => "Your account has been banned for breaking Soko's terms. Contact support@soko.ug if you think this is a mistake.",
  "account.wrong_current_password": () => "Your current password is not right",
  "account.reset_link_expired": () => RESET_LINK_EXPIRED,
  "account.own_status": () => "You cannot change the status of your own account.",

  "upload.storage_full": ({ storedBytes, maxBytes }) =>
    `These files would take you past the ${amount(maxBytes)} of files one member may keep on Soko (yours take ${amount(storedBytes)} now).`,
  "upload.no_file": () => "Choose a file to upload",
  "upload.too_many_files": ({ max }) => `Attach at most ${max} files`,
  "upload.file_empty": ({ file }) => `${file} is empty`,
  "upload.file_too_large": ({ file, maxMegabytes }) => `${file} is over ${maxMegabytes} MB`,
  "upload.file_wrong_type": ({ file }) =>
    `${file} is not a file we accept: attach PDF, images (JPEG, PNG, WebP, GIF), ZIP, Word or Excel documents, or plain text`,
  "image.empty": (p) => image(p, "Choose an image to upload"),
  "image.too_many_bytes": (p) => image(p, `Images can be at most ${p.maxMegabytes} MB`),
  "image.wrong_type": (p) => image(p, "Upload a JPEG, PNG or WebP image"),
  "image.too_many_pixels": (p) => image(p, `This image is ${p.width} x ${p.height} pixels: images can be at most ${p.maxMegapixels} megapixels`),
  "image.unreadable": (p) => image(p, "This image could not be read. Upload a JPEG, PNG or WebP image"),

  "seller.sign_in_required": () => "Sign in as a seller to do that.",
  "seller.admins_do_not_sell": () => ADMINS_DO_NOT_SELL,
  "seller.only_sellers": () => "Only sellers can create gigs",
  "gig.not_found": () => NO_SUCH_GIG,
  "gig.gone": () => "This gig does not exist",
  "gig.no_such_package": () => "That gig has no such package.",
  "gig.category_unknown": () => "Choose a category from the list",
  "gig.image_not_yours": () => "One of the images is not yours to use",
  "gig.not_published": () => "Only a published gig can be paused.",
  "gig.not_paused": () => "Only a paused gig can be published again this way.",
  "gig.open_orders": () => "This gig has orders in progress. Pause it instead, and delete it once they are finished.",
  "gig.too_many_images": ({ max }) => `A gig can have at most ${max} images`,

  "order.not_found": () => NO_SUCH_ORDER,
  "order.not_allowed_now": ({ status }) =>
    `This order is ${statusLabel(status).toLowerCase()}, so that cannot be done now. Reload the page to see where it stands.`,
  "order.dispute_open": () => "This order is in dispute: an admin will decide it, and both of you will be told.",
  "order.no_revisions_left": () => "This order has no revisions left. Approve the delivery or open a dispute.",
  "order.already_reviewed": () => ALREADY_REVIEWED,
  "order.admins_do_not_buy": () => "Admins do not buy on Soko.",
  "order.own_gig": () => "You cannot order your own gig.",
  "order.account_cannot_order": () => "Your account cannot place orders.",
  "order.cancel_pending": () => "You have asked to cancel; the other party has not answered yet.",
  "order.no_cancel_request": () => "There is no cancel request on this order.",
  "order.no_open_dispute": () => "This order has no open dispute.",
  "order.upload_unknown": () => "One of the files is not an upload of yours that can still be used. Upload it again.",
  "dispute.admins_only": () => "Only an admin resolves disputes.",
  "dispute.already_resolved": ({ resolution }) =>
    `This dispute has already been resolved (${DISPUTE_DECIDED[resolution]}). Reload the page to see the open disputes.`,
  "dispute.split_out_of_range": ({ maxUgx }) =>
    `Enter a refund between UGX 1 and UGX ${maxUgx.toLocaleString("en-US")}, so that each side gets part of the price.`,
  "dispute.split_amount_required": () => SPLIT_AMOUNT_REQUIRED,
  "dispute.reason_required": () => DISPUTE_REASON_REQUIRED,

  "payment.unavailable": () => "Payments are not available right now. Please try again later.",
  "payment.not_found": () => NO_SUCH_PAYMENT,
  "payment.callback_unknown": () => "This callback names no payment of ours.",
  "payment.window_closed": ({ minutes }) => `This order waited ${minutes} minutes for its payment, so no new prompt can be sent. Please place the order again.`,
  "payout.not_found": () => "We could not find that payout.",
  "payout.sign_in_required": () => "Sign in to withdraw.",
  "payout.account_cannot_withdraw": () => "Your account cannot withdraw.",
  "payout.no_number": () => "Add your mobile-money number in Settings → Billing first.",
  "payout.number_held": ({ number, until, timeZone }) =>
    `Withdrawals to ${number} open on ${formatDateTime(until, timeZone as TimeZoneChoice)}: a new payout number waits 24 hours, to keep your earnings safe. Your money stays available until then.`,
  "payout.unavailable": () => "Payouts are not available right now. Please try again later.",
  "payout.above_available": ({ maxUgx }) => `You can withdraw at most UGX ${maxUgx.toLocaleString("en-US")}.`,
  "payout.below_minimum": ({ minUgx }) => `The smallest withdrawal is UGX ${minUgx.toLocaleString("en-US")}.`,

  "review.sign_in_required": () => "Sign in to leave a review.",
  "review.own_gig": () => "You cannot review your own gig.",
  "review.order_not_completed": () => "You can review an order once it is completed.",
  "review.account_inactive": () => "Your account cannot leave reviews.",
  "review.order_required": () => "Choose the order you are reviewing",
  "review.not_found": () => "We could not find that review.",
  "review.edit_window_closed": ({ days }) => `A review can be changed or deleted only within ${days} days of posting it.`,

  "member.not_found": () => NO_SUCH_MEMBER,
  "member.unknown": ({ ids }) => `No such members: ${ids.map((id) => `#${id}`).join(", ")}. Nothing was changed.`,
  "member.deleted": ({ name }) => `${name} has been deleted.`,
  "member.not_active": ({ name }) => `${name} is not active, so cannot be suspended.`,
  "member.already_banned": ({ name }) => `${name} is already banned.`,
  "member.already_active": ({ name }) => `${name} is already active.`,
  "member.open_orders": () => "This member has orders under way. Resolve or cancel them before deleting the account.",
  "member.money_held": () => "This member has money on Soko (earnings, a payout on its way or a refund due). Settle it before deleting the account.",
  "admin.own_account": (p) => batch(p, "You cannot suspend, ban or delete your own account."),
  "admin.no_longer_active": (p) => batch(p, "Your account is no longer an active admin."),
  "admin.last_admin": (p) => batch(p, "That is the last active admin: the platform must keep one."),
  "admin.nothing_selected": () => NOTHING_SELECTED,

  "category.not_found": () => "We could not find that category.",
  "category.name_taken": () => NAME_TAKEN,
  "category.name_needs_letters": () => NAME_NEEDS_LETTERS,
  "category.has_gigs": () => "This category has gigs, so it cannot be deleted. Hide it instead: its gigs keep it.",

  "message.sign_in_required": () => "User not authenticated",
  "message.to_yourself": () => "You cannot send messages to yourself.",
  "message.empty": () => EMPTY_MESSAGE,
  "message.recipient_unavailable": () => "This member cannot receive messages any more.",
  "message.file_unavailable": () => "A file is not one of your uploads, was used already, or waited too long: upload it again.",
  "message.file_type": (p) => `${p.file} is not a file we accept here: attach images (JPEG, PNG, WebP, GIF) or PDFs`,
  "conversation.not_found": () => "We could not find that conversation.",
  "notification.not_found": () => "We could not find that notification.",

  "pipeline.admins_only": () => "Only an administrator can replay the pipeline's failed events.",
  "pipeline.nothing_failed": () => "No failed events to replay.",

  "request.malformed_json": () => "The request's body is not valid JSON.",
  "request.unsupported_type": ({ expected }) => `Send the body as ${expected}.`,
  "request.too_large": ({ maxBytes }) => `The request's body is larger than ${Math.round(maxBytes / 1024)} KB.`,
  "request.invalid": () => "Some of what was sent is not right: see the issues beside each field.",
  "request.unknown_call": () => "There is no such API call. The calls are listed at /api/v1/openapi.json.",
  "request.method_not_allowed": ({ allow }) => `This call does not take that method. It takes ${allow}.`,
  "request.server_error": () => "Something went wrong on our side. Please try again.",
  "token.missing": () => "Sign in first: send your token as Authorization: Bearer <token>.",
  "token.invalid": () => "Your token is not valid or has expired. Please sign in again.",
  "token.reused": () => "This token was already replaced, so it may have been copied. Every token of that sign-in has been ended: please sign in again.",
  "token.admins_only": () => "Only an administrator's token may make this call.",
  "idempotency.in_progress": () => "A request with this Idempotency-Key is still being answered. Try again in a moment.",
  "idempotency.key_reused": () => "This Idempotency-Key was used for a different request. Use a new key for a new request.",
  "idempotency.bad_key": () => "An Idempotency-Key has 8 to 100 letters, digits, dashes or underscores.",
};

/** A code and its parameters in words. */
export function messageOf(coded: Coded): string {
  return (OPERATION_MESSAGES[coded.code] as (params: unknown) => string)(coded.params);
}

/** One field issue in words: a code's, or the schema's own message. */
export function issueMessage(issue: FieldIssue): string {
  return issue.code === "schema" ? issue.message : messageOf(issue);
}

/** Field issues in words, by field, as Conform shows them. */
export function issueMessages(issues: Issues): Record<string, string[]> {
  return Object.fromEntries(Object.entries(issues).map(([field, list]) => [field, list.map(issueMessage)]));
}

/**
 * A failure in words, for a door that shows one sentence (a socket ack, an error page, a log line): its
 * message, or for field issues the first one (the form's own, else the first field's).
 */
export function failureMessage(failure: Coded | { error: "invalid"; issues: Issues }): string {
  if ("issues" in failure) {
    const first = failure.issues.form?.[0] ?? Object.values(failure.issues).find((list) => list.length)?.[0];
    return first ? issueMessage(first) : "";
  }
  return messageOf(failure);
}
