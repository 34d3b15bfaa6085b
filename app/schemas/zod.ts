/**
 * zod for the forms' schemas, with its own messages replaced by keys (ADR 047): a check a schema gives no
 * words of its own says one of the common.form.* messages, in the reader's language (app/i18n/message-key.ts).
 * Every schema imports `z` from here, so the map is set wherever a schema runs, browser or server.
 */
import { z } from "zod";
import { msg } from "~/i18n/message-key";

const keyed: z.ZodErrorMap = (issue, ctx) => {
  switch (issue.code) {
    case z.ZodIssueCode.invalid_type:
      return { message: issue.received === "undefined" || issue.received === "null" ? msg("common.form.required") : msg("common.form.invalid") };
    case z.ZodIssueCode.too_small:
      if (issue.type === "string")
        return { message: Number(issue.minimum) <= 1 ? msg("common.form.required") : msg("common.form.tooShort", { min: Number(issue.minimum) }) };
      if (issue.type === "number") return { message: msg("common.form.tooSmall", { min: Number(issue.minimum) }) };
      return { message: msg("common.form.required") };
    case z.ZodIssueCode.too_big:
      if (issue.type === "string") return { message: msg("common.form.tooLong", { max: Number(issue.maximum) }) };
      if (issue.type === "number") return { message: msg("common.form.tooBig", { max: Number(issue.maximum) }) };
      return { message: msg("common.form.tooMany", { max: Number(issue.maximum) }) };
    case z.ZodIssueCode.invalid_string:
      if (issue.validation === "email") return { message: msg("common.form.email") };
      if (issue.validation === "url") return { message: msg("common.form.url") };
      return { message: msg("common.form.invalid") };
    case z.ZodIssueCode.unrecognized_keys:
      // A strict body's unknown fields (the JSON API's), named as zod always named them: 'price', 'extra'.
      return { message: msg("common.form.unknownFields", { keys: issue.keys.map((key) => `'${key}'`).join(", ") }) };
    case z.ZodIssueCode.invalid_enum_value:
    case z.ZodIssueCode.invalid_literal:
    case z.ZodIssueCode.invalid_union:
      return { message: msg("common.form.choose") };
    default:
      return { message: ctx.defaultError && issue.message ? issue.message : msg("common.form.invalid") };
  }
};

z.setErrorMap(keyed);

export { z };
