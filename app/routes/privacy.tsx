import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link } from "~/components/link";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";

/** Where a member asks to see, correct or delete their data. */
const PRIVACY_EMAIL = "privacy@soko.ug";

export async function loader({ request }: LoaderFunctionArgs) {
  return pageMessages(request, ["legal"]);
}

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("legal.privacy.metaTitle") }];
};

export default function Privacy() {
  const { t } = useT();
  return (
    <article className="container form-page" aria-labelledby="privacy-title">
      <h1 id="privacy-title">{t("legal.privacy.title")}</h1>
      <p>{t("legal.privacy.intro")}</p>
      <h2>{t("legal.privacy.keptTitle")}</h2>
      <p>{t("legal.privacy.kept")}</p>
      <h2>{t("legal.privacy.analyticsTitle")}</h2>
      <p>{t("legal.privacy.analyticsAnonymous")}</p>
      <p>
        <T id="legal.privacy.analyticsConsent" components={{ 0: <Link to="/consent" /> }} />
      </p>
      <h2>{t("legal.privacy.rightsTitle")}</h2>
      <p>{t("legal.privacy.rights", { email: PRIVACY_EMAIL })}</p>
      <p>
        <T id="legal.privacy.seeAlso" components={{ 0: <Link to="/terms" /> }} />
      </p>
    </article>
  );
}
