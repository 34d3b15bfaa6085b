import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, type LinksFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { formatMsisdn } from "~/components/checkout";
import { SubmitButton } from "~/components/forms";
import { getOrder } from "~/models/order.server";
import { getPaymentByReference } from "~/models/payment.server";
import { systemActor } from "~/operations/core.server";
import { settlePayment } from "~/operations/payments.server";
import { getProviders } from "~/payments/registry.server";
import { requireUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { requireLoopbackHost } from "~/server/host.server";
import { readFormData } from "~/server/form-data.server";
import { formatUgx } from "~/domain/money";
import { orderNumber } from "~/domain/order-rules";
import ordersStylesUrl from "~/styles/orders.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: ordersStylesUrl }];

export const meta: MetaFunction = () => [{ title: "Sandbox phone | Soko" }, { name: "robots", content: "noindex" }];

/**
 * The sandbox's phone prompt (ADR 015): where a person approves or declines a sandbox payment, as they would
 * on their phone. It exists only while the sandbox is in use, and only for the signed-in buyer of that
 * payment's order (anyone else, and any other reference, gets the same 404), so on an address others can
 * reach nobody approves somebody else's payment; and, like the mail outbox, only at a loopback name
 * (localhost, 127.0.0.1), never at a name another site could rebind to this machine (ADR 029). The
 * prompt's state is the sandbox's (in Redis); our order and payment change only through settlePayment,
 * which reads it back like any provider's answer.
 */
async function ownSandboxPayment(request: Request, reference: string | undefined) {
  requireLoopbackHost(request);
  const sandbox = getProviders().sandbox;
  if (!sandbox) throw new Response("Not Found", { status: 404 });
  const user = await requireUser(request);
  const db = getDb();
  const payment = await getPaymentByReference(db, reference ?? "");
  const order = payment?.provider === "sandbox" ? await getOrder(db, payment.orderId) : null;
  if (!payment || !order || order.buyerId !== user.id) throw new Response("Not Found", { status: 404 });
  const transfer = await sandbox.get(payment.reference);
  if (!transfer || transfer.kind !== "collection") throw new Response("Not Found", { status: 404 });
  return { sandbox, payment, order, transfer };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { payment, order, transfer } = await ownSandboxPayment(request, params.reference);
  return {
    orderId: order.id,
    orderNumber: orderNumber(order.id),
    amountUgx: transfer.amountUgx,
    msisdn: formatMsisdn(payment.msisdn),
    status: transfer.status,
  };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { sandbox, payment, order } = await ownSandboxPayment(request, params.reference);
  const intent = (await readFormData(request)).get("intent");
  if (intent !== "approve" && intent !== "decline") return data({ error: "Choose Approve or Decline." }, { status: 400 });
  // Answered once: a second answer (another tab, a resent form) finds the prompt closed and changes nothing.
  await sandbox.decide(payment.reference, intent);
  await settlePayment(systemActor("sandbox"), { reference: payment.reference });
  return redirect(`/orders/${order.id}/pay`);
}

const ANSWERED = {
  SUCCESSFUL: "You approved this payment.",
  FAILED: "You declined this payment.",
  WITHDRAWN: "This prompt was replaced by a newer one: nothing can be paid here.",
} as const;

export default function SandboxPhone() {
  const { orderId, orderNumber, amountUgx, msisdn, status } = useLoaderData<typeof loader>();
  return (
    <section className="container form-page" aria-labelledby="sandbox-title">
      <p className="sandbox-box">
        <strong>Sandbox: no real money moves.</strong> This page stands in for the payer&apos;s phone.
      </p>
      <div className="sandbox-phone">
        <h1 id="sandbox-title">Phone {msisdn}</h1>
        {status === "PENDING" ? (
          <>
            <p className="sandbox-prompt">
              Pay {formatUgx(amountUgx)} to Soko for order {orderNumber}?
            </p>
            <Form method="post" className="form-actions">
              <SubmitButton name="intent" value="approve" pendingLabel="Approving…">
                Approve
              </SubmitButton>
              <SubmitButton name="intent" value="decline" pendingLabel="Declining…">
                Decline
              </SubmitButton>
            </Form>
          </>
        ) : (
          <p role="status">{ANSWERED[status]}</p>
        )}
      </div>
      <p>
        <Link to={`/orders/${orderId}/pay`}>Back to the payment page</Link>
      </p>
    </section>
  );
}
