/**
 * The help centre's questions and answers, and the search over them. Plain data and a pure function, so
 * the server filters the list (the page works without JavaScript) and the tests need no database.
 * The fee, escrow, payout and support-hours facts are those of docs/product.md. The words are the `legal`
 * namespace's (app/locales/<language>/legal.json): the list holds their keys, and the search reads them in the
 * reader's language.
 */

/** `question` and `answer` are message keys of the `legal` namespace (app/locales/<language>/legal.json). */
export type FaqItem = { id: string; question: string; answer: string };
/** `title` is a message key of the `legal` namespace. */
export type FaqGroup = { id: string; title: string; items: FaqItem[] };

/** Says a message in the reader's language: `t` from useT() in a component, requestT(request) on the server. */
export type Translate = (key: string, values?: Record<string, string | number>) => string;

export const SUPPORT_EMAIL = "support@soko.ug";
export const SUPPORT_PHONE = "+256 700 123 456";
export const SUPPORT_PHONE_HREF = "tel:+256700123456";
/**
 * Support's working hours, as the key of their words ("Monday to Friday, 9 AM to 6 PM East Africa Time (EAT)"):
 * `t(SUPPORT_HOURS_KEY)` on a page that has the `legal` namespace. The footer says them in `common.footer.support`.
 */
export const SUPPORT_HOURS_KEY = "legal.support.hours";

/** Longest query we search for; anything longer is cut, never rejected. */
export const FAQ_QUERY_MAX_LENGTH = 200;

export const faqGroups: FaqGroup[] = [
  {
    id: "getting-started",
    title: "legal.faq.group.gettingStarted",
    items: [
      { id: "what-is-soko", question: "legal.faq.whatIsSoko.question", answer: "legal.faq.whatIsSoko.answer" },
      { id: "create-account", question: "legal.faq.createAccount.question", answer: "legal.faq.createAccount.answer" },
      { id: "cost-to-join", question: "legal.faq.costToJoin.question", answer: "legal.faq.costToJoin.answer" },
      { id: "find-service", question: "legal.faq.findService.question", answer: "legal.faq.findService.answer" },
    ],
  },
  {
    id: "clients-payments",
    title: "legal.faq.group.clientsPayments",
    items: [
      { id: "how-pay", question: "legal.faq.howPay.question", answer: "legal.faq.howPay.answer" },
      { id: "buyer-fee", question: "legal.faq.buyerFee.question", answer: "legal.faq.buyerFee.answer" },
      { id: "escrow-safe", question: "legal.faq.escrowSafe.question", answer: "legal.faq.escrowSafe.answer" },
      { id: "currency", question: "legal.faq.currency.question", answer: "legal.faq.currency.answer" },
      { id: "talk-first", question: "legal.faq.talkFirst.question", answer: "legal.faq.talkFirst.answer" },
    ],
  },
  {
    id: "freelancers",
    title: "legal.faq.group.freelancers",
    items: [
      { id: "become-seller", question: "legal.faq.becomeSeller.question", answer: "legal.faq.becomeSeller.answer" },
      { id: "service-fee", question: "legal.faq.serviceFee.question", answer: "legal.faq.serviceFee.answer" },
      { id: "when-paid", question: "legal.faq.whenPaid.question", answer: "legal.faq.whenPaid.answer" },
      { id: "ratings", question: "legal.faq.ratings.question", answer: "legal.faq.ratings.answer" },
    ],
  },
  {
    id: "orders-disputes",
    title: "legal.faq.group.ordersDisputes",
    items: [
      { id: "track-order", question: "legal.faq.trackOrder.question", answer: "legal.faq.trackOrder.answer" },
      { id: "cancel-order", question: "legal.faq.cancelOrder.question", answer: "legal.faq.cancelOrder.answer" },
      { id: "dispute", question: "legal.faq.dispute.question", answer: "legal.faq.dispute.answer" },
      // Says the hours, the address and the number: `faqText` fills them in.
      { id: "support-hours", question: "legal.faq.supportHours.question", answer: "legal.faq.supportHours.answer" },
    ],
  },
];

/** An item's question and answer in the reader's language, with the support facts an answer names filled in. */
export function faqText(item: FaqItem, t: Translate): { question: string; answer: string } {
  return { question: t(item.question), answer: t(item.answer, { hours: t(SUPPORT_HOURS_KEY), email: SUPPORT_EMAIL, phone: SUPPORT_PHONE }) };
}

/** The query as it will be searched: control characters made spaces, trimmed, at most 200 characters. */
export function normalizeFaqQuery(raw: unknown): string {
  if (typeof raw !== "string") return "";
  return raw
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .trim()
    .slice(0, FAQ_QUERY_MAX_LENGTH)
    .trim();
}

export type FaqSearchResult = {
  /** The normalized query ("" when there was none). */
  query: string;
  /** Groups with only their matching items; groups without matches are left out. */
  groups: FaqGroup[];
  matchCount: number;
};

/**
 * Case-insensitive search over questions and answers, in the reader's language (`t`). Every word of the query
 * must appear somewhere in the question or the answer ("escrow fee" finds an answer that mentions both). An
 * empty query returns every group.
 */
export function searchFaq(rawQuery: unknown, t: Translate, groups: FaqGroup[] = faqGroups): FaqSearchResult {
  const query = normalizeFaqQuery(rawQuery);
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const matched = groups
    .map((group) => ({
      ...group,
      items: group.items.filter((item) => {
        if (words.length === 0) return true;
        const { question, answer } = faqText(item, t);
        const text = `${question}\n${answer}`.toLowerCase();
        return words.every((word) => text.includes(word));
      }),
    }))
    .filter((group) => group.items.length > 0);
  const matchCount = matched.reduce((sum, group) => sum + group.items.length, 0);
  return { query, groups: matched, matchCount };
}
