import { getFormProps, parse, type SubmissionResult } from "@conform-to/react";
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
import { buyerFee, buyerFeeRule, feesFromEnv } from "~/domain/fees";
import { readFormData, readMultipartForm, UNREADABLE_FORM } from "~/server/form-data.server";
import { getFormConstraint, type FormConstraint } from "~/schemas/form-constraint";
import { useSchemaForm } from "~/hooks/use-schema-form";
import { TIER_LABEL } from "~/domain/catalog-vocabulary";
import { actionHeaders } from "~/utils/headers";
import { guessNetwork, resolveNetwork } from "~/domain/mobile-money";
import { formatPrice, formatUgx } from "~/domain/money";
import { formFailure } from "~/server/operation-results.server";
import { InvalidOrderFileError, MAX_ORDER_FILE_BYTES, MAX_ORDER_FILES, ORDER_FILE_TYPES_TEXT, storeOrderFiles } from "~/server/files/order-files.server";
import { CheckoutSchema } from "~/schemas/order";
import { refusalInit } from "~/server/files/upload-quota.server";
import { messageOf } from "~/content/operation-messages";
import ordersStylesUrl from "~/styles/orders.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: ordersStylesUrl }];

export const headers = actionHeaders;

export const meta: MetaFunction = () => [{ title: "Checkout | Soko" }];

const NO_PAYMENTS = "Paying for orders is not available right now, so this order cannot be placed. Nothing has been charged. Please try again later.";

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
    feeRule: buyerFeeRule(fees),
  };
  // Said plainly instead of a form that could only be refused.
  const refusal = gig.seller.id === user.id ? "You cannot order your own gig." : user.role === "admin" ? "Admins do not buy on Soko." : null;
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
          files: `Up to ${MAX_ORDER_FILES} files, ${MAX_ORDER_FILE_BYTES / 1024 / 1024} MB each: ${ORDER_FILE_TYPES_TEXT}.`,
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

const FILES_TOO_LARGE = `Files can be at most ${MAX_ORDER_FILE_BYTES / 1024 / 1024} MB each, and at most ${MAX_ORDER_FILES} of them.`;

export async function action({ request, params, context }: ActionFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const read = await readCheckoutForm(request);
  if (read === "too-large" || read === "malformed") {
    // The body was not read in full, so what was typed cannot be shown back: say what was wrong.
    const reply = parse(new FormData(), { resolve: () => ({ value: {} }) }).reply({ formErrors: [read === "too-large" ? FILES_TOO_LARGE : UNREADABLE_FORM] });
    return data(reply, { status: read === "too-large" ? 413 : 400 });
  }
  const { form, oversized } = read;
  // A browser sends an empty part for a file input left empty (its name differs by parser): nothing was attached.
  const files = form.getAll("files").filter((f): f is File => f instanceof File && f.size > 0);
  form.delete("files");
  // The amount is never read from the form: placeOrder prices the gig's package itself.
  const submission = parseWithZod(form, { schema: CheckoutSchema });
  if (oversized.length) {
    return data(submission.reply({ fieldErrors: { files: oversized.map((name) => `${name} is over ${MAX_ORDER_FILE_BYTES / 1024 / 1024} MB`) } }), {
      status: 413,
    });
  }
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  if (submission.value.gigId !== Number(params.id)) {
    return data(submission.reply({ formErrors: ["This form is for another gig. Please reload the page and try again."] }), { status: 400 });
  }
  let stored;
  try {
    const read = await Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) })));
    stored = await storeOrderFiles(read, { userId: actor.user.id });
  } catch (error) {
    if (!(error instanceof InvalidOrderFileError)) throw error;
    // A file we do not take (400), or over the buyer's upload quota (429 with Retry-After).
    return data(submission.reply({ fieldErrors: { files: [error.message] } }), refusalInit(error));
  }
  // Without JavaScript a radio left where the page drew it says nothing: the typed number's network is taken.
  const { msisdn, network } = submission.value;
  const offered = form.get(NETWORK_OFFERED);
  const payer = { msisdn, network: resolveNetwork(msisdn, network, typeof offered === "string" ? offered : null) };
  const result = await placeOrder(actor, { ...submission.value, ...payer, files: stored });
  if (!result.ok) {
    // Your own gig, or an admin: the reason beside the form rather than an error page.
    if (result.error === "forbidden") return data(submission.reply({ formErrors: [messageOf(result)] }), { status: 403 });
    return formFailure(submission.reply, result);
  }
  return redirect(`/orders/${result.value.orderId}/pay`, 303);
}

export default function Checkout() {
  const { gig, pkg, feeUgx, feeRule, refusal, checkout } = useLoaderData<typeof loader>();
  const currency = useRouteLoaderData<typeof rootLoader>("root")?.currency;
  const usd = currency?.code === "USD" && currency.ugxPerUsd > 0 ? currency : null;
  // Mobile money is paid in shillings; a visitor who reads USD sees both.
  const money = (ugx: number) => (usd ? `${formatUgx(ugx)} (${formatPrice(ugx, usd)})` : formatUgx(ugx));
  const totalUgx = pkg.priceUgx + feeUgx;
  return (
    <section className="container narrow checkout" aria-labelledby="checkout-title">
      <h1 id="checkout-title">Your order</h1>
      <p>
        <Link to={`/gig/${gig.id}`}>{gig.title}</Link> by {gig.seller}
      </p>
      <dl className="order-summary">
        <div>
          <dt>Package</dt>
          <dd>
            {pkg.name !== TIER_LABEL[pkg.tier] ? `${pkg.name}: ` : ""}
            {TIER_LABEL[pkg.tier]} · {pkg.deliveryDays} {pkg.deliveryDays === 1 ? "day" : "days"} delivery · {pkg.revisions}{" "}
            {pkg.revisions === 1 ? "revision" : "revisions"}
          </dd>
        </div>
        <div>
          <dt>Price</dt>
          <dd>{money(pkg.priceUgx)}</dd>
        </div>
        <div>
          <dt>Processing fee ({feeRule})</dt>
          <dd>{money(feeUgx)}</dd>
        </div>
        <div>
          <dt>Total</dt>
          <dd>
            <strong>{money(totalUgx)}</strong>
          </dd>
        </div>
      </dl>
      {usd ? (
        <p className="field-hint">
          USD at today&apos;s rate (UGX {usd.ugxPerUsd.toLocaleString("en-US")} per USD), which is fixed on the order when you place it. You pay in UGX.
        </p>
      ) : null}
      {refusal ? (
        <p className="notice" role="alert">
          {refusal} <Link to={`/gig/${gig.id}`}>Back to the gig</Link>
        </p>
      ) : checkout ? (
        <CheckoutForm gigId={gig.id} tier={pkg.tier} totalUgx={totalUgx} checkout={checkout} />
      ) : (
        <p className="notice" role="alert">
          {NO_PAYMENTS} <Link to={`/gig/${gig.id}`}>Back to the gig</Link>
        </p>
      )}
    </section>
  );
}

type CheckoutValues = { msisdn: string; network: "mtn" | "airtel"; checkoutKey: string; constraint: FormConstraint; files: string };
const checkoutSchema = () => import("~/schemas/order").then((m) => m.CheckoutSchema);

function CheckoutForm({ gigId, tier, totalUgx, checkout }: { gigId: number; tier: string; totalUgx: number; checkout: CheckoutValues }) {
  const reply = useActionData<typeof action>() as SubmissionResult<string[]> | undefined;
  const [form, fields] = useSchemaForm({
    id: "checkout",
    lastResult: reply,
    defaultValue: { requirements: "", msisdn: checkout.msisdn, network: checkout.network },
    constraint: checkout.constraint,
    schema: checkoutSchema,
  });
  const typedNetwork = fields.network.initialValue;
  // Files are not part of the schema (they never come back in a reply): their messages are read from the reply.
  const fileErrors = (reply?.error as Record<string, string[] | null> | undefined)?.files ?? undefined;
  return (
    <Form method="post" encType="multipart/form-data" className="form-card" {...getFormProps(form)}>
      <ErrorList id={form.errorId} errors={form.errors} />
      <input type="hidden" name="gigId" value={gigId} />
      <input type="hidden" name="tier" value={tier} />
      <input type="hidden" name="checkoutKey" value={checkout.checkoutKey} />
      {/* Optional, so folded away: on a phone the payment and its button fit the first screen. Open when they come back with an error. */}
      <details className="checkout-extra" open={fields.requirements.errors?.length || fileErrors?.length ? true : undefined}>
        <summary>Add requirements (optional)</summary>
        <TextAreaField
          field={fields.requirements}
          label="What should the seller know? (optional)"
          hint="Describe what you need; you can add files below."
          rows={5}
        />
        <div className="field">
          <label htmlFor="checkout-files">Files (optional)</label>
          <p id="checkout-files-hint" className="field-hint">
            {checkout.files}
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
      <h2>Pay by mobile money</h2>
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
      <SubmitButton pendingLabel="Sending to your phone…">Pay {formatUgx(totalUgx)}</SubmitButton>
      <p className="field-hint checkout-escrow">
        Nothing has been charged yet. When you pay, your phone asks you to approve the payment; the money is then held in escrow, and the seller is paid only
        when you approve the delivery.
      </p>
    </Form>
  );
}
