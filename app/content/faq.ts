/**
 * The help centre's questions and answers, and the search over them. Plain data and a pure function, so
 * the server filters the list (the page works without JavaScript) and the tests need no database.
 * The fee, escrow, payout and support-hours facts are those of docs/product.md.
 */

export type FaqItem = { id: string; question: string; answer: string };
export type FaqGroup = { id: string; title: string; items: FaqItem[] };

export const SUPPORT_EMAIL = "support@soko.ug";
export const SUPPORT_PHONE = "+256 700 123 456";
export const SUPPORT_PHONE_HREF = "tel:+256700123456";
export const SUPPORT_HOURS = "Monday to Friday, 9 AM to 6 PM East Africa Time (EAT)";

/** Longest query we search for; anything longer is cut, never rejected. */
export const FAQ_QUERY_MAX_LENGTH = 200;

export const faqGroups: FaqGroup[] = [
  {
    id: "getting-started",
    title: "Getting started",
    items: [
      {
        id: "what-is-soko",
        question: "What is Soko?",
        answer:
          "Soko is a marketplace where businesses in Uganda hire local freelancers for fixed-price services called gigs, such as logo design, websites, translation or photography. Prices are shown in UGX.",
      },
      {
        id: "create-account",
        question: "How do I create an account?",
        answer:
          "Choose Join at the top of any page, enter your name, email and a password, and pick whether you want to hire (client) or work (freelancer). You can start browsing services straight away.",
      },
      {
        id: "cost-to-join",
        question: "Does it cost anything to join?",
        answer: "No. Creating an account, browsing gigs and messaging freelancers is free. Fees apply only when an order is paid for.",
      },
      {
        id: "find-service",
        question: "How do I find the right freelancer?",
        answer:
          "Search from the home page or browse by category. Every gig shows the seller, a star rating with the number of reviews, and a starting price, so you can compare before you contact anyone.",
      },
    ],
  },
  {
    id: "clients-payments",
    title: "For clients: payments and fees",
    items: [
      {
        id: "how-pay",
        question: "How does payment work?",
        answer:
          "You pay the fixed price when you place an order. The payment is held in escrow: the freelancer is not paid until you approve the delivered work.",
      },
      {
        id: "buyer-fee",
        question: "What fees do buyers pay?",
        answer: "Buyers pay a small processing fee of 5% of the order price, with a minimum of UGX 1,000. It is shown before you confirm an order.",
      },
      {
        id: "escrow-safe",
        question: "Is my money safe?",
        answer:
          "Yes. Payments are held in escrow until the work is approved. If the work is not delivered, or does not match what was agreed, you can open a dispute and our support team will review it.",
      },
      {
        id: "currency",
        question: "Which currency are prices in?",
        answer: "Prices are in Uganda shillings (UGX). An approximate amount in US dollars (USD) is shown alongside.",
      },
      {
        id: "talk-first",
        question: "Can I talk to a freelancer before ordering?",
        answer: "Yes. Use Contact Seller on any gig to discuss your project, agree the details and ask questions before you pay.",
      },
    ],
  },
  {
    id: "freelancers",
    title: "For freelancers",
    items: [
      {
        id: "become-seller",
        question: "How do I start selling on Soko?",
        answer:
          "Register as a freelancer, complete your profile with your skills and portfolio, then create a gig with a clear title, description and up to three packages (Basic, Standard and Premium).",
      },
      {
        id: "service-fee",
        question: "What is the freelancer service fee?",
        answer: "Soko keeps a service fee of 20% of each completed order. You receive the remaining 80%.",
      },
      {
        id: "when-paid",
        question: "When do I get paid?",
        answer:
          "When the client approves your delivery, the order is completed. The payment then clears, and your payout is available about 14 days after completion.",
      },
      {
        id: "ratings",
        question: "How do ratings and reviews work?",
        answer:
          "After delivery the client can leave a star rating and a review. Your average rating and number of reviews appear on your gigs and your public profile.",
      },
    ],
  },
  {
    id: "orders-disputes",
    title: "Orders and disputes",
    items: [
      {
        id: "track-order",
        question: "How do I follow my orders?",
        answer:
          "Your Orders page lists active, completed and cancelled orders. From there you can message the other side, view the gig, or leave a review once an order is completed.",
      },
      {
        id: "cancel-order",
        question: "Can I cancel an order?",
        answer: "An order that is still in progress can be cancelled from the Orders page. The escrow payment goes back to the client.",
      },
      {
        id: "dispute",
        question: "What if something goes wrong with an order?",
        answer:
          "Message the freelancer first: most problems are solved that way. If you cannot agree, open a dispute and our support team will review the conversation and the delivery before the payment is released from escrow.",
      },
      {
        id: "support-hours",
        question: "When can I reach support?",
        answer: `Our support team works ${SUPPORT_HOURS}. Email ${SUPPORT_EMAIL} or call ${SUPPORT_PHONE}; we answer messages sent outside these hours on the next working day.`,
      },
    ],
  },
];

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
 * Case-insensitive search over questions and answers. Every word of the query must appear somewhere in
 * the question or the answer ("escrow fee" finds an answer that mentions both). An empty query returns
 * every group.
 */
export function searchFaq(rawQuery: unknown, groups: FaqGroup[] = faqGroups): FaqSearchResult {
  const query = normalizeFaqQuery(rawQuery);
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const matched = groups
    .map((group) => ({
      ...group,
      items: group.items.filter((item) => {
        const text = `${item.question}\n${item.answer}`.toLowerCase();
        return words.every((word) => text.includes(word));
      }),
    }))
    .filter((group) => group.items.length > 0);
  const matchCount = matched.reduce((sum, group) => sum + group.items.length, 0);
  return { query, groups: matched, matchCount };
}
