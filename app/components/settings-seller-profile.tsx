import type { FieldMetadata } from "@conform-to/react";
import { Field } from "~/components/forms";
import { useT } from "~/i18n/react";

/**
 * Settings › Profile's seller fields: years of experience and the portfolio link, which the seller's profile
 * and gig pages show (ADR 049). Left empty, each is cleared.
 */
export function SellerProfileFields({ years, portfolio }: { years: FieldMetadata<unknown>; portfolio: FieldMetadata<unknown> }) {
  const { t } = useT();
  return (
    <>
      <Field field={years} label={t("account.seller.years")} type="number" inputProps={{ min: 0, max: 60, step: 1, inputMode: "numeric" }} />
      <Field field={portfolio} label={t("account.seller.portfolio")} type="url" hint={t("account.seller.portfolioHint")} />
    </>
  );
}
