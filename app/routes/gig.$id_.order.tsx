import { parse, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, type LinksFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { randomBytes } from "node:crypto";
import { NETWORK_OFFERED, PayerFields } from "~/components/checkout";
import { ErrorList, SubmitButton, TextAreaField } from "~/components/forms";
import { getGigPage } from "~/models/gig.server";
import { getSettings } from "~/models/user.server";
import { placeOrder } from "~/operations/orders.server";
import { getProviders } from "~/payments/registry.server";
import type { loader as rootLoader } from "~/root";
import { requireMemberActor, requireUser } from "~/server/auth.server";
import { ORDER_FILES_BODY_LIMIT } from "~/server/body-limit.server";
import { getDb } from "~/server/db.server";
import { getEnv } from "~/server/env.server";
import { buyerFee, feesFromEnv } from "~/domain/fees";
import { readFormData, readMultipartForm, UNREADABLE_FORM } from "~/server/form-data.server";
import { getFormConstraint, type FormConstraint } from "~/schemas/form-constraint";
import { useLightForm } from "~/hooks/use-light-form";
import { isUnnamedPackage, type Tier } from "~/domain/package-tiers";
import { ORDER_TIER_KEY } from "~/domain/order-tiers";
import { actionHeaders } from "~/utils/headers";
import { guessNetwork, resolveNetwork } from "~/domain/mobile-money";
import { formatPrice } from "~/domain/money";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { requestLocale } from "~/i18n/locale.server";
import { metaI18n, T, useT } from "~/i18n/react";
import { usePreferences } from "~/hooks/use-preferences";
import { formFailure } from "~/server/operation-results.server";
import { InvalidOrderFileError, MAX_ORDER_FILE_BYTES, MAX_ORDER_FILES, storeOrderFiles } from "~/server/files/order-files.server";
import { CheckoutSchema } from "~/schemas/order";
import { refusalInit } from "~/server/files/upload-quota.server";
import { messageOf } from "~/content/operation-messages";
import ordersStylesUrl from "~/styles/orders.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: ordersStylesUrl }];

export const headers = actionHeaders;

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("orders.checkout.metaTitle") }];
};

/**
 * Checkout (ADR 014): the chosen package with its fee and total, the buyer's requirements and files, and
 * the phone that pays. The price and fee shown are the server's; the form names only the gig and package.
 * The form carries a fresh random key, so the same checkout posted twice is one order.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const db = getDb();
  const gig = await getGigPage(db, Number(params.id), user);
  if (!gig || gig.status !== "published") throw new Response("Not Found", { status: 404 });
  const tier = new URL(request.url).searchParams.get("package");
  const pkg = gig.packages.find((p) => p.tier === tier) ?? gig.packages[0];
  if (!pkg) throw new Response("Not Found", { status: 404 });
  const fees = feesFromEnv(getEnv());
  const feeUgx = buyerFee(pkg.priceUgx, fees);
  const summary = {
    gig: { id: gig.id, title: gig.title, seller: gig.seller.name },
    pkg: { tier: pkg.tier, name: pkg.name, deliveryDays: pkg.deliveryDays, revisions: pkg.revisions, priceUgx: pkg.priceUgx },
    feeUgx,
    // How the buyer's fee reads beside its figure ("5%, at least UGX 1,000").
    feeRule: { percent: fees.buyerPercent, minUgx: fees.buyerMinUgx },
    ...(await pageMessages(request, ["orders.checkout", "orders.files", "orders.form", "orders.payer", "orders.status", "orders.tier"])),
  };
  // Said plainly instead of a form that could only be refused (a message key of the orders namespace).
  const refusal = gig.seller.id === user.id ? "orders.checkout.ownGig" : user.role === "admin" ? "orders.checkout.adminsDoNotBuy" : null;
  if (refusal) return data({ ...summary, refusal, checkout: null }, { status: 403 });
  const providers = getProviders();
  const paymentsAvailable = Boolean(providers.forNetwork("mtn") ?? providers.forNetwork("airtel"));
  const msisdn = (await getSettings(db, user.id))?.mobileMoneyNumber ?? "";
  return {
    ...summary,
    refusal: null,
    checkout: paymentsAvailable
      ? {
          msisdn,
          network: guessNetwork(msisdn) ?? ("mtn" as const),
          checkoutKey: randomBytes(16).toString("base64url"),
          // The browser's checks; the schema itself loads once the form is used (app/hooks/use-schema-form.ts).
          constraint: getFormConstraint(CheckoutSchema),
          files: { max: MAX_ORDER_FILES, mb: MAX_ORDER_FILE_BYTES / 1024 / 1024 },
        }
      : null,
  };
}

/** The checkout form as sent: multipart from the page (it carries files), URL-encoded from a client that sends none. */
async function readCheckoutForm(request: Request) {
  if (!(request.headers.get("Content-Type") ?? "").toLowerCase().startsWith("multipart/form-data")) {
    return { form: await readFormData(request), oversized: [] as string[] };
  }
  return readMultipartForm(request, { maxFileBytes: MAX_ORDER_FILE_BYTES, maxBodyBytes: ORDER_FILES_BODY_LIMIT });
}

const MB = MAX_ORDER_FILE_BYTES / 1024 / 1024;

export async function action({ request, params, context }: ActionFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const t = await requestT(request);
  const read = await readCheckoutForm(request);
  if (read === "too-large" || read === "malformed") {
    // The body was not read in full, so what was typed cannot be shown back: say what was wrong.
    const tooLarge = t("orders.checkout.filesTooLarge", { mb: MB, max: MAX_ORDER_FILES });
    const reply = parse(new FormData(), { resolve: () => ({ value: {} }) }).reply({ formErrors: [read === "too-large" ? tooLarge : t(UNREADABLE_FORM)] });
    return data(reply, { status: read === "too-large" ? 413 : 400 });
  }
  const { form, oversized } = read;
  // A browser sends an empty part for a file input left empty (its name differs by parser): nothing was attached.
  const files = form.getAll("files").filter((f): f is File => f instanceof File && f.size > 0);
  form.delete("files");
  // The amount is never read from the form: placeOrder prices the gig's package itself.
  const submission = parseWithZod(form, { schema: CheckoutSchema });
  if (oversized.length) {
    return data(submission.reply({ fieldErrors: { files: oversized.map((name) => t("orders.files.over", { name, mb: MB })) } }), {
      status: 413,
    });
  }
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  if (submission.value.gigId !== Number(params.id)) {
    return data(submission.reply({ formErrors: [t("orders.checkout.otherGig")] }), { status: 400 });
  }
  let stored;
  try {
    const read = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) })));
    stored = await storeOrderFiles(read, { userId: actor.user.id });
  } catch (error) {
    if (!(error instanceof InvalidOrderFileError)) throw error;
    // A file we do not take (400), or over the buyer's upload quota (429 with Retry-After).
    return data(submission.reply({ fieldErrors: { files: [error.words(await requestLocale(request))] } }), refusalInit(error));
  }
  // Without JavaScript a radio left where the page drew it says nothing: the typed number's network is taken.
  const { msisdn, network } = submission.value;
  const offered = form.get(NETWORK_OFFERED);
  const payer = { msisdn, network: resolveNetwork(msisdn, network, typeof offered === "string" ? offered : null) };
  const result = await placeOrder(actor, { ...submission.value, ...payer, files: stored });
  if (!result.ok) {
    // Your own gig, or an admin: the reason beside the form rather than an error page.
    const locale = await requestLocale(request);
    if (result.error === "forbidden") return data(submission.reply({ formErrors: [messageOf(result, locale)] }), { status: 403 });
    return formFailure(submission.reply, result, { locale });
  }
  return redirect(`/orders/${result.value.orderId}/pay`, 303);
}

export default function Checkout() {
  const { gig, pkg, feeUgx, feeRule, refusal, checkout } = useLoaderData<typeof loader>();
  const { t } = useT();
  const { locale, ugx, number } = usePreferences();
  const currency = useRouteLoaderData<typeof rootLoader>("root")?.currency;
  const usd = currency?.code === "USD" && currency.ugxPerUsd > 0 ? currency : null;
  // Mobile money is paid in shillings; a visitor who reads USD sees both.
  const money = (amount: number) => (usd ? `${ugx(amount)} (${formatPrice(amount, usd, locale)})` : ugx(amount));
  const totalUgx = pkg.priceUgx + feeUgx;
  const tier = pkg.tier as Tier;
  return (
    <section className="container narrow checkout" aria-labelledby="checkout-title">
      <h1 id="checkout-title">{t("orders.checkout.title")}</h1>
      <p>
        <T id="orders.checkout.byline" values={{ title: gig.title, seller: gig.seller }} components={{ 0: <Link to={`/gig/${gig.id}`} /> }} />
      </p>
      <dl className="order-summary">
        <div>
          <dt>{t("orders.checkout.package")}</dt>
          <dd>
            {isUnnamedPackage(tier, pkg.name) ? "" : `${pkg.name}: `}
            {t("orders.checkout.packageLine", { tier: t(ORDER_TIER_KEY[tier]), days: pkg.deliveryDays, revisions: pkg.revisions })}
          </dd>
        </div>
        <div>
          <dt>{t("orders.checkout.price")}</dt>
          <dd>{money(pkg.priceUgx)}</dd>
        </div>
        <div>
          <dt>{t("orders.checkout.processingFee", { percent: number(feeRule.percent), min: ugx(feeRule.minUgx) })}</dt>
          <dd>{money(feeUgx)}</dd>
        </div>
        <div>
          <dt>{t("orders.checkout.total")}</dt>
          <dd>
            <strong>{money(totalUgx)}</strong>
          </dd>
        </div>
      </dl>
      {usd ? <p className="field-hint">{t("orders.checkout.usdNote", { rate: number(usd.ugxPerUsd) })}</p> : null}
      {refusal ? (
        <p className="notice" role="alert">
          {t(refusal)} <Link to={`/gig/${gig.id}`}>{t("orders.checkout.backToGig")}</Link>
        </p>
      ) : checkout ? (
        <CheckoutForm gigId={gig.id} tier={pkg.tier} totalUgx={totalUgx} checkout={checkout} />
      ) : (
        <p className="notice" role="alert">
          {t("orders.checkout.noPayments")} <Link to={`/gig/${gig.id}`}>{t("orders.checkout.backToGig")}</Link>
        </p>
      )}
    </section>
  );
}

type CheckoutValues = { msisdn: string; network: "mtn" | "airtel"; checkoutKey: string; constraint: FormConstraint; files: { max: number; mb: number } };
const checkoutSchema = () => import("~/schemas/order").then((m) => m.CheckoutSchema);

function CheckoutForm({ gigId, tier, totalUgx, checkout }: { gigId: number; tier: string; totalUgx: number; checkout: CheckoutValues }) {
  const reply = useActionData<typeof action>() as SubmissionResult<string[]> | undefined;
  // A light form (no Conform runtime with the page): its defaults are the loader's, until a reply sends back what was typed.
  const [form, fields] = useLightForm({ id: "checkout", lastResult: reply, constraint: checkout.constraint, schema: checkoutSchema });
  const typedNetwork = fields.network.initialValue;
  // Files are not part of the schema (they never come back in a reply): their messages are read from the reply.
  const fileErrors = (reply?.error as Record<string, string[] | null> | undefined)?.files ?? undefined;
  const { t } = useT();
  const { ugx } = usePreferences();
  return (
    <Form method="post" encType="multipart/form-data" className="form-card" {...form.props}>
      <ErrorList id={form.errorId} errors={form.errors} />
      <input type="hidden" name="gigId" value={gigId} />
      <input type="hidden" name="tier" value={tier} />
      <input type="hidden" name="checkoutKey" value={checkout.checkoutKey} />
      {/* Optional, so folded away: on a phone the payment and its button fit the first screen. Open when they come back with an error. */}
      <details className="checkout-extra" open={fields.requirements.errors?.length || fileErrors?.length ? true : undefined}>
        <summary>{t("orders.checkout.addRequirements")}</summary>
        <TextAreaField field={fields.requirements} label={t("orders.checkout.requirements")} hint={t("orders.checkout.requirementsHint")} rows={5} />
        <div className="field">
          <label htmlFor="checkout-files">{t("orders.files.optional")}</label>
          <p id="checkout-files-hint" className="field-hint">
            {t("orders.checkout.filesHint", { max: checkout.files.max, mb: checkout.files.mb, types: t("orders.files.types") })}
          </p>
          <input
            id="checkout-files"
            name="files"
            type="file"
            multiple
            aria-invalid={fileErrors?.length ? true : undefined}
            aria-describedby={fileErrors?.length ? "checkout-files-hint files-error" : "checkout-files-hint"}
          />
          <ErrorList id="files-error" errors={fileErrors} />
        </div>
      </details>
      <h2>{t("orders.checkout.payHeading")}</h2>
      <PayerFields
        msisdn={{
          id: fields.msisdn.id,
          name: fields.msisdn.name,
          initialValue: typeof fields.msisdn.initialValue === "string" ? fields.msisdn.initialValue : checkout.msisdn,
          errorId: fields.msisdn.errorId,
          errors: fields.msisdn.errors,
        }}
        network={{
          name: fields.network.name,
          initialValue: typedNetwork === "airtel" || typedNetwork === "mtn" ? typedNetwork : checkout.network,
          errorId: fields.network.errorId,
          errors: fields.network.errors,
        }}
      />
      <SubmitButton pendingLabel={t("orders.checkout.sending")}>{t("orders.checkout.pay", { total: ugx(totalUgx) })}</SubmitButton>
      <p className="field-hint checkout-escrow">{t("orders.checkout.escrowNote")}</p>
    </Form>
  );
}
