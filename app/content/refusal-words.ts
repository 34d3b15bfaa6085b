/**
 * Words of the forms' refusals that the operations' messages (app/content/operation-messages.ts) also say, without
 * zod: that module runs in the browser, where importing the schemas would bring zod into every page's code.
 * Each is a key of the catalogue of the page that shows it (ADR 047), said in the reader's language by the page
 * (ErrorList, for the browser's check) or by the server's catalogue (an operation's refusal).
 */
export const RESET_LINK_EXPIRED = "account.reset.linkExpired";
/** The admin portal's Users, Categories and Disputes screens. */
export const NOTHING_SELECTED = "admin.users.nothingSelected";
export const NAME_TAKEN = "admin.categories.nameTaken";
export const NAME_NEEDS_LETTERS = "admin.categories.nameNeedsLetters";
export const DISPUTE_REASON_REQUIRED = "admin.disputes.reasonRequired";
export const SPLIT_AMOUNT_REQUIRED = "admin.disputes.splitAmountRequired";
