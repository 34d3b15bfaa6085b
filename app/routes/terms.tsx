import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link } from "~/components/link";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";

export async function loader({ request }: LoaderFunctionArgs) {
  return pageMessages(request, ["legal"]);
}

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("legal.terms.metaTitle") }];
};

export default function Terms() {
  const { t } = useT();
  return (
    <article className="container form-page" aria-labelledby="terms-title">
      <h1 id="terms-title">{t("legal.terms.title")}</h1>
      <p>{t("legal.terms.intro")}</p>
      <h2>{t("legal.terms.accountsTitle")}</h2>
      <p>{t("legal.terms.accounts")}</p>
      <h2>{t("legal.terms.paymentsTitle")}</h2>
      <p>{t("legal.terms.payments")}</p>
      <h2>{t("legal.terms.conductTitle")}</h2>
      <p>{t("legal.terms.conduct")}</p>
      <h2>{t("legal.terms.disputesTitle")}</h2>
      <p>{t("legal.terms.disputes")}</p>
      <p>
        <T id="legal.terms.seeAlso" components={{ 0: <Link to="/privacy" />, 1: <Link to="/help" /> }} />
      </p>
    </article>
  );
}
