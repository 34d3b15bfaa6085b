import { Form, useNavigation } from "@remix-run/react";
import { ErrorList } from "~/components/forms";
import { useT } from "~/i18n/react";

/**
 * The form for a six-digit code texted to `phone`: a POST with `intent` (a redirect without JavaScript, in place
 * with it), its refusal beside the field. The phone page and Settings › Billing both use it.
 */
export function PhoneCodeForm({
  intent,
  action,
  phone,
  errors,
  submit,
  pending,
}: {
  intent: string;
  action?: string;
  phone: string;
  errors?: string[];
  submit: string;
  pending: string;
}) {
  const { t } = useT();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const id = `${intent}-code`;
  return (
    <Form method="post" action={action} className="form-card" aria-label={t("account.phone.confirmTitle")}>
      <input type="hidden" name="intent" value={intent} />
      <div className="field">
        <label htmlFor={id}>{t("account.phone.codeLabel", { phone })}</label>
        <input
          id={id}
          name="code"
          inputMode="numeric"
          autoComplete="one-time-code"
          pattern="[0-9]{6}"
          required
          maxLength={6}
          aria-describedby={errors ? `${id}-error` : undefined}
          aria-invalid={errors ? true : undefined}
        />
        <ErrorList id={`${id}-error`} errors={errors} />
      </div>
      <button type="submit" className="button" disabled={busy}>
        {busy ? pending : submit}
      </button>
    </Form>
  );
}
