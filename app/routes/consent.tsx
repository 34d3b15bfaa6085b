import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { FormMessage } from "~/components/forms";
import type { loader as rootLoader } from "~/root";
import { safeRedirect } from "~/server/auth.server";
import { CONSENT_COOKIE, serializeCookie } from "~/server/cookies.server";
import { readFormData } from "~/server/form-data.server";

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
  };
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readFormData(request);
  const consent = form.get("consent");
  if (consent !== "granted" && consent !== "denied") {
    return data({ error: "Choose to allow analytics or to allow only anonymous page views." }, { status: 400 });
  }
  const headers = { "Set-Cookie": serializeCookie(CONSENT_COOKIE, consent, { maxAge: 31_536_000, httpOnly: false }) };
  // The banner, with JavaScript, submits in place (a fetcher) and adds `inPlace`: no navigation.
  if (form.get("inPlace") === "1") return data({ consent }, { headers });
  return redirect(safeRedirect(form.get("redirectTo"), "/consent?saved=1"), { headers });
}

export default function Consent() {
  const { saved, redirectTo } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const current = useRouteLoaderData<typeof rootLoader>("root")?.consent ?? null;
  const error = actionData && "error" in actionData ? actionData.error : undefined;
  return (
    <section className="container form-page" aria-labelledby="consent-title">
      <h1 id="consent-title">Privacy choices</h1>
      <FormMessage errors={error ? [error] : undefined} success={saved ? "Your choice is saved." : null} />
      <p>
        Soko always counts anonymous page views: which page was opened, when, and roughly where from (the country and city from a shortened IP address). This
        keeps the site working well and is not linked to your account.
      </p>
      <p>
        With your permission we also record how you use the site: which buttons and links you click, which form fields you move through (never what you type),
        how far you scroll, how long you stay on a page, and errors in the page, with your screen size and time zone. We use it only to improve Soko, and never
        sell it or share it with advertisers.
      </p>
      <p>
        Your choice is kept in this browser for a year. You can change it here at any time, from the link in the footer, or in your settings. Read more in our{" "}
        <Link to="/privacy">Privacy Policy</Link>.
      </p>
      <Form method="post" className="form-card">
        {redirectTo ? <input type="hidden" name="redirectTo" value={redirectTo} /> : null}
        <p>
          Your current choice:{" "}
          <strong>{current === "granted" ? "analytics allowed" : current === "denied" ? "only anonymous page views" : "not made yet"}</strong>
        </p>
        <div className="form-actions">
          <button type="submit" name="consent" value="granted" className="button">
            Allow analytics
          </button>
          <button type="submit" name="consent" value="denied" className="button button-secondary">
            Only anonymous page views
          </button>
        </div>
      </Form>
    </section>
  );
}

export const meta: MetaFunction = () => [{ title: "Privacy choices | Soko" }];
