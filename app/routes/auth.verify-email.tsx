import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { ErrorList, FormMessage, SubmitButton } from "~/components/forms";
import { failureMessage } from "~/content/operation-messages";
import { readVerifyToken, type DeadLink } from "~/models/email-verification.server";
import { getSettings } from "~/models/user.server";
import { resendVerification, verifyEmail } from "~/operations/email-verification.server";
import { getActor, getUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { readFormData } from "~/server/form-data.server";
import { getMailOrigin } from "~/server/host.server";
import { failureStatus } from "~/server/operation-results.server";
import { requestLocale } from "~/i18n/locale.server";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";

/**
 * `/auth/verify-email` (ADR 051). The mailed link opens it with `?token=`: the page checks the link and
 * asks for one click, which posts the token (a mail scanner that fetches links verifies nothing), then answers
 * with a 303 to the same page without the token, so the token stays in the address bar of one page only, as
 * /reset-password's does, and analytics never keeps it (app/analytics/urls.ts keeps no query of this page).
 * Without a token, a signed-in member sees whether their address is verified and can have the link mailed again.
 */
export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("account.verify.title") }, { name: "robots", content: "noindex" }];
};

type State = { state: "confirm"; token: string } | { state: "dead"; why: DeadLink } | { state: "verified" } | { state: "unverified" | "sent"; email: string };

export async function loader({ request }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams;
  const messages = await pageMessages(request, ["account"]);
  const token = params.get("token");
  if (token !== null) {
    const checked = await readVerifyToken(getDb(), token);
    if ("dead" in checked) return data({ page: { state: "dead", why: checked.dead } as State, ...messages }, { status: 410 });
    return data({ page: { state: "confirm", token } as State, ...messages });
  }
  const user = await getUser(request);
  // Verified on a device that is not signed in: nothing of the account to show but that.
  if (!user && params.get("verified") === "1") return data({ page: { state: "verified" } as State, ...messages });
  if (!user) throw redirect(`/login?redirectTo=${encodeURIComponent("/auth/verify-email")}`);
  const settings = await getSettings(getDb(), user.id);
  if (!settings) throw new Response("Not Found", { status: 404 });
  const page: State = settings.emailVerifiedAt ? { state: "verified" } : { state: params.get("sent") === "1" ? "sent" : "unverified", email: settings.email };
  return data({ page, ...messages });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readFormData(request);
  const locale = await requestLocale(request);
  const actor = await getActor(request, context.clientIp);
  const intent = form.get("intent");
  if (intent === "verify") {
    const result = await verifyEmail(actor, { token: String(form.get("token") ?? "") });
    // A dead link is gone for good: 410, as the page itself answers for it.
    if (!result.ok) return data({ error: failureMessage(result, locale) }, { status: result.error === "conflict" ? 410 : failureStatus(result) });
    return redirect("/auth/verify-email?verified=1", 303);
  }
  if (intent === "resend") {
    if (actor.kind !== "member") return redirect(`/login?redirectTo=${encodeURIComponent("/auth/verify-email")}`, 303);
    const result = await resendVerification(actor, { origin: getMailOrigin(request) });
    if (!result.ok) {
      const headers = result.error === "limited" ? { "Retry-After": String(result.retryAfter) } : undefined;
      return data({ error: failureMessage(result, locale) }, { status: failureStatus(result), headers });
    }
    return redirect("/auth/verify-email?sent=1", 303);
  }
  return data({ error: (await requestT(request))("account.verify.badRequest") }, { status: 400 });
}

export default function VerifyEmail() {
  const { page } = useLoaderData<typeof loader>();
  const answered = useActionData<typeof action>();
  const { t } = useT();
  return (
    <section className="container form-page" aria-labelledby="verify-title">
      <VerifyHeading page={page} />
      <ErrorList errors={answered?.error ? [answered.error] : undefined} />
      {page.state === "confirm" ? (
        <Form method="post" action="/auth/verify-email" className="form-card">
          <p>{t("account.verify.confirmIntro")}</p>
          <input type="hidden" name="token" value={page.token} />
          <SubmitButton name="intent" value="verify" pendingLabel={t("account.verify.verifying")}>
            {t("account.verify.confirm")}
          </SubmitButton>
        </Form>
      ) : page.state === "dead" ? (
        <p>{t(DEAD_WORDS[page.why])}</p>
      ) : page.state === "verified" ? (
        <p>
          <Link to="/dashboard" className="button">
            {t("account.verify.toDashboard")}
          </Link>
        </p>
      ) : (
        <>
          {page.state === "sent" ? <FormMessage success={t("account.verify.sent", { email: page.email })} /> : null}
          <p>{t("account.verify.pending", { email: page.email })}</p>
          <Form method="post" action="/auth/verify-email">
            <SubmitButton name="intent" value="resend" pendingLabel={t("account.verify.sending")}>
              {t("account.verify.resend")}
            </SubmitButton>
          </Form>
        </>
      )}
      {page.state === "dead" ? (
        <p>
          <Link to="/auth/verify-email" className="button">
            {t("account.verify.newLink")}
          </Link>
        </p>
      ) : null}
    </section>
  );
}

const DEAD_WORDS: Record<DeadLink, string> = {
  used: "account.verify.deadUsed",
  expired: "account.verify.deadExpired",
  stale: "account.verify.deadStale",
};

const HEADINGS: Record<State["state"], string> = {
  confirm: "account.verify.confirmHeading",
  dead: "account.verify.deadHeading",
  verified: "account.verify.verifiedHeading",
  unverified: "account.verify.heading",
  sent: "account.verify.heading",
};

function VerifyHeading({ page }: { page: State }) {
  const { t } = useT();
  return <h1 id="verify-title">{t(HEADINGS[page.state])}</h1>;
}
