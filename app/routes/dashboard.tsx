import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, type LinksFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { randomBytes } from "node:crypto";
import { ErrorList, Field, SubmitButton } from "~/components/forms";
import { notificationHref } from "~/components/notification-list";
import { SignOutButton } from "~/components/site-header";
import { ActivityList } from "~/components/activity-list";
import { NeedsAttention } from "~/components/needs-attention";
import { listRecentActivity } from "~/models/activity.server";
import { listUnreadConversations } from "~/models/conversation.server";
import { listAttentionOrders } from "~/models/order.server";
import { listNotifications } from "~/models/notification.server";
import { markNotificationsRead } from "~/operations/notifications.server";
import { getDashboardStats, listOwnGigs } from "~/models/dashboard.server";
import { memberBalances } from "~/models/ledger.server";
import { listPayouts, type PayoutRow } from "~/models/payment.server";
import { profileCompletion } from "~/models/profile.server";
import { getSettings } from "~/models/user.server";
import { requestWithdrawal } from "~/operations/payments.server";
import { requireMemberActor, requireUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { getEnv } from "~/server/env.server";
import { getFormConstraint } from "~/schemas/form-constraint";
import { useSchemaForm } from "~/hooks/use-schema-form";
import { readFormData } from "~/server/form-data.server";
import { formatUgx } from "~/domain/money";
import { formFailure } from "~/server/operation-results.server";
import { maskMsisdn, payoutHoldUntil } from "~/domain/mobile-money";
import { AUTO_COMPLETE_MS, CLEARANCE_MS } from "~/domain/order-rules";
import { WithdrawSchema } from "~/schemas/order";
import { usePreferences } from "~/hooks/use-preferences";
import ordersStylesUrl from "~/styles/orders.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: ordersStylesUrl }];

export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction = () => [{ title: "Dashboard | Soko" }];

const DAY_MS = 24 * 60 * 60 * 1000;
const CLEARANCE_DAYS = Math.round(CLEARANCE_MS / DAY_MS);
/** A seller's order in progress is listed as needing attention from two days before it is due. */
const DUE_SOON_MS = 2 * DAY_MS;

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const db = getDb();
  const now = new Date();
  const [attention, unread, stats, gigs, activity, settings, balances, payouts, notifications] = await Promise.all([
    listAttentionOrders(db, user.id, new Date(now.getTime() + DUE_SOON_MS)),
    listUnreadConversations(db, user.id),
    getDashboardStats(db, user),
    user.role === "freelancer" ? listOwnGigs(db, user.id) : Promise.resolve([]),
    listRecentActivity(db, user.id),
    getSettings(db, user.id),
    memberBalances(db, user.id),
    listPayouts(db, user.id),
    listNotifications(db, user.id, 8),
  ]);
  if (!settings) throw new Response("Not Found", { status: 404 });
  const params = new URL(request.url).searchParams;
  // The confirmation names the payout by its reference and is read back from the member's own payouts, so
  // a link cannot make the page claim a withdrawal that did not happen.
  const withdrawn = payouts.find((p) => p.kind === "withdrawal" && p.reference === params.get("payout")) ?? null;
  return {
    firstName: user.name.split(/\s+/)[0] ?? user.name,
    role: user.role,
    attention: attention.map((o) => ({
      ...o,
      completesAt: o.need === "approve" && o.deliveredAt ? new Date(o.deliveredAt.getTime() + AUTO_COMPLETE_MS) : null,
      late: o.need === "deliver" && o.dueAt !== null && o.dueAt.getTime() < now.getTime(),
    })),
    unread,
    username: user.username,
    stats,
    gigs,
    activity,
    notifications,
    completion: profileCompletion(settings),
    notice: GIG_NOTICES[params.get("gig") ?? ""] ?? null,
    balances,
    payouts: payouts.map(({ id, kind, amountUgx, status, failureReason, createdAt, settledAt }) => ({
      id,
      kind,
      amountUgx,
      status,
      failureReason,
      createdAt,
      settledAt,
    })),
    payoutNumber: settings.mobileMoneyNumber,
    // A newly set payout number waits 24 hours before withdrawals to it (ADR 032): the panel says until when.
    payoutHoldUntil: payoutHoldUntil(settings.payoutNumberSetAt),
    minWithdrawalUgx: getEnv().PAYOUT_MIN_UGX,
    // A new key for every form rendered: the same form sent twice is one payout, a new form a new one.
    requestKey: randomBytes(16).toString("base64url"),
    // The withdraw form's checks in the browser; its schema loads once the form is used (app/hooks/use-schema-form.ts).
    withdrawConstraint: getFormConstraint(WithdrawSchema),
    withdrawn: withdrawn ? withdrawalMessage(withdrawn) : null,
  };
}

function withdrawalMessage(p: PayoutRow): string {
  const amount = formatUgx(p.amountUgx);
  if (p.status === "paid") return `Your withdrawal of ${amount} was paid to ${formatMsisdn(p.msisdn)}.`;
  if (p.status === "failed")
    return `Your withdrawal of ${amount} did not go through${p.failureReason ? `: ${p.failureReason}` : ""}. The money is back in your available balance.`;
  return `Your withdrawal of ${amount} is on its way to ${formatMsisdn(p.msisdn)}.`;
}

/** `+256772123456` → `+256 772 123 456`, as people read a number. */
function formatMsisdn(msisdn: string): string {
  const m = /^\+256(\d{3})(\d{3})(\d{3})$/.exec(msisdn);
  return m ? `+256 ${m[1]} ${m[2]} ${m[3]}` : msisdn;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const formData = await readFormData(request);
  if (formData.get("intent") === "read_notifications") {
    const marked = await markNotificationsRead(actor);
    if (!marked.ok) throw new Response("Forbidden", { status: 403 });
    return redirect("/dashboard#updates", 303);
  }
  if (formData.get("intent") !== "withdraw") throw new Response("Bad Request", { status: 400 });
  const submission = parseWithZod(formData, { schema: WithdrawSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await requestWithdrawal(actor, submission.value);
  if (!result.ok) return formFailure(submission.reply, result);
  return redirect(`/dashboard?payout=${result.value.reference}`, 303);
}

const GIG_NOTICES: Record<string, string> = {
  published: "Your gig is published: buyers can find it now.",
  draft: "Your gig is saved as a draft. Only you can see it.",
  deleted: "Your gig is deleted.",
};

const STATUS_LABEL = { draft: "Draft", published: "Published", paused: "Paused" } as const;

const PAYOUT_STATUS = { in_transit: "In transit", paid: "Paid", failed: "Failed" } as const;

export default function Dashboard() {
  const d = useLoaderData<typeof loader>();
  const { price, dateTime } = usePreferences();
  const seller = d.role === "freelancer";
  return (
    <section className="container dashboard" aria-labelledby="dashboard-title">
      <h1 id="dashboard-title">Welcome back, {d.firstName}!</h1>
      {/* Only just after the member's own action (a gig saved, a withdrawal): its answer, then what waits. */}
      {d.notice ? (
        <p className="form-success" role="status">
          {d.notice}
        </p>
      ) : null}
      {d.withdrawn ? (
        <p className="form-success" role="status">
          {d.withdrawn}
        </p>
      ) : null}
      <NeedsAttention orders={d.attention} messages={d.unread} />
      <p>{seller ? "Manage your gigs, orders and earnings in one place." : "Find skilled Ugandan freelancers and keep track of your orders."}</p>

      <ul className="stat-grid" aria-label="Your numbers">
        {d.stats.map((s) => (
          <li key={s.label} className="stat-card">
            <span className="stat-value">{s.kind === "money" ? price(s.value) : s.kind === "rating" ? s.value.toFixed(1) : s.value}</span>
            <span className="stat-label">{s.label}</span>
          </li>
        ))}
      </ul>

      <div className="dashboard-grid">
        <div>
          <h2>Quick actions</h2>
          <div className="error-actions">
            {seller ? (
              <Link to="/gig/create" className="button">
                Create a gig
              </Link>
            ) : (
              <Link to="/browse" className="button">
                Find freelancers
              </Link>
            )}
            <Link to="/messages">Messages</Link>
            {seller ? null : <Link to="/freelancer/register">Start selling</Link>}
          </div>

          {seller ? <BalancePanel /> : <RefundsPanel />}

          {seller ? (
            <>
              <h2>Your gigs</h2>
              {d.gigs.length === 0 ? (
                <p>
                  You have no gigs yet. <Link to="/gig/create">Create your first gig</Link> to start selling.
                </p>
              ) : (
                <ul className="plain-list" aria-label="Your gigs">
                  {d.gigs.map((g) => (
                    <li key={g.id}>
                      <span>
                        {g.status === "published" ? <Link to={`/gig/${g.id}`}>{g.title}</Link> : g.title}{" "}
                        <span className="status-badge">{STATUS_LABEL[g.status]}</span>
                        {g.startingPriceUgx !== null ? <> · From {price(g.startingPriceUgx)}</> : null}
                      </span>
                      <Link to={`/gig/${g.id}/edit`} aria-label={`Edit ${g.title}`}>
                        Edit
                      </Link>
                    </li>
                  ))}
                </ul>
              )}
            </>
          ) : null}

          <h2 id="updates">Notifications</h2>
          {d.notifications.length === 0 ? (
            <p>No notifications yet.</p>
          ) : (
            <>
              <ul className="plain-list notification-list" aria-label="Latest notifications">
                {d.notifications.map((n) => {
                  const href = notificationHref(n);
                  return (
                    <li key={n.id} className={n.read ? undefined : "unread"}>
                      <span>
                        {n.read ? null : <span className="visually-hidden">New: </span>}
                        {href ? <Link to={href}>{n.body}</Link> : n.body}
                      </span>
                      <time dateTime={new Date(n.at).toISOString()}>{dateTime(n.at)}</time>
                    </li>
                  );
                })}
              </ul>
              <div className="error-actions">
                <Link to="/notifications">All notifications</Link>
                {d.notifications.some((n) => !n.read) ? (
                  <Form method="post" className="inline-form">
                    <button type="submit" name="intent" value="read_notifications" className="link-button">
                      Mark all as read
                    </button>
                  </Form>
                ) : null}
              </div>
            </>
          )}

          <h2>Recent activity</h2>
          <ActivityList items={d.activity} />
        </div>

        <aside aria-labelledby="completion-title">
          <h2 id="completion-title">Profile completion</h2>
          <p>
            <strong>{d.completion.percent}%</strong> complete
          </p>
          <progress className="progress" max={100} value={d.completion.percent} aria-labelledby="completion-title" />
          {d.completion.missing.length ? (
            <>
              <p>Still missing:</p>
              <ul>
                {d.completion.missing.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
              <p>
                <Link to="/settings">Complete your profile</Link>
              </p>
            </>
          ) : (
            <p>Your profile is complete.</p>
          )}
          {seller ? (
            <p>
              <Link to={`/user/${d.username}`}>View your public profile</Link>
            </p>
          ) : null}
          <SignOutButton />
        </aside>
      </div>
    </section>
  );
}

type Loaded = ReturnType<typeof useLoaderData<typeof loader>>;

/** A seller's money: what waits for clearance, what they can withdraw (and the form to do it), what is on its way. */
function BalancePanel() {
  const d = useLoaderData<typeof loader>();
  const { price } = usePreferences();
  const withdrawals = d.payouts.filter((p) => p.kind === "withdrawal");
  return (
    <section aria-labelledby="balance-title" className="money-panel">
      <h2 id="balance-title">Balance</h2>
      <dl className="balance-figures">
        <div>
          <dt>Pending clearance</dt>
          <dd>{price(d.balances.pendingUgx)}</dd>
          <dd className="field-hint">Available {CLEARANCE_DAYS} days after an order completes</dd>
        </div>
        <div>
          <dt>Available to withdraw</dt>
          <dd>{price(d.balances.availableUgx)}</dd>
        </div>
        <div>
          <dt>In transit</dt>
          <dd>{price(d.balances.inTransitUgx)}</dd>
          <dd className="field-hint">Payouts on their way to you</dd>
        </div>
      </dl>
      {/* A new key per rendered form: after a withdrawal the amount is the new balance again. */}
      <WithdrawForm key={d.requestKey} d={d} />
      <h3>Recent payouts</h3>
      {withdrawals.length === 0 ? <p>No payouts yet.</p> : <PayoutList payouts={withdrawals} label="Recent payouts" />}
    </section>
  );
}

const withdrawSchema = () => import("~/schemas/order").then((m) => m.WithdrawSchema);

function WithdrawForm({ d }: { d: Loaded }) {
  const reply = useActionData<typeof action>();
  const { dateTime } = usePreferences();
  const [form, fields] = useSchemaForm({
    id: "withdraw",
    lastResult: reply,
    defaultValue: { amountUgx: String(d.balances.availableUgx) },
    constraint: d.withdrawConstraint,
    schema: withdrawSchema,
  });
  if (!d.payoutNumber) {
    return (
      <>
        <ErrorList id={form.errorId} errors={form.errors} />
        <p className="notice" role="note">
          To withdraw, add the mobile-money number your earnings should go to in <Link to="/settings?tab=billing">Settings → Billing</Link>.
        </p>
      </>
    );
  }
  if (d.payoutHoldUntil) {
    // The balance stays available; only sending it waits, so there is no form to send until then.
    return (
      <>
        <ErrorList id={form.errorId} errors={form.errors} />
        <p className="notice" role="note">
          Withdrawals to {maskMsisdn(d.payoutNumber)} open on {dateTime(d.payoutHoldUntil)}. A new payout number waits 24 hours, to keep your earnings safe. Not
          your change? <Link to="/forgot-password">Reset your password</Link> now.
        </p>
      </>
    );
  }
  if (d.balances.availableUgx === 0 && !reply) {
    return <p>Nothing to withdraw yet: earnings become available {CLEARANCE_DAYS} days after an order completes.</p>;
  }
  const number = formatMsisdn(d.payoutNumber);
  return (
    <Form method="post" className="form-card withdraw-form" {...getFormProps(form)}>
      <h3>Withdraw</h3>
      <ErrorList id={form.errorId} errors={form.errors} />
      <input type="hidden" name="requestKey" value={d.requestKey} />
      <Field
        field={fields.amountUgx}
        label="Amount (UGX)"
        type="number"
        hint={
          <>
            Up to {formatUgx(d.balances.availableUgx)}; at least {formatUgx(d.minWithdrawalUgx)}. It goes to your mobile-money number {number} (
            <Link to="/settings?tab=billing">change it in Settings → Billing</Link>).
          </>
        }
        inputProps={{ inputMode: "numeric", step: 1 }}
      />
      <SubmitButton name="intent" value="withdraw" pendingLabel="Sending…">
        Withdraw to {number}
      </SubmitButton>
    </Form>
  );
}

/** A client's refunds, when there are any: money on its way back to them. */
function RefundsPanel() {
  const d = useLoaderData<typeof loader>();
  const { price } = usePreferences();
  const refunds = d.payouts.filter((p) => p.kind === "refund");
  if (refunds.length === 0 && d.balances.refundDueUgx === 0 && d.balances.inTransitUgx === 0) return null;
  return (
    <section aria-labelledby="refunds-title" className="money-panel">
      <h2 id="refunds-title">Refunds</h2>
      {d.balances.inTransitUgx > 0 || d.balances.refundDueUgx > 0 ? (
        <p>
          <strong>{price(d.balances.inTransitUgx + d.balances.refundDueUgx)}</strong> is on its way back to your mobile-money number.
        </p>
      ) : null}
      {refunds.length ? <PayoutList payouts={refunds} label="Your refunds" /> : null}
    </section>
  );
}

function PayoutList({ payouts, label }: { payouts: Loaded["payouts"]; label: string }) {
  const { price, dateTime } = usePreferences();
  return (
    <ul className="plain-list" aria-label={label}>
      {payouts.map((p) => (
        <li key={p.id}>
          <span>
            {price(p.amountUgx)} <span className={`status-badge payout-${p.status}`}>{PAYOUT_STATUS[p.status]}</span>
            {p.status === "failed" && p.failureReason ? <> · {p.failureReason}</> : null}
          </span>
          <time dateTime={new Date(p.createdAt).toISOString()}>{dateTime(p.createdAt)}</time>
        </li>
      ))}
    </ul>
  );
}
