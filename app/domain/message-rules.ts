/**
 * The messaging rules' words and limits, without zod: the chat screen and the operations' messages use them in
 * the browser, where importing the schemas (app/schemas/message.ts) would bring zod into every page's code.
 */
export const MAX_MESSAGE_CHARS = 5000;
export const EMPTY_MESSAGE = "Write a message";
export const LONG_MESSAGE = `Keep a message to at most ${MAX_MESSAGE_CHARS.toLocaleString("en-US")} characters`;
export const NO_CONVERSATION = "Choose a conversation";
