/**
 * Words of the forms' refusals that the operations' messages (app/content/operation-messages.ts) also say, without
 * zod: that module runs in the browser, where importing the schemas would bring zod into every page's code.
 * A keyed one ("account.reset.linkExpired") is said in the reader's language by the page (ErrorList) or the
 * server's catalogue (ADR 047).
 */
export const RESET_LINK_EXPIRED = "account.reset.linkExpired";
export const NOTHING_SELECTED = "Bulk user action requires at least one selected user";
export const NAME_TAKEN = "Another category already has this name";
export const NAME_NEEDS_LETTERS = "Use at least one letter or digit in the name";
export const DISPUTE_REASON_REQUIRED = "Give the reason for your decision: both parties will read it";
export const SPLIT_AMOUNT_REQUIRED = "Enter the buyer's refund in whole shillings";
