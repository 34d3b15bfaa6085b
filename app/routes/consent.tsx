import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { FormMessage } from "~/components/forms";
import type { loader as rootLoader } from "~/root";
import { safeRedirect } from "~/server/auth.server";
import { CONSENT_COOKIE, serializeCookie } from "~/server/cookies.server";
import { readFormData } from "~/server/form-data.server";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";

/**
 * The visitor's analytics choice (Uganda's Data Protection and Privacy Act, 2019: consent before
 * collecting). `granted` lets the browser tracker run; `denied` leaves only the anonymous page views the
 * server counts itself. Kept for a year in the `soko_consent` cookie, which is not HttpOnly because the
 * tracker reads it. The same action serves this page, the banner, the footer link and the settings tab.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  return {
    saved: url.searchParams.has("saved"),
    redirectTo: safeRedirect(url.searchParams.get("redirectTo"), ""),
    ...(await pageMessages(request, ["legal"])),
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readFormData(request);
  const consent = form.get("consent");
  if (consent !== "granted" && consent !== "denied") {
    const t = await requestT(request);
    return data({ error: t("legal.consent.chooseOne") }, { status: 400 });
  }
  const headers = { "Set-Cookie": serializeCookie(CONSENT_COOKIE, consent, { maxAge: 31_536_000, httpOnly: false }) };
  // The banner, with JavaScript, submits in place (a fetcher) and adds `inPlace`: no navigation.
  if (form.get("inPlace") === "1") return data({ consent }, { headers });
  return redirect(safeRedirect(form.get("redirectTo"), "/consent?saved=1"), { headers });
}

export default function Consent() {
  const { saved, redirectTo } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useT();
  const current = useRouteLoaderData<typeof rootLoader>("root")?.consent ?? null;
  const error = actionData && "error" in actionData ? actionData.error : undefined;
  return (
    <section className="container form-page" aria-labelledby="consent-title">
      <h1 id="consent-title">{t("legal.consent.title")}</h1>
      <FormMessage errors={error ? [error] : undefined} success={saved ? t("legal.consent.saved") : null} />
      <p>{t("legal.consent.anonymous")}</p>
      <p>{t("legal.consent.withPermission")}</p>
      <p>
        <T id="legal.consent.keptFor" components={{ 0: <Link to="/privacy" /> }} />
      </p>
      <Form method="post" className="form-card">
        {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
        <p>
          {/* `choice` selects the words: granted, denied, or none yet. */}
          <T id="legal.consent.current" values={{ choice: current ?? "none" }} components={{ 0: <strong /> }} />
        </p>
        <div className="form-actions">
          <button type="submit" name="consent" value="granted" className="button">
            {t("legal.consent.allow")}
          </button>
          <button type="submit" name="consent" value="denied" className="button button-secondary">
            {t("legal.consent.deny")}
          </button>
        </div>
      </Form>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("legal.consent.metaTitle") }];
};
