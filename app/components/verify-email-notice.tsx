import { Form } from "@remix-run/react";
import { SubmitButton } from "~/components/forms";
import { useT } from "~/i18n/react";

/**
 * For a member whose email is not verified yet (ADR 051), on the dashboard and the gig form: what waits on it
 * (a seller cannot publish) and a form that mails the link again (`/auth/verify-email`, limited per member).
 * Words of namespace `dashboard`.
 */
export function VerifyEmailNotice({ email, seller }: { email: string; seller: boolean }) {
  const { t } = useT();
  return (
    <div className="notice verify-notice" role="note" aria-labelledby="verify-email-title">
      <p>
        <strong id="verify-email-title">{t("dashboard.verify.heading")}</strong>{" "}
        {seller ? t("dashboard.verify.sellerText", { email }) : t("dashboard.verify.text", { email })}
      </p>
      <Form method="post" action="/auth/verify-email">
        <SubmitButton name="intent" value="resend" pendingLabel={t("dashboard.verify.sending")}>
          {t("dashboard.verify.resend")}
        </SubmitButton>
      </Form>
    </div>
  );
}
