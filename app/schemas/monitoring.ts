/**
 * The admin portal's forms for message monitoring and the exchange rate (ADR 017), shared by the server
 * (which decides) and the browser (which only helps).
 */
import { z } from "~/schemas/zod";
import { msg } from "~/i18n/message-key";
import { MAX_UGX_PER_USD, MIN_UGX_PER_USD } from "~/domain/money";

import { ADMIN_CONVERSATION_FILTERS, DELETE_CONVERSATION_CONFIRM, FILTER_LABELS, type AdminConversationFilter } from "~/domain/admin-rules";

export { ADMIN_CONVERSATION_FILTERS, DELETE_CONVERSATION_CONFIRM, FILTER_LABELS, MAX_UGX_PER_USD, MIN_UGX_PER_USD, type AdminConversationFilter };

/** A conversation id as messaging makes them (conv_ plus time plus random: docs/product.md). */
export const conversationIdField = z
  .string({ required_error: "admin.form.chooseConversation" })
  .trim()
  .regex(/^conv_[a-z0-9]{10,40}$/, "admin.form.conversationNotFound");

/** The list's search and filter (a GET form): anything unknown falls back to the whole list, never a 500. */
export const ConversationListSchema = z.object({
  q: z.string().trim().max(200).catch(""),
  filter: z.enum(ADMIN_CONVERSATION_FILTERS).catch("all"),
  page: z.coerce.number().int().min(1).max(10_000).catch(1),
});

export const FlagConversationSchema = z.object({
  conversationId: conversationIdField,
  flagged: z.enum(["true", "false"], { errorMap: () => ({ message: "admin.form.flagOrUnflag" }) }).transform((v) => v === "true"),
});
export type FlagConversationInput = z.output<typeof FlagConversationSchema>;

export const DeleteConversationSchema = z.object({ conversationId: conversationIdField });
export type DeleteConversationInput = z.output<typeof DeleteConversationSchema>;

/** The rate form's messages, as catalogue keys (with the bounds as values, formatted in the reader's language). */
export const RATE_OUT_OF_BOUNDS = msg("admin.rates.outOfBounds", { min: MIN_UGX_PER_USD, max: MAX_UGX_PER_USD });
export const RATE_NOT_A_NUMBER = "admin.rates.notANumber";
const RATE_REQUIRED = "admin.rates.required";

export const ExchangeRateSchema = z.object({
  ugxPerUsd: z
    .string({ required_error: RATE_REQUIRED })
    .trim()
    .min(1, RATE_REQUIRED)
    .max(20, RATE_NOT_A_NUMBER)
    // "3,750" is how people write it: thousands separators and spaces are dropped.
    .transform((v) => v.replace(/[,\s]/g, ""))
    .refine((v) => /^\d+(\.\d{1,2})?$/.test(v), RATE_NOT_A_NUMBER)
    .transform(Number)
    .refine((n) => n >= MIN_UGX_PER_USD && n <= MAX_UGX_PER_USD, RATE_OUT_OF_BOUNDS),
});
export type ExchangeRateInput = z.output<typeof ExchangeRateSchema>;
