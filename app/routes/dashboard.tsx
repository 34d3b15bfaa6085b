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
import { LevelPanel } from "~/components/level-panel";
import { levelProgress } from "~/models/seller-stats.server";
import { listRecentActivity } from "~/models/activity.server";
import { listUnreadConversations } from "~/models/conversation.server";
import { listAttentionOrders } from "~/models/order.server";
import { listNotifications } from "~/models/notification.server";
import { markNotificationsRead } from "~/operations/notifications.server";
import { getDashboardStats, listOwnGigs, type StatName } from "~/models/dashboard.server";
import { memberBalances } from "~/models/ledger.server";
import { listPayouts, type PayoutRow } from "~/models/payment.server";
import { profileCompletion, type ProfilePart } from "~/models/profile.server";
import { getSettings } from "~/models/user.server";
import { requestWithdrawal } from "~/operations/payments.server";
import { requireMemberActor, requireUser } from "~/server/auth.server";
import { VerifyEmailNotice } from "~/components/verify-email-notice";
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
import type { Locale } from "~/i18n/locales";
import { ONE_DECIMAL } from "~/domain/seller-vocabulary";
import { requestLocale } from "~/i18n/locale.server";
import { failureIn } from "~/payments/failure-words.server";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: ordersStylesUrl }];

export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("dashboard.meta.title") }];
};

const DAY_MS = 24 * 60 * 60 * 1000;
const CLEARANCE_DAYS = Math.round(CLEARANCE_MS / DAY_MS);
/** A seller's order in progress is listed as needing attention from two days before it is due. */
const DUE_SOON_MS = 2 * DAY_MS;

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const db = getDb();
  const now = new Date();
  // The page's language: the notifications' stored notices are said in it too.
  const locale = await requestLocale(request);
  const [attention, unread, stats, gigs, activity, settings, balances, payouts, notifications] = await Promise.all([
    listAttentionOrders(db, user.id, new Date(now.getTime() + DUE_SOON_MS)),
    listUnreadConversations(db, user.id),
    getDashboardStats(db, user),
    user.role === "freelancer" ? listOwnGigs(db, user.id) : Promise.resolve([]),
    listRecentActivity(db, user.id),
    getSettings(db, user.id),
    memberBalances(db, user.id),
    listPayouts(db, user.id),
    listNotifications(db, user.id, 8, locale),
  ]);
  if (!settings) throw new Response("Not Found", { status: 404 });
  // A seller's level and what the next one needs (ADR 049); `member` is a client's, with no levels to earn.
  const levels = settings.role === "freelancer" && settings.level !== "member" ? await levelProgress(db, user.id, settings.level, now) : null;
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
    levels,
    unverifiedEmail: settings.emailVerifiedAt ? null : settings.email,
    notice: GIG_NOTICES[params.get("gig") ?? ""] ?? null,
    balances,
    payouts: payouts.map(({ id, kind, amountUgx, status, failureReason, failureSaid, createdAt, settledAt }) => ({
      id,
      kind,
      amountUgx,
      status,
      // Why it failed, in the reader's language (ADR 047), a payout from before keys too.
      failureReason: failureIn(failureReason, failureSaid, locale),
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
    withdrawn: withdrawn ? withdrawalMessage(await requestT(request), locale, withdrawn) : null,
    // The dashboard's words, and those of what it shows from other areas: the withdraw form's checks
    // (app/schemas/order.ts says them in `orders`), gigs (`catalog`) and the levels' names (`catalog.level`).
    ...(await pageMessages(request, ["dashboard", "orders.form", "orders.status", "catalog.level"])),
  };
}

function withdrawalMessage(t: Awaited<ReturnType<typeof requestT>>, locale: Locale, p: PayoutRow): string {
  const amount = formatUgx(p.amountUgx, locale);
  if (p.status === "paid") return t("dashboard.withdrawal.paid", { amount, number: formatMsisdn(p.msisdn) });
  if (p.status === "failed") {
    // The reason in the reader's language (the provider's own diagnosis stays in the table).
    const reason = failureIn(p.failureReason, p.failureSaid, locale);
    return reason ? t("dashboard.withdrawal.failedBecause", { amount, reason }) : t("dashboard.withdrawal.failed", { amount });
  }
  return t("dashboard.withdrawal.inTransit", { amount, number: formatMsisdn(p.msisdn) });
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
  if (formData.get("intent") !== "withdraw") throw new Response((await requestT(request))("dashboard.errors.badRequest"), { status: 400 });
  const submission = parseWithZod(formData, { schema: WithdrawSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await requestWithdrawal(actor, submission.value);
  if (!result.ok) return formFailure(submission.reply, result, { locale: await requestLocale(request) });
  return redirect(`/dashboard?payout=${result.value.reference}`, 303);
}

/** After the gig editor (`?gig=`): keys of what the dashboard says. */
const GIG_NOTICES: Record<string, string> = {
  published: "dashboard.notice.gigPublished",
  draft: "dashboard.notice.gigDraft",
  deleted: "dashboard.notice.gigDeleted",
};

const STATUS_LABEL = { draft: "dashboard.gigs.status.draft", published: "dashboard.gigs.status.published", paused: "dashboard.gigs.status.paused" } as const;

const PAYOUT_STATUS = {
  in_transit: "dashboard.payouts.status.inTransit",
  paid: "dashboard.payouts.status.paid",
  failed: "dashboard.payouts.status.failed",
} as const;

/** The figures' names, by their codes (app/models/dashboard.server.ts). */
const STAT_LABEL: Record<StatName, string> = {
  publishedGigs: "dashboard.stats.publishedGigs",
  activeOrders: "dashboard.stats.activeOrders",
  earnings: "dashboard.stats.earnings",
  rating: "dashboard.stats.rating",
  completedOrders: "dashboard.stats.completedOrders",
  totalSpent: "dashboard.stats.totalSpent",
  savedSellers: "dashboard.stats.savedSellers",
};

/** What the profile lacks, by its codes (app/models/profile.server.ts). */
const MISSING_LABEL: Record<ProfilePart, string> = {
  name: "dashboard.completion.name",
  photo: "dashboard.completion.photo",
  bio: "dashboard.completion.bio",
  location: "dashboard.completion.location",
  languages: "dashboard.completion.languages",
  skills: "dashboard.completion.skills",
  mobileMoney: "dashboard.completion.mobileMoney",
};

export default function Dashboard() {
  const { t } = useT();
  const d = useLoaderData<typeof loader>();
  const { price, dateTime, number } = usePreferences();
  const seller = d.role === "freelancer";
  return (
    <section className="container dashboard" aria-labelledby="dashboard-title">
      <h1 id="dashboard-title">{t("dashboard.welcome", { name: d.firstName })}</h1>
      {d.unverifiedEmail ? <VerifyEmailNotice email={d.unverifiedEmail} seller={seller} /> : null}
      {/* Only just after the member's own action (a gig saved, a withdrawal): its answer, then what waits. */}
      {d.notice ? (
        <p className="form-success" role="status">
          {t(d.notice)}
        </p>
      ) : null}
      {d.withdrawn ? (
        <p className="form-success" role="status">
          {d.withdrawn}
        </p>
      ) : null}
      <NeedsAttention orders={d.attention} messages={d.unread} />
      <p>{seller ? t("dashboard.intro.seller") : t("dashboard.intro.buyer")}</p>

      <ul className="stat-grid" aria-label={t("dashboard.stats.label")}>
        {d.stats.map((s) => (
          <li key={s.name} className="stat-card">
            <span className="stat-value">{s.kind === "money" ? price(s.value) : s.kind === "rating" ? number(s.value, ONE_DECIMAL) : s.value}</span>
            <span className="stat-label">{t(STAT_LABEL[s.name])}</span>
          </li>
        ))}
      </ul>

      <div className="dashboard-grid">
        <div>
          <h2>{t("dashboard.actions.title")}</h2>
          <div className="error-actions">
            {seller ? (
              <Link to="/gig/create" className="button">
                {t("dashboard.actions.createGig")}
              </Link>
            ) : (
              <Link to="/browse" className="button">
                {t("dashboard.actions.findFreelancers")}
              </Link>
            )}
            <Link to="/messages">{t("dashboard.actions.messages")}</Link>
            {seller ? null : <Link to="/freelancer/register">{t("dashboard.actions.startSelling")}</Link>}
          </div>

          {seller ? <BalancePanel /> : <RefundsPanel />}

          {seller ? (
            <>
              <h2>{t("dashboard.gigs.title")}</h2>
              {d.gigs.length === 0 ? (
                <p>
                  <T id="dashboard.gigs.empty" components={{ 0: <Link to="/gig/create" /> }} />
                </p>
              ) : (
                <ul className="plain-list" aria-label={t("dashboard.gigs.title")}>
                  {d.gigs.map((g) => (
                    <li key={g.id}>
                      <span>
                        {g.status === "published" ? <Link to={`/gig/${g.id}`}>{g.title}</Link> : g.title}{" "}
                        <span className="status-badge">{t(STATUS_LABEL[g.status])}</span>
                        {g.startingPriceUgx !== null ? <> · {t("dashboard.gigs.from", { price: price(g.startingPriceUgx) })}</> : null}
                      </span>
                      <Link to={`/gig/${g.id}/edit`} aria-label={t("dashboard.gigs.editLabel", { title: g.title })}>
                        {t("dashboard.gigs.edit")}
                      </Link>
                    </li>
                  ))}
                </ul>
              )}
            </>
          ) : null}

          <h2 id="updates">{t("dashboard.updates.title")}</h2>
          {d.notifications.length === 0 ? (
            <p>{t("dashboard.updates.empty")}</p>
          ) : (
            <>
              <ul className="plain-list notification-list" aria-label={t("dashboard.updates.label")}>
                {d.notifications.map((n) => {
                  const href = notificationHref(n);
                  return (
                    <li key={n.id} className={n.read ? undefined : "unread"}>
                      <span>
                        {n.read ? null : <span className="visually-hidden">{`${t("dashboard.updates.new")} `}</span>}
                        {href ? <Link to={href}>{n.body}</Link> : n.body}
                      </span>
                      <time dateTime={new Date(n.at).toISOString()}>{dateTime(n.at)}</time>
                    </li>
                  );
                })}
              </ul>
              <div className="error-actions">
                <Link to="/notifications">{t("dashboard.updates.all")}</Link>
                {d.notifications.some((n) => !n.read) ? (
                  <Form method="post" className="inline-form">
                    <button type="submit" name="intent" value="read_notifications" className="link-button">
                      {t("dashboard.updates.markAllRead")}
                    </button>
                  </Form>
                ) : null}
              </div>
            </>
          )}

          <h2>{t("dashboard.activity.title")}</h2>
          <ActivityList items={d.activity} />
        </div>

        <aside aria-labelledby="completion-title">
          {d.levels ? <LevelPanel progress={d.levels} /> : null}
          <h2 id="completion-title">{t("dashboard.completion.title")}</h2>
          <p>
            <T id="dashboard.completion.percent" values={{ percent: d.completion.percent }} components={{ 0: <strong /> }} />
          </p>
          <progress className="progress" max={100} value={d.completion.percent} aria-labelledby="completion-title" />
          {d.completion.missing.length ? (
            <>
              <p>{t("dashboard.completion.missing")}</p>
              <ul>
                {d.completion.missing.map((m) => (
                  <li key={m}>{t(MISSING_LABEL[m])}</li>
                ))}
              </ul>
              <p>
                <Link to="/settings">{t("dashboard.completion.complete")}</Link>
              </p>
            </>
          ) : (
            <p>{t("dashboard.completion.done")}</p>
          )}
          {seller ? (
            <p>
              <Link to={`/user/${d.username}`}>{t("dashboard.completion.publicProfile")}</Link>
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
  const { t } = useT();
  const d = useLoaderData<typeof loader>();
  const { price } = usePreferences();
  const withdrawals = d.payouts.filter((p) => p.kind === "withdrawal");
  return (
    <section aria-labelledby="balance-title" className="money-panel">
      <h2 id="balance-title">{t("dashboard.balance.title")}</h2>
      <dl className="balance-figures">
        <div>
          <dt>{t("dashboard.balance.pending")}</dt>
          <dd>{price(d.balances.pendingUgx)}</dd>
          <dd className="field-hint">{t("dashboard.balance.pendingHint", { days: CLEARANCE_DAYS })}</dd>
        </div>
        <div>
          <dt>{t("dashboard.balance.available")}</dt>
          <dd>{price(d.balances.availableUgx)}</dd>
        </div>
        <div>
          <dt>{t("dashboard.balance.inTransit")}</dt>
          <dd>{price(d.balances.inTransitUgx)}</dd>
          <dd className="field-hint">{t("dashboard.balance.inTransitHint")}</dd>
        </div>
      </dl>
      {/* A new key per rendered form: after a withdrawal the amount is the new balance again. */}
      <WithdrawForm key={d.requestKey} d={d} />
      <h3>{t("dashboard.payouts.title")}</h3>
      {withdrawals.length === 0 ? <p>{t("dashboard.payouts.empty")}</p> : <PayoutList payouts={withdrawals} label={t("dashboard.payouts.title")} />}
    </section>
  );
}

const withdrawSchema = () => import("~/schemas/order").then((m) => m.WithdrawSchema);

function WithdrawForm({ d }: { d: Loaded }) {
  const { t } = useT();
  const reply = useActionData<typeof action>();
  const { dateTime, ugx } = usePreferences();
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
          <T id="dashboard.withdraw.noNumber" components={{ 0: <Link to="/settings?tab=billing" /> }} />
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
          <T
            id="dashboard.withdraw.hold"
            values={{ number: maskMsisdn(d.payoutNumber), date: dateTime(d.payoutHoldUntil) }}
            components={{ 0: <Link to="/forgot-password" /> }}
          />
        </p>
      </>
    );
  }
  if (d.balances.availableUgx === 0 && !reply) {
    return <p>{t("dashboard.withdraw.nothing", { days: CLEARANCE_DAYS })}</p>;
  }
  const number = formatMsisdn(d.payoutNumber);
  return (
    <Form method="post" className="form-card withdraw-form" {...getFormProps(form)}>
      <h3>{t("dashboard.withdraw.title")}</h3>
      <ErrorList id={form.errorId} errors={form.errors} />
      <input type="hidden" name="requestKey" value={d.requestKey} />
      <Field
        field={fields.amountUgx}
        label={t("dashboard.withdraw.amount")}
        type="number"
        hint={
          <T
            id="dashboard.withdraw.hint"
            values={{ max: ugx(d.balances.availableUgx), min: ugx(d.minWithdrawalUgx), number }}
            components={{ 0: <Link to="/settings?tab=billing" /> }}
          />
        }
        inputProps={{ inputMode: "numeric", step: 1 }}
      />
      <SubmitButton name="intent" value="withdraw" pendingLabel={t("dashboard.withdraw.sending")}>
        {t("dashboard.withdraw.submit", { number })}
      </SubmitButton>
    </Form>
  );
}

/** A client's refunds, when there are any: money on its way back to them. */
function RefundsPanel() {
  const { t } = useT();
  const d = useLoaderData<typeof loader>();
  const { price } = usePreferences();
  const refunds = d.payouts.filter((p) => p.kind === "refund");
  if (refunds.length === 0 && d.balances.refundDueUgx === 0 && d.balances.inTransitUgx === 0) return null;
  return (
    <section aria-labelledby="refunds-title" className="money-panel">
      <h2 id="refunds-title">{t("dashboard.refunds.title")}</h2>
      {d.balances.inTransitUgx > 0 || d.balances.refundDueUgx > 0 ? (
        <p>
          <T id="dashboard.refunds.onItsWay" values={{ amount: price(d.balances.inTransitUgx + d.balances.refundDueUgx) }} components={{ 0: <strong /> }} />
        </p>
      ) : null}
      {refunds.length ? <PayoutList payouts={refunds} label={t("dashboard.refunds.label")} /> : null}
    </section>
  );
}

function PayoutList({ payouts, label }: { payouts: Loaded["payouts"]; label: string }) {
  const { t } = useT();
  const { price, dateTime } = usePreferences();
  return (
    <ul className="plain-list" aria-label={label}>
      {payouts.map((p) => (
        <li key={p.id}>
          <span>
            {price(p.amountUgx)} <span className={`status-badge payout-${p.status}`}>{t(PAYOUT_STATUS[p.status])}</span>
            {p.status === "failed" && p.failureReason ? <> · {p.failureReason}</> : null}
          </span>
          <time dateTime={new Date(p.createdAt).toISOString()}>{dateTime(p.createdAt)}</time>
        </li>
      ))}
    </ul>
  );
}
