import { getFormProps, getInputProps, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, type LinksFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { ErrorList, Field, FormMessage, TextAreaField } from "~/components/forms";
import { disputeOutcomeOf, listOpenDisputes } from "~/models/dispute.server";
import { getOrder, listDeliveries, listOrderEvents, listOrderFiles, type OrderEvent } from "~/models/order.server";
import { readDisputeConversations, type DisputeConversation } from "~/operations/admin-conversations.server";
import { resolveDispute } from "~/operations/disputes.server";
import { adminScreenLoader } from "~/server/admin-area.server";
import { requireMemberActor } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { getFormConstraint } from "~/schemas/form-constraint";
import { useSchemaForm } from "~/hooks/use-schema-form";
import { readFormData } from "~/server/form-data.server";
import { formFailure } from "~/server/operation-results.server";
import { DISPUTE_RESOLUTIONS as RESOLUTIONS, orderNumber, type DisputeResolution as Resolution } from "~/domain/order-rules";
import { ResolveDisputeSchema } from "~/schemas/order";
import { usePreferences } from "~/hooks/use-preferences";
import { formatUgx } from "~/domain/money";
import ordersStylesUrl from "~/styles/orders.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: ordersStylesUrl }];

/**
 * `/disputes` on the admin host, `/admin/disputes` on the main host (app/utils/site-routes.ts): the open
 * disputes, oldest first, each with both sides' words (the order's requirements, its deliveries and its
 * timeline, which holds revision reasons, cancel requests and the dispute's reason) and, beside them, what
 * the buyer and the seller wrote to each other (read on the record: each conversation shown is audited, as
 * message monitoring audits its reads), and the admin's decision (app/operations/disputes.server.ts, ADR 044):
 * release all to the seller, refund all to the buyer, or split the price, with a reason both parties read. The
 * split's amount field is always on the form (without JavaScript too) and is read only for a split.
 */
export const meta: MetaFunction = () => [{ title: "Disputes | Soko Admin" }, { name: "robots", content: "noindex" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { adminName } = await adminScreenLoader(request);
  const actor = await requireMemberActor(request, context.clientIp);
  const db = getDb();
  const open = await listOpenDisputes(db);
  // Reading members' messages writes its audit rows: see readConversation for why this GET may.
  const chats = await readDisputeConversations(actor, { orderIds: open.map((d) => d.orderId) });
  if (!chats.ok) throw new Response("Forbidden", { status: 403 });
  const disputes = await Promise.all(
    open.map(async (d) => {
      const [order, events, deliveries, files] = await Promise.all([
        getOrder(db, d.orderId),
        listOrderEvents(db, d.orderId),
        listDeliveries(db, d.orderId),
        listOrderFiles(db, d.orderId),
      ]);
      return {
        ...d,
        number: orderNumber(d.orderId),
        requirements: order?.requirements ?? "",
        events,
        deliveries: deliveries.map((delivery) => ({
          ...delivery,
          files: files.filter((f) => f.deliveryId === delivery.id).map((f) => ({ id: f.id, fileName: f.fileName, sizeBytes: f.sizeBytes })),
        })),
        requirementFiles: files.filter((f) => f.deliveryId === null).map((f) => ({ id: f.id, fileName: f.fileName, sizeBytes: f.sizeBytes })),
        chat: chatView(chats.value.get(d.orderId), order),
      };
    }),
  );
  return {
    adminName,
    disputes,
    resolved: await resolvedNotice(new URL(request.url).searchParams),
    // The decision form's checks in the browser; its schema loads once a form is used (app/hooks/use-schema-form.ts).
    constraint: getFormConstraint(ResolveDisputeSchema),
  };
}

/** The pair's conversation as the screen shows it: each message with its sender's part in the order. */
function chatView(read: DisputeConversation | undefined, order: { buyerId: number; sellerId: number } | null) {
  if (!read) return null;
  const side = (id: number) => (id === order?.buyerId ? "Buyer" : id === order?.sellerId ? "Seller" : "Member");
  return {
    count: read.conversation.messageCount,
    older: read.older,
    messages: read.messages.map((m) => ({
      id: m.id,
      sender: `${side(m.sender.id)} (${m.sender.name})`,
      body: m.body,
      offPlatform: m.offPlatform,
      at: m.at,
      attachments: m.attachments.map((a) => ({ id: a.id, fileName: a.fileName, sizeBytes: a.sizeBytes })),
    })),
  };
}

/** The confirmation after a resolution, checked against the stored outcome (a link cannot claim what did not happen). */
async function resolvedNotice(params: URLSearchParams): Promise<string | null> {
  const resolution = params.get("resolution");
  if (!(RESOLUTIONS as readonly string[]).includes(resolution ?? "")) return null;
  const db = getDb();
  const order = await getOrder(db, Number(params.get("resolved")));
  const outcome = order ? await disputeOutcomeOf(db, order.id) : null;
  if (!order || outcome?.resolution !== resolution) return null;
  const did =
    outcome.resolution === "release"
      ? "released the escrow to the seller"
      : outcome.resolution === "refund"
        ? "refunded the buyer"
        : `split the price: ${formatUgx(outcome.buyerUgx)} back to the buyer, ${formatUgx(outcome.sellerUgx)} to the seller after the fee`;
  return `Dispute over ${orderNumber(order.id)} (${order.gigTitle}) resolved: you ${did}. Both parties are told.`;
}

export async function action({ request, context }: ActionFunctionArgs) {
  // The screen's own rule first (admins only, as for GET), then the admin as the operation's actor.
  await adminScreenLoader(request);
  const actor = await requireMemberActor(request, context.clientIp);
  const formData = await readFormData(request);
  const form = { orderId: String(formData.get("orderId") ?? "") };
  const submission = parseWithZod(formData, { schema: ResolveDisputeSchema });
  if (submission.status !== "success") return data({ ...form, reply: submission.reply() }, { status: 400 });
  const result = await resolveDispute(actor, submission.value);
  if (!result.ok) {
    const failed = formFailure(submission.reply, result);
    return data({ ...form, reply: failed.data }, failed.init ?? undefined);
  }
  const { orderId, resolution } = submission.value;
  return redirect(`${new URL(request.url).pathname}?${new URLSearchParams({ resolved: String(orderId), resolution })}`, 303);
}

type Loaded = ReturnType<typeof useLoaderData<typeof loader>>;
type Dispute = Loaded["disputes"][number];

export default function AdminDisputes() {
  const { disputes, resolved } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  // A refusal no form on the page can show (another admin resolved that dispute first; a forged answer) is
  // shown at the top.
  const placed = answer && disputes.some((d) => String(d.orderId) === answer.orderId);
  const orphan = answer && !placed ? Object.values(answer.reply.error ?? {}).flatMap((errors) => errors ?? []) : undefined;
  return (
    <section className="container disputes" aria-labelledby="disputes-title">
      <h1 id="disputes-title">Disputes</h1>
      <FormMessage success={answer ? null : resolved} />
      <ErrorList errors={orphan ?? undefined} />
      {disputes.length === 0 ? (
        <p>No open disputes.</p>
      ) : (
        <>
          <p>
            {disputes.length === 1 ? "One open dispute" : `${disputes.length} open disputes`}, oldest first. Read both sides, then release all to the seller,
            refund all to the buyer, or split the price; your reason is shown to both of them.
          </p>
          {disputes.map((d) => (
            <DisputeCard key={d.id} d={d} />
          ))}
        </>
      )}
    </section>
  );
}

function DisputeCard({ d }: { d: Dispute }) {
  const { price, dateTime } = usePreferences();
  const titleId = `dispute-${d.id}`;
  return (
    <article className="dispute-card" aria-labelledby={titleId}>
      <h2 id={titleId}>
        {d.number} · {d.gigTitle}
      </h2>
      <dl className="dispute-facts">
        <div>
          <dt>Buyer</dt>
          <dd>{d.buyerName}</dd>
        </div>
        <div>
          <dt>Seller</dt>
          <dd>{d.sellerName}</dd>
        </div>
        <div>
          <dt>Total paid</dt>
          <dd>{price(d.totalUgx)}</dd>
        </div>
        <div>
          <dt>Opened</dt>
          <dd>
            by the {d.openedByRole} ({d.openedByName}), <time dateTime={new Date(d.createdAt).toISOString()}>{dateTime(d.createdAt)}</time>
          </dd>
        </div>
      </dl>
      <div className="dispute-sides">
        <div>
          <h3>Why</h3>
          <blockquote className="dispute-reason">{d.reason}</blockquote>

          <h3>What the buyer asked for</h3>
          <p className="pre-wrap">{d.requirements || "No requirements were given."}</p>
          <FileNames files={d.requirementFiles} />

          <h3>Deliveries</h3>
          {d.deliveries.length === 0 ? (
            <p>Nothing delivered.</p>
          ) : (
            <ol className="plain-list" aria-label={`Deliveries of ${d.number}`}>
              {d.deliveries.map((delivery) => (
                <li key={delivery.id}>
                  <span className="pre-wrap">
                    {delivery.message}
                    <FileNames files={delivery.files} />
                  </span>
                  <time dateTime={new Date(delivery.at).toISOString()}>{dateTime(delivery.at)}</time>
                </li>
              ))}
            </ol>
          )}

          <h3>Timeline</h3>
          <ol className="plain-list" aria-label={`Timeline of ${d.number}`}>
            {d.events.map((e) => (
              <li key={e.id}>
                <span>
                  {eventWords(e)}
                  {e.reason ? <>: “{e.reason}”</> : null}
                </span>
                <time dateTime={new Date(e.at).toISOString()}>{dateTime(e.at)}</time>
              </li>
            ))}
          </ol>
        </div>
        <DisputeChat d={d} />
      </div>

      <ResolveForm d={d} />
    </article>
  );
}

/** What the buyer and the seller wrote to each other, oldest first (the latest page of it), files named. */
function DisputeChat({ d }: { d: Dispute }) {
  const { dateTime } = usePreferences();
  const chat = d.chat;
  const titleId = `dispute-${d.id}-chat`;
  return (
    <section className="dispute-chat" aria-labelledby={titleId}>
      {/* Named by its order too: every open dispute has one, and each landmark's name must be its own. */}
      <h3 id={titleId}>
        Conversation between buyer and seller<span className="visually-hidden"> of {orderNumber(d.orderId)}</span>
      </h3>
      {!chat || chat.messages.length === 0 ? (
        <p>The buyer and the seller have not written to each other on Soko.</p>
      ) : (
        <>
          <p className="field-hint">
            {chat.older ? `The latest ${chat.messages.length} of ${chat.count} messages` : chat.count === 1 ? "1 message" : `${chat.count} messages`}, oldest
            first. Reading them is recorded in the audit log.
          </p>
          <ol className="dispute-messages" aria-label={`Conversation of ${d.number}`}>
            {chat.messages.map((m) => (
              <li key={m.id}>
                <p className="dispute-message-head">
                  <strong>{m.sender}</strong> <time dateTime={m.at}>{dateTime(m.at)}</time>
                  {m.offPlatform ? <span> · Off-platform payment talk</span> : null}
                </p>
                {m.body ? <p className="dispute-message-body">{m.body}</p> : null}
                {m.attachments.length ? <FileNames files={m.attachments} /> : null}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function FileNames({ files }: { files: { id: number; fileName: string; sizeBytes: number }[] }) {
  if (files.length === 0) return null;
  return <span className="field-hint"> Files: {files.map((f) => `${f.fileName} (${Math.max(1, Math.round(f.sizeBytes / 1024))} KB)`).join(", ")}</span>;
}

const WHO: Record<OrderEvent["actorRole"], string> = { buyer: "Buyer", seller: "Seller", admin: "Admin", system: "Soko" };

const DID: Record<string, string> = {
  placed: "placed the order",
  paid: "received the payment into escrow",
  payment_failed: "saw the payment fail",
  delivered: "delivered",
  revision_requested: "asked for a revision",
  approved: "approved the delivery",
  auto_completed: "completed the order automatically",
  cancel_requested: "asked to cancel",
  cancel_withdrawn: "withdrew the request to cancel",
  cancel_declined: "declined the request to cancel",
  cancel_agreed: "agreed to cancel",
  cancelled: "cancelled the order",
  cancelled_late: "cancelled the late order",
  dispute_opened: "opened the dispute",
  dispute_released: "resolved the dispute: released to the seller",
  dispute_refunded: "resolved the dispute: refunded the buyer",
  dispute_split: "resolved the dispute: split the price",
  cleared: "cleared the seller's earnings",
  late_payment_refunded: "refunded a late payment",
};

/** "Buyer (Akello Joan) asked for a revision": who did what, in plain words. */
function eventWords(e: OrderEvent): string {
  const who = e.actorName && e.actorRole !== "system" ? `${WHO[e.actorRole]} (${e.actorName})` : WHO[e.actorRole];
  return `${who} ${DID[e.kind] ?? e.kind.replace(/_/g, " ")}`;
}

const CHOICES: Record<Resolution, string> = {
  release: "Release all to the seller",
  refund: "Refund all to the buyer",
  split: "Split the price",
};

/** The decision: one of three outcomes, the buyer's refund for a split, and the reason both parties read. */
const resolveDisputeSchema = () => import("~/schemas/order").then((m) => m.ResolveDisputeSchema);

function ResolveForm({ d }: { d: Dispute }) {
  const { constraint } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const mine = answer && answer.orderId === String(d.orderId);
  const [form, fields] = useSchemaForm({
    id: `resolve-${d.orderId}`,
    lastResult: mine ? (answer.reply as SubmissionResult<string[]>) : undefined,
    constraint,
    schema: resolveDisputeSchema,
  });
  const navigation = useNavigation();
  const pending = navigation.state === "submitting" && navigation.formData?.get("orderId") === String(d.orderId);
  const { price } = usePreferences();
  const chosen = fields.resolution;
  return (
    <Form method="post" className="form-card resolve-form" {...getFormProps(form)}>
      <ErrorList id={form.errorId} errors={form.errors} />
      <input type="hidden" name="orderId" value={d.orderId} />
      <fieldset className="resolve-choice" aria-describedby={chosen.errors ? chosen.errorId : undefined}>
        <legend>Decision</legend>
        {RESOLUTIONS.map((r) => (
          <label key={r}>
            <input {...getInputProps(chosen, { type: "radio", value: r })} key={r} />
            {CHOICES[r]}
          </label>
        ))}
        <ErrorList id={chosen.errorId} errors={chosen.errors} />
      </fieldset>
      <div className="resolve-split">
        <Field
          field={fields.refundUgx}
          label="Buyer's refund for a split (UGX)"
          hint={`Part of the price (${price(d.priceUgx)}) back to the buyer, from 1 to ${formatUgx(d.priceUgx - 1)}; the rest goes to the seller. Each fee is shared the same way. Read only for a split.`}
          inputProps={{ inputMode: "numeric", autoComplete: "off" }}
        />
      </div>
      <TextAreaField field={fields.note} label="Reason (shown to the buyer and the seller)" rows={3} />
      <button type="submit" className="button" disabled={pending} aria-disabled={pending}>
        {pending ? "Resolving…" : "Resolve dispute"}
      </button>
    </Form>
  );
}
