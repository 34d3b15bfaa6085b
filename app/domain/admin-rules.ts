/**
 * The admin portal's lists' fixed choices and words (catalogue keys of namespace `admin`), without zod: the Users, audit and message-monitoring
 * screens draw their filters and confirmations from them in the browser, where the schemas that parse the same
 * choices (app/schemas/admin.ts, app/schemas/monitoring.ts) would bring zod into the page's first load.
 */
export const USER_ROLES = ["client", "freelancer", "admin"] as const;
/** The statuses a member can have, and "deleted" (a row kept for orders and messages, its person wiped). */
export const USER_STATUSES = ["active", "suspended", "banned", "deleted"] as const;
export const STATUS_ACTIONS = ["suspend", "ban", "activate"] as const;
export type StatusAction = (typeof STATUS_ACTIONS)[number];

/** The Users screen's fixed words (docs/product.md, Accounts), as a catalogue key: `t(DELETE_CONFIRMATION)`. */
export const DELETE_CONFIRMATION = "admin.users.deleteConfirm";

export const USERS_PAGE_SIZE = 20;
export const AUDIT_PAGE_SIZE = 30;

/** The message monitoring list's filters (flagged, recent, high_volume), and their names on the page (catalogue keys). */
export const ADMIN_CONVERSATION_FILTERS = ["all", "flagged", "recent", "high_volume"] as const;
export type AdminConversationFilter = (typeof ADMIN_CONVERSATION_FILTERS)[number];
export const FILTER_LABELS: Record<AdminConversationFilter, string> = {
  all: "admin.messages.filterAll",
  flagged: "admin.messages.filterFlagged",
  recent: "admin.messages.filterRecent",
  high_volume: "admin.messages.filterHighVolume",
};

/** Deleting a conversation asks in the same words as deleting a member (docs/product.md), as a catalogue key. */
export const DELETE_CONVERSATION_CONFIRM = "admin.messages.deleteConfirm";
