import { Form, useActionData } from "@remix-run/react";
import { ErrorList, SubmitButton } from "~/components/forms";
import { useT } from "~/i18n/react";
import { CHANGE_EMAIL } from "~/schemas/email-change";
import type { EmailChangeAnswer } from "~/server/settings-email.server";

/**
 * Settings › Security: the account's email, whether it is verified, and a form to change it (the current
 * password asked; the new address is unverified until its mailed link is followed: ADR 051).
 */
export function EmailChange({ email, verified }: { email: string; verified: boolean }) {
  const { t } = useT();
  // The settings page's answer: this form's when it carries `emailErrors`.
  const answer: unknown = useActionData();
  const errors = answer && typeof answer === "object" && "emailErrors" in answer ? (answer as EmailChangeAnswer) : null;
  const said = (name: string) => errors?.emailErrors[name] ?? undefined;
  return (
    <Form method="post" action="/settings?tab=security" className="form-card" aria-labelledby="email-change-title">
      <h3 id="email-change-title">{t("account.verify.changeHeading")}</h3>
      <p>{verified ? t("account.verify.currentVerified", { email }) : t("account.verify.currentUnverified", { email })}</p>
      <ErrorList errors={said("form")} />
      <div className="field">
        <label htmlFor="new-email">{t("account.verify.newEmail")}</label>
        <input id="new-email" name="email" type="email" required maxLength={254} autoComplete="email" defaultValue={errors?.typedEmail ?? ""} />
        <ErrorList id="new-email-error" errors={said("email")} />
      </div>
      <div className="field">
        <label htmlFor="email-password">{t("account.field.currentPassword")}</label>
        <input id="email-password" name="currentPassword" type="password" required maxLength={200} autoComplete="current-password" />
        <ErrorList id="email-password-error" errors={said("currentPassword")} />
      </div>
      <SubmitButton name="intent" value={CHANGE_EMAIL} pendingLabel={t("account.verify.changing")}>
        {t("account.verify.change")}
      </SubmitButton>
    </Form>
  );
}
