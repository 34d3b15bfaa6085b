/**
 * The order state machine (ADR 014), as plain data and pure functions shared by the operations that
 * enforce it and the pages that offer its buttons: a page shows an action exactly when the operation would
 * accept it (the operation checks again under the order's row lock). Which operation takes each
 * transition, the timers that drive some, and the ledger journals each posts: the map at the top of
 * app/operations/order-machine.server.ts.
 */
export const ORDER_STATUSES = ["pending_payment", "in_progress", "delivered", "completed", "cancelled"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The catalogue key of each status's label (app/locales/<language>/orders.json, ADR 047). */
export const STATUS_KEY: Record<string, string> = {
  pending_payment: "orders.status.pendingPayment",
  in_progress: "orders.status.inProgress",
  delivered: "orders.status.delivered",
  completed: "orders.status.completed",
  cancelled: "orders.status.cancelled",
};
/**
 * The key of a status's label, for `t(statusKey(status))` in a component or `serverI18n(locale)._(statusKey(status))`
 * on the server (operations' refusals, notifications, mail). A status this version does not know says "Unknown".
 */
export const statusKey = (status: string) => STATUS_KEY[status] ?? "orders.status.unknown";

/**
 * The badge an order wears, for both parties alike: its status, or "In dispute" while a dispute is open on it
 * (the order waits for an admin then, whatever its status says). `key` is its label's catalogue key.
 */
export function orderBadge(status: string, disputeOpen: boolean): { key: string; className: string } {
  if (disputeOpen) return { key: "orders.status.disputed", className: "order-status-disputed" };
  return { key: statusKey(status), className: `order-status-${status}` };
}

export const FINAL_STATUSES: ReadonlySet<string> = new Set(["completed", "cancelled"]);

/** The tabs of /orders and the statuses each shows. Awaiting payment shows under Active for the buyer. */
export const ORDER_TABS = {
  active: ["pending_payment", "in_progress", "delivered"],
  completed: ["completed"],
  cancelled: ["cancelled"],
} as const;
export type OrderTab = keyof typeof ORDER_TABS;

/** Transitions: which statuses each one leaves from, and where it goes. */
export const TRANSITIONS = {
  pay: { from: ["pending_payment"], to: "in_progress" },
  fail_payment: { from: ["pending_payment"], to: "cancelled" },
  deliver: { from: ["in_progress"], to: "delivered" },
  request_revision: { from: ["delivered"], to: "in_progress" },
  approve: { from: ["delivered"], to: "completed" },
  auto_complete: { from: ["delivered"], to: "completed" },
  cancel: { from: ["in_progress", "delivered"], to: "cancelled" },
  resolve_refund: { from: ["in_progress", "delivered"], to: "cancelled" },
  resolve_release: { from: ["in_progress", "delivered"], to: "completed" },
  // A dispute split (part refunded, the rest released) completes the order: the seller's part clears as usual.
  resolve_split: { from: ["in_progress", "delivered"], to: "completed" },
} as const satisfies Record<string, { from: readonly OrderStatus[]; to: OrderStatus }>;
export type Transition = keyof typeof TRANSITIONS;

/** How an admin may resolve a dispute (ADR 044): all to the seller, all back to the buyer, or the price split. */
export const DISPUTE_RESOLUTIONS = ["release", "refund", "split"] as const;
export type DisputeResolution = (typeof DISPUTE_RESOLUTIONS)[number];

export function canTransition(status: string, transition: Transition): boolean {
  return (TRANSITIONS[transition].from as readonly string[]).includes(status);
}

/** Timers (ADR 014), run by worker/order-timers-job.server.ts. */
export const AUTO_COMPLETE_MS = 3 * 24 * 60 * 60 * 1000;
export const CLEARANCE_MS = 14 * 24 * 60 * 60 * 1000;
export const UNPAID_EXPIRY_MS = 30 * 60 * 1000;
/** A buyer may cancel alone once an order in progress is this late. */
export const LATE_GRACE_MS = 24 * 60 * 60 * 1000;

export type OrderFacts = {
  status: string;
  buyerId: number;
  sellerId: number;
  revisionsAllowed: number;
  revisionsUsed: number;
  dueAt: Date | string | null;
  cancelRequestedBy: number | null;
  disputeOpen: boolean;
  reviewed: boolean;
};

export type OrderAction =
  | "pay"
  | "abandon"
  | "deliver"
  | "request_revision"
  | "approve"
  | "cancel"
  | "request_cancel"
  | "agree_cancel"
  | "withdraw_cancel"
  | "decline_cancel"
  | "dispute"
  | "review";

export function isLate(order: Pick<OrderFacts, "status" | "dueAt">, now: Date): boolean {
  return order.status === "in_progress" && order.dueAt !== null && now.getTime() > new Date(order.dueAt).getTime() + LATE_GRACE_MS;
}

/**
 * What a party may do to an order now. A dispute, once open, leaves the outcome to an admin: only delivery
 * (the seller may still send the work) goes on.
 */
export function orderActions(order: OrderFacts, userId: number, now: Date = new Date()): Set<OrderAction> {
  const actions = new Set<OrderAction>();
  const isBuyer = userId === order.buyerId;
  const isSeller = userId === order.sellerId;
  if (!isBuyer && !isSeller) return actions;
  const s = order.status;
  if (s === "pending_payment" && isBuyer) {
    actions.add("pay");
    actions.add("abandon");
  }
  if (s === "in_progress" && isSeller) actions.add("deliver");
  if (s === "completed" && isBuyer && !order.reviewed) actions.add("review");
  if (!canTransition(s, "cancel") || order.disputeOpen) return actions;
  if (s === "delivered" && isBuyer) {
    actions.add("approve");
    if (order.revisionsUsed < order.revisionsAllowed) actions.add("request_revision");
  }
  actions.add("dispute");
  if (isBuyer && isLate(order, now)) actions.add("cancel");
  if (order.cancelRequestedBy === null) actions.add("request_cancel");
  else if (order.cancelRequestedBy === userId) actions.add("withdraw_cancel");
  else {
    actions.add("agree_cancel");
    actions.add("decline_cancel");
  }
  return actions;
}

/** The order's number as people say it (ORD-000123). */
export const orderNumber = (id: number) => `ORD-${String(id).padStart(6, "0")}`;

/** The value the approve confirmation carries: the action refuses an approve without it (a one-tap release). */
export const APPROVE_CONFIRMATION = "release";
