import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/link";
import { ErrorList, FormMessage } from "~/components/forms";
import { messageOf } from "~/content/operation-messages";
import { requestLocale } from "~/i18n/locale.server";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";
import { askPhoneCode, CODE_REFUSALS, confirmPhoneCode, pendingCodeNumber } from "~/operations/phone-verification.server";
import { PhoneCodeForm } from "~/components/phone-code-form";
import { requireMemberActor, requireUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { readFormData } from "~/server/form-data.server";
import settingsStylesUrl from "~/styles/settings.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: settingsStylesUrl }];
export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("account.phone.title") }];
};

/**
 * A member's phone (ADR 050): type a Ugandan mobile number, get a six-digit code by SMS, type it back. Two plain
 * forms told apart by `intent`, each a POST and a redirect without JavaScript and in place with it.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const row = await getDb()("users").where({ id: user.id }).first("phone", "phone_verified_at");
  const url = new URL(request.url);
  return {
    verifiedPhone: row?.phone_verified_at ? (row.phone as string) : null,
    codeSentTo: await pendingCodeNumber(getDb(), user.id, "phone"),
    saved: url.searchParams.get("verified") === "1" ? "account.phone.verified" : url.searchParams.get("sent") === "1" ? "account.phone.sent" : null,
    ...(await pageMessages(request, ["account"])),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const form = await readFormData(request);
  const _ = await requestT(request);
  const locale = await requestLocale(request);
  const intent = form.get("intent");
  if (intent === "send") {
    const result = await askPhoneCode(actor, { phone: String(form.get("phone") ?? "").slice(0, 40) });
    if (result.ok) return redirect("/settings/phone?sent=1");
    if (result.error === "invalid")
      return data(
        { field: "phone", error: _(result.issues.phone?.[0]?.code === "schema" ? result.issues.phone[0].message : "account.phone.notUgandan") },
        { status: 400 },
      );
    const status = result.error === "limited" ? result.status : 400;
    return data(
      { field: "phone", error: messageOf(result, locale) },
      { status, headers: result.error === "limited" ? { "Retry-After": String(result.retryAfter) } : undefined },
    );
  }
  if (intent === "confirm") {
    const result = await confirmPhoneCode(actor, { code: String(form.get("code") ?? "").slice(0, 20) });
    if (result.ok && result.value.verified) return redirect("/settings/phone?verified=1");
    if (result.ok && !result.value.verified) return data({ field: "code", error: _(CODE_REFUSALS[result.value.refusal]) }, { status: 400 });
    return data({ field: "code", error: _("account.phone.codeFormat") }, { status: 400 });
  }
  return data({ field: "phone", error: _("account.phone.notUgandan") }, { status: 400 });
}

export default function PhoneSettings() {
  const { verifiedPhone, codeSentTo, saved } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useT();
  const navigation = useNavigation();
  const busy = (intent: string) => navigation.state === "submitting" && navigation.formData?.get("intent") === intent;
  const phoneError = answer?.field === "phone" ? [answer.error] : undefined;
  const codeError = answer?.field === "code" ? [answer.error] : undefined;
  return (
    <section className="container form-page" aria-labelledby="phone-title">
      <h1 id="phone-title">{t("account.phone.title")}</h1>
      <p>
        <Link to="/settings?tab=security">{t("account.phone.back")}</Link>
      </p>
      <FormMessage success={saved ? t(saved) : null} />
      <p>{verifiedPhone ? t("account.phone.current", { phone: verifiedPhone }) : t("account.phone.none")}</p>
      <Form method="post" className="form-card" aria-label={t("account.phone.sendTitle")}>
        <input type="hidden" name="intent" value="send" />
        <div className="field">
          <label htmlFor="phone">{t("account.phone.phoneLabel")}</label>
          <p id="phone-hint" className="field-hint">
            {t("account.phone.phoneHint")}
          </p>
          <input
            id="phone"
            name="phone"
            type="tel"
            inputMode="tel"
            autoComplete="tel"
            required
            maxLength={20}
            aria-describedby={phoneError ? "phone-hint phone-error" : "phone-hint"}
            aria-invalid={phoneError ? true : undefined}
          />
          <ErrorList id="phone-error" errors={phoneError} />
        </div>
        <button type="submit" className="button" disabled={busy("send")}>
          {busy("send") ? t("account.phone.sending") : t("account.phone.send")}
        </button>
      </Form>
      {codeSentTo ? (
        <PhoneCodeForm intent="confirm" phone={codeSentTo} errors={codeError} submit={t("account.phone.confirm")} pending={t("account.phone.confirming")} />
      ) : null}
    </section>
  );
}
