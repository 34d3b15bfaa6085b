/** A mobile-money number as a form or the API types it, read as E.164 (app/domain/mobile-money.ts). */
import { z } from "~/schemas/zod";
import { MSISDN_MESSAGE, normaliseMsisdn } from "~/domain/mobile-money";

export const msisdnField = z
  .string({ required_error: "orders.form.msisdnRequired" })
  .max(30, MSISDN_MESSAGE)
  .transform(normaliseMsisdn)
  .pipe(z.string().regex(/^\+2567\d{8}$/, MSISDN_MESSAGE));
