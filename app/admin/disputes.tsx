import { eventsIn } from "~/content/operation-messages";
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
import { pageMessages, requestT } from "~/i18n/messages.server";
import { requestLocale } from "~/i18n/locale.server";
import { metaI18n, T, useT } from "~/i18n/react";

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
export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.disputes.title") }, { name: "robots", content: "noindex" }];
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { adminName } = await adminScreenLoader(request);
  const actor = await requireMemberActor(request, context.clientIp);
  const db = getDb();
  const open = await listOpenDisputes(db);
  // Reading members' messages writes its audit rows: see readConversation for why this GET may.
  const chats = await readDisputeConversations(actor, { orderIds: open.map((d) => d.orderId) });
  if (!chats.ok) throw new Response((await requestT(request))("admin.disputes.forbidden"), { status: 403 });
  const disputes = await Promise.all(
    open.map(async (d) => {
      const [order, events, deliveries, files] = await Promise.all([
        getOrder(db, d.orderId),
        listOrderEvents(db, d.orderId).then(async (list) => eventsIn(list, await requestLocale(request))),
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
    resolved: await resolvedNotice(request, new URL(request.url).searchParams),
    // The decision form's checks in the browser; its schema loads once a form is used (app/hooks/use-schema-form.ts).
    constraint: getFormConstraint(ResolveDisputeSchema),
    ...(await pageMessages(request, ["admin"])),
  };
}

/** The pair's conversation as the screen shows it: each message with its sender's part in the order. */
function chatView(read: DisputeConversation | undefined, order: { buyerId: number; sellerId: number } | null) {
  if (!read) return null;
  const side = (id: number): Side => (id === order?.buyerId ? "buyer" : id === order?.sellerId ? "seller" : "member");
  return {
    count: read.conversation.messageCount,
    older: read.older,
    messages: read.messages.map((m) => ({
      id: m.id,
      side: side(m.sender.id),
      senderName: m.sender.name,
      body: m.body,
      offPlatform: m.offPlatform,
      at: m.at,
      attachments: m.attachments.map((a) => ({ id: a.id, fileName: a.fileName, sizeBytes: a.sizeBytes })),
    })),
  };
}

type Side = "buyer" | "seller" | "member";
/** A message's sender: their part in the order, then their name. */
const SENDER: Record<Side, string> = { buyer: "admin.disputes.senderBuyer", seller: "admin.disputes.senderSeller", member: "admin.disputes.senderMember" };

/** The confirmation after a resolution, checked against the stored outcome (a link cannot claim what did not happen). */
async function resolvedNotice(request: Request, params: URLSearchParams): Promise<string | null> {
  const resolution = params.get("resolution");
  if (!(RESOLUTIONS as readonly string[]).includes(resolution ?? "")) return null;
  const db = getDb();
  const order = await getOrder(db, Number(params.get("resolved")));
  const outcome = order ? await disputeOutcomeOf(db, order.id) : null;
  if (!order || outcome?.resolution !== resolution) return null;
  const t = await requestT(request);
  const locale = await requestLocale(request);
  const about = { number: orderNumber(order.id), gig: order.gigTitle };
  if (outcome.resolution === "release") return t("admin.disputes.resolvedRelease", about);
  if (outcome.resolution === "refund") return t("admin.disputes.resolvedRefund", about);
  return t("admin.disputes.resolvedSplit", { ...about, buyer: formatUgx(outcome.buyerUgx, locale), seller: formatUgx(outcome.sellerUgx, locale) });
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
    const failed = formFailure(submission.reply, result, { locale: await requestLocale(request) });
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
  const { t } = useT();
  return (
    <section className="container disputes" aria-labelledby="disputes-title">
      <h1 id="disputes-title">{t("admin.disputes.heading")}</h1>
      <FormMessage success={answer ? null : resolved} />
      <ErrorList errors={orphan ?? undefined} />
      {disputes.length === 0 ? (
        <p>{t("admin.disputes.none")}</p>
      ) : (
        <>
          <p>{t("admin.disputes.lead", { count: disputes.length })}</p>
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
  const { t } = useT();
  const titleId = `dispute-${d.id}`;
  return (
    <article className="dispute-card" aria-labelledby={titleId}>
      <h2 id={titleId}>
        {d.number} · {d.gigTitle}
      </h2>
      <dl className="dispute-facts">
        <div>
          <dt>{t("admin.disputes.buyer")}</dt>
          <dd>{d.buyerName}</dd>
        </div>
        <div>
          <dt>{t("admin.disputes.seller")}</dt>
          <dd>{d.sellerName}</dd>
        </div>
        <div>
          <dt>{t("admin.disputes.totalPaid")}</dt>
          <dd>{price(d.totalUgx)}</dd>
        </div>
        <div>
          <dt>{t("admin.disputes.opened")}</dt>
          <dd>
            <T
              id={d.openedByRole === "buyer" ? "admin.disputes.openedByBuyer" : "admin.disputes.openedBySeller"}
              values={{ name: d.openedByName, at: dateTime(d.createdAt) }}
              components={{ 0: <time dateTime={new Date(d.createdAt).toISOString()} /> }}
            />
          </dd>
        </div>
      </dl>
      <div className="dispute-sides">
        <div>
          <h3>{t("admin.disputes.why")}</h3>
          <blockquote className="dispute-reason">{d.reason}</blockquote>

          <h3>{t("admin.disputes.requirements")}</h3>
          <p className="pre-wrap">{d.requirements || t("admin.disputes.noRequirements")}</p>
          <FileNames files={d.requirementFiles} />

          <h3>{t("admin.disputes.deliveries")}</h3>
          {d.deliveries.length === 0 ? (
            <p>{t("admin.disputes.nothingDelivered")}</p>
          ) : (
            <ol className="plain-list" aria-label={t("admin.disputes.deliveriesOf", { number: d.number })}>
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

          <h3>{t("admin.disputes.timeline")}</h3>
          <ol className="plain-list" aria-label={t("admin.disputes.timelineOf", { number: d.number })}>
            {d.events.map((e) => (
              <li key={e.id}>
                <span>
                  {eventWords(t, e)}
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
  const { t } = useT();
  const chat = d.chat;
  const titleId = `dispute-${d.id}-chat`;
  return (
    <section className="dispute-chat" aria-labelledby={titleId}>
      {/* Named by its order too: every open dispute has one, and each landmark's name must be its own. */}
      <h3 id={titleId}>
        <T id="admin.disputes.chatHeading" values={{ number: orderNumber(d.orderId) }} components={{ 0: <span className="visually-hidden" /> }} />
      </h3>
      {!chat || chat.messages.length === 0 ? (
        <p>{t("admin.disputes.noChat")}</p>
      ) : (
        <>
          <p className="field-hint">
            {chat.older
              ? t("admin.disputes.chatLatest", { shown: chat.messages.length, count: chat.count })
              : t("admin.disputes.chatCount", { count: chat.count })}
          </p>
          <ol className="dispute-messages" aria-label={t("admin.disputes.chatOf", { number: d.number })}>
            {chat.messages.map((m) => (
              <li key={m.id}>
                <p className="dispute-message-head">
                  <strong>{t(SENDER[m.side], { name: m.senderName })}</strong> <time dateTime={m.at}>{dateTime(m.at)}</time>
                  {m.offPlatform ? <span> · {t("admin.disputes.offPlatform")}</span> : null}
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
  const { t } = useT();
  if (files.length === 0) return null;
  const names = files.map((f) => `${f.fileName} (${Math.max(1, Math.round(f.sizeBytes / 1024))} KB)`).join(", ");
  return <span className="field-hint"> {t("admin.disputes.files", { files: names })}</span>;
}

/** Who did it: their part, and with their name ("Buyer (Akello Joan)"); Soko for the system. */
const WHO: Record<OrderEvent["actorRole"], string> = {
  buyer: "admin.disputes.whoBuyer",
  seller: "admin.disputes.whoSeller",
  admin: "admin.disputes.whoAdmin",
  system: "admin.disputes.whoSystem",
};
const WHO_NAMED: Record<Exclude<OrderEvent["actorRole"], "system">, string> = {
  buyer: "admin.disputes.whoBuyerNamed",
  seller: "admin.disputes.whoSellerNamed",
  admin: "admin.disputes.whoAdminNamed",
};

const DID: Record<string, string> = {
  placed: "admin.disputes.didPlaced",
  paid: "admin.disputes.didPaid",
  payment_failed: "admin.disputes.didPaymentFailed",
  delivered: "admin.disputes.didDelivered",
  revision_requested: "admin.disputes.didRevisionRequested",
  approved: "admin.disputes.didApproved",
  auto_completed: "admin.disputes.didAutoCompleted",
  cancel_requested: "admin.disputes.didCancelRequested",
  cancel_withdrawn: "admin.disputes.didCancelWithdrawn",
  cancel_declined: "admin.disputes.didCancelDeclined",
  cancel_agreed: "admin.disputes.didCancelAgreed",
  cancelled: "admin.disputes.didCancelled",
  cancelled_late: "admin.disputes.didCancelledLate",
  dispute_opened: "admin.disputes.didDisputeOpened",
  dispute_released: "admin.disputes.didDisputeReleased",
  dispute_refunded: "admin.disputes.didDisputeRefunded",
  dispute_split: "admin.disputes.didDisputeSplit",
  cleared: "admin.disputes.didCleared",
  late_payment_refunded: "admin.disputes.didLatePaymentRefunded",
};

/** "Buyer (Akello Joan) asked for a revision": who did what, in plain words. */
function eventWords(t: ReturnType<typeof useT>["t"], e: OrderEvent): string {
  const who = e.actorName && e.actorRole !== "system" ? t(WHO_NAMED[e.actorRole], { name: e.actorName }) : t(WHO[e.actorRole]);
  const did = DID[e.kind];
  return t("admin.disputes.event", { who, did: did ? t(did) : e.kind.replace(/_/g, " ") });
}

const CHOICES: Record<Resolution, string> = {
  release: "admin.disputes.choiceRelease",
  refund: "admin.disputes.choiceRefund",
  split: "admin.disputes.choiceSplit",
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
  const { price, ugx } = usePreferences();
  const { t } = useT();
  const chosen = fields.resolution;
  return (
    <Form method="post" className="form-card resolve-form" {...getFormProps(form)}>
      <ErrorList id={form.errorId} errors={form.errors} />
      <input type="hidden" name="orderId" value={d.orderId} />
      <fieldset className="resolve-choice" aria-describedby={chosen.errors ? chosen.errorId : undefined}>
        <legend>{t("admin.disputes.decision")}</legend>
        {RESOLUTIONS.map((r) => (
          <label key={r}>
            <input {...getInputProps(chosen, { type: "radio", value: r })} key={r} />
            {t(CHOICES[r])}
          </label>
        ))}
        <ErrorList id={chosen.errorId} errors={chosen.errors} />
      </fieldset>
      <div className="resolve-split">
        <Field
          field={fields.refundUgx}
          label={t("admin.disputes.refundLabel")}
          hint={t("admin.disputes.refundHint", { price: price(d.priceUgx), max: ugx(d.priceUgx - 1) })}
          inputProps={{ inputMode: "numeric", autoComplete: "off" }}
        />
      </div>
      <TextAreaField field={fields.note} label={t("admin.disputes.reasonLabel")} rows={3} />
      <button type="submit" className="button" disabled={pending} aria-disabled={pending}>
        {pending ? t("admin.disputes.resolving") : t("admin.disputes.resolve")}
      </button>
    </Form>
  );
}
