/**
 * Off-platform payment talk (docs/product.md, Messages): before an order exists between two members, a message carrying
 * a phone number, a mobile-money request or a WhatsApp or Telegram handle warns its sender that payments
 * outside Soko are not protected, and flags the conversation for an admin. Shared with the browser, which
 * shows the same warning the server sends back.
 *
 * It errs towards warning: a false positive costs the sender one sentence of text; a miss can cost a buyer
 * their money. Prices ("UGX 150,000"), dates and order numbers are not phone numbers.
 */
/**
 * The warning, as the key of its words in the `chat` catalogue (ADR 047): the thread says it under the sender's
 * message, the socket's answer and the API's in the sender's language.
 */
export const OFF_PLATFORM_WARNING = "chat.message.offPlatform";

export type OffPlatformReason = "phone_number" | "mobile_money" | "chat_handle";

/**
 * Ugandan and international phone numbers, written with spaces, dots or dashes: 0772 123456, +256 772-123-456;
 * a bracketed group, (0772) 123456 or +256 (0) 772…, is read without its brackets.
 */
const PHONE = /(?:\+|\b00)?\d(?:[\s.-]?\d){8,13}\b/;
const BRACKETED = /\(\s*(\d{1,4})\s*\)\s*/g;
/** Words people use to ask for mobile money (English and Luganda-English usage). */
const MOBILE_MONEY =
  /\b(?:mo[\s-]?mo|mobile[\s-]*money|m[\s-]?money|airtel\s*money|mtn\s*money|send\s+(?:it\s+|the\s+money\s+|money\s+)?(?:to|on)\s+(?:my\s+)?(?:number|line)|my\s+(?:momo|mm)\s+(?:number|no))\b/i;
/**
 * WhatsApp and Telegram: names ("What's app" too), links and short forms ("wa: 0772…", "tg: @name", "on WA").
 * The short forms end in punctuation, so they are not followed by `\b` as the words are.
 */
const CHAT_HANDLE = /\b(?:what'?s\s?app|watsapp|wa\.me|telegram|t\.me|signal\s+me|(?:on|via)\s+(?:wa|tg))\b|\b(?:wa|tg)\s*:\s*[@+\w]/i;
/**
 * Money amounts (up to the amount's last group of three, so a number written after it is still seen), order
 * numbers, thousands and dates with their times are digits that are not numbers to call.
 */
const NOT_A_PHONE =
  /(?:\b(?:ugx|usd|shs?|ush)|\$)\s*\d+(?:[,. ]\d{3})*(?:\.\d+)?\b|\bORD-[\d-]+\b|\b\d{1,3}(?:,\d{3})+\b|\b\d{4}-\d{1,2}-\d{1,2}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b/gi;

/** What in a message looks like taking payment off Soko, or null. */
export function offPlatformReason(text: string): OffPlatformReason | null {
  if (CHAT_HANDLE.test(text)) return "chat_handle";
  if (MOBILE_MONEY.test(text)) return "mobile_money";
  if (PHONE.test(text.replace(NOT_A_PHONE, " ").replace(BRACKETED, "$1 "))) return "phone_number";
  return null;
}
