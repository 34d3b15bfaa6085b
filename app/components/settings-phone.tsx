import { Link } from "~/components/link";
import { useT } from "~/i18n/react";

/** The Security tab's way to the phone page (/settings/phone, ADR 050): verify a number for texts and payouts. */
export function PhoneSettingsLink() {
  const { t } = useT();
  return (
    <p className="form-card">
      <Link to="/settings/phone">{t("account.settings.phoneLink")}</Link>
    </p>
  );
}
