/**
 * The messaging rules' words and limits, without zod: the chat screen and the operations' messages use them in
 * the browser, where importing the schemas (app/schemas/message.ts) would bring zod into every page's code.
 * The words are catalogue keys of the `chat` namespace (ADR 047): ErrorList and the send box say them in the
 * reader's language.
 */
import { msg } from "~/i18n/message-key";

export const MAX_MESSAGE_CHARS = 5000;
export const EMPTY_MESSAGE = "chat.send.empty";
export const LONG_MESSAGE = msg("chat.send.tooLong", { max: MAX_MESSAGE_CHARS });
export const NO_CONVERSATION = "chat.send.noConversation";
/** A send the server could not take, or whose answer said nothing more. */
export const SEND_FAILED = "chat.send.failed";
