/**
 * The admin's figures (ADR 017, ADR 018, ADR 041): the dashboard, the analytics reports of a range and real
 * time, read by the same readers as the admin screens (app/models/admin-dashboard.server.ts,
 * app/analytics/reports.server.ts), so a screen and a call show the same figures; the heatmap, funnel, a
 * member's figures and the export are admin-insights.server.ts's. Ranges are 1d, 7d, 30d or 90d, each call's
 * default the screen's. While ClickHouse cannot answer, a report is 503 with Retry-After (the dashboard alone
 * answers its business figures and `behaviour: null`, as its screen does). Reading figures is not audited:
 * the screens do not audit it.
 */
import { msg } from "~/i18n/message-key";
import { z } from "zod";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { RANGES, type Range } from "~/analytics/events";
import { readOrFailure } from "~/analytics/insights.server";
import { activeUsers, conversions, pageViews, periodWindow, realTime, referrers, sessionReport, traffic } from "~/analytics/reports.server";
import { businessFigures, recentActivity } from "~/models/admin-dashboard.server";
import { ADMIN_ACTIVITY_KEY, sayActivity } from "~/domain/activity";
import { sayIn } from "~/content/operation-messages";
import { ok, type Failure, type Result } from "~/operations/core.server";
import { currentUsdRate } from "~/operations/exchange-rates.server";
import { getDb } from "~/server/db.server";
import { call } from "../route.server";
import { Iso, iso, Money, moneyOf } from "../shapes";
import { log } from "~/server/log.server";

const RANGE_NAMES = Object.keys(RANGES) as [Range, ...Range[]];

/** `range`: 1d, 7d, 30d or 90d; `fallback` when absent or empty. */
export const rangeOf = (fallback: Range) =>
  z
    .preprocess(
      (v) => (v === "" ? undefined : v),
      z.enum(RANGE_NAMES, { errorMap: () => ({ message: msg("api.analytics.range", { values: RANGE_NAMES.join(", ") }) }) }).default(fallback),
    )
    .describe(`The last 1, 7, 30 or 90 days (${fallback} by default), to the start of that hour.`);

const RETRY_SECONDS = 60;

/** ClickHouse could not answer: 503 with Retry-After, as the door answers when a service it needs is away. */
export const unavailable = (): Failure => ({
  ok: false,
  error: "limited",
  status: 503,
  retryAfter: RETRY_SECONDS,
  code: "limit.unavailable",
  params: { retryAfter: RETRY_SECONDS },
});

/** A ClickHouse read as a Result: the screen's message goes to the log, the caller gets 503. */
export async function fromAnalytics<T>(read: () => Promise<T>, message: string): Promise<Result<T>> {
  const answer = await readOrFailure(read(), message);
  return answer.ok ? ok(answer.value) : unavailable();
}

export const count = () => z.number().int();
/** A share of a whole, 0 to 1. */
export const share = () => z.number().min(0).max(1);
/** A share of a whole in percent, one decimal. */
export const percent = () => z.number().describe("Percent of the whole, one decimal.");
export const Window = { range: z.enum(RANGE_NAMES), from: Iso.describe("Events after this time…"), to: Iso.describe("…up to and including this one.") };

export function windowOf(range: Range, now: Date) {
  const w = periodWindow(range, now);
  return { range, from: iso(new Date(w.from * 1000)), to: iso(new Date(w.to * 1000)) };
}

const CountryRow = z.object({ country: z.string(), sessions: count(), percentage: percent() });
export const DeviceRow = z.object({ device: z.string(), sessions: count(), percentage: percent() });
const ShareRow = z.object({ name: z.string(), sessions: count(), percentage: percent() });
const Conversions = z.object({
  signups: count(),
  orders: count().describe("Orders placed, as the server recorded them."),
  revenue: Money.describe("What the orders placed are worth."),
  conversionRate: share().describe("Share of sessions that signed up, placed an order or published a gig."),
});

type Rate = number | null;
const rate = async (): Promise<Rate> => (await currentUsdRate(getDb()))?.ugxPerUsd ?? null;

const countriesOf = (rows: { country: string; users: number; percentage: number }[]) =>
  rows.map((c) => ({ country: c.country, sessions: c.users, percentage: c.percentage }));
const devicesOf = (rows: { device: string; count: number; percentage: number }[]) =>
  rows.map((d) => ({ device: d.device, sessions: d.count, percentage: d.percentage }));
const sharesOf = (rows: { name: string; count: number; percentage: number }[]) =>
  rows.map((r) => ({ name: r.name, sessions: r.count, percentage: r.percentage }));
const conversionsOf = (c: { signups: number; orders: number; revenue: number; conversionRate: number }, usd: Rate) => ({
  signups: c.signups,
  orders: c.orders,
  revenue: moneyOf(c.revenue, usd),
  conversionRate: c.conversionRate,
});

// ---------------------------------------------------------------------------------------------------------
// The dashboard.

const Dashboard = z.object({
  at: Iso,
  business: z.object({
    newSignupsToday: count().describe("Since midnight in Kampala."),
    ordersToday: count().describe("Orders paid into escrow today."),
    orderValueToday: Money.describe("What buyers paid for today's orders: price plus the buyer's fee."),
    revenueToday: Money.describe("Soko's fees credited today (released orders)."),
    totalUsers: count(),
    totalOrders: count(),
    totalRevenue: Money,
    totalGigs: count().describe("Published gigs."),
  }),
  recentActivity: z.array(
    z.object({
      id: z.number().int(),
      member: z.string(),
      kind: z.string().describe("What kind of activity: joined, signed_in, gig_published, order_placed…"),
      action: z.string().describe("What the member did, in the answer's language."),
      at: Iso,
    }),
  ),
  behaviour: z
    .object({
      activeUsers: count().describe("Sessions seen in the last 5 minutes."),
      conversionRate: share().describe("Of the last 7 days' sessions."),
      topCountries: z.array(CountryRow),
      devices: z.array(DeviceRow),
    })
    .nullable()
    .describe("From the analytics store; null while it cannot answer (the business figures are still current)."),
});

async function readBehaviour(now: Date) {
  const client = getClickHouse();
  try {
    const [active, sessions] = await Promise.all([activeUsers(client, { now }), sessionReport(client, "7d", { now })]);
    return {
      activeUsers: active,
      conversionRate: sessions.conversionRate,
      topCountries: countriesOf(sessions.countries),
      devices: devicesOf(sessions.activity.devices),
    };
  } catch (error) {
    log.error({ err: error }, "[api] admin dashboard: analytics unavailable");
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Real time.

const RealTime = z.object({
  at: Iso,
  activeUsers: count().describe("Sessions seen in the last 5 minutes."),
  currentPages: z.array(z.object({ page: z.string(), sessions: count() })).describe("Pages viewed in the last 5 minutes, most first (at most 10)."),
  recentActions: z
    .array(
      z.object({
        member: z.object({ id: z.number().int(), name: z.string() }).nullable().describe("null for a visitor."),
        sessionId: z.string(),
        action: z.string(),
        page: z.string(),
        at: Iso,
      }),
    )
    .describe("The latest clicks, form submits and focuses, and what members did on the server, newest first (at most 10)."),
});

async function readRealTime(): Promise<z.input<typeof RealTime>> {
  const now = new Date();
  const live = await realTime(getClickHouse(), { now });
  const ids = [...new Set(live.recentActions.map((a) => a.userId).filter((id) => id > 0))];
  const names = new Map<number, string>();
  if (ids.length > 0) for (const u of await getDb()("users").whereIn("id", ids).select("id", "name")) names.set(Number(u.id), u.name);
  return {
    at: iso(now),
    activeUsers: live.activeUsers,
    currentPages: live.currentPages.map((p) => ({ page: p.page, sessions: p.users })),
    recentActions: live.recentActions.map((a) => ({
      member: a.userId > 0 ? { id: a.userId, name: names.get(a.userId) ?? `Member ${a.userId}` } : null,
      sessionId: a.sessionId,
      action: a.action,
      page: a.page,
      at: iso(new Date(a.at * 1000)),
    })),
  };
}

const realTimeCall = (path: string, operationId: string, summary: string) =>
  call({
    method: "get",
    path,
    operationId,
    summary,
    description: "The last 5 minutes: active sessions, the pages being viewed and the latest actions. Poll it every 10 seconds at most.",
    tag: "Admin",
    access: "admin",
    response: RealTime,
    handle: () => fromAnalytics(readRealTime, "Failed to fetch realtime metrics"),
  });

export const adminAnalyticsCalls = [
  call({
    method: "get",
    path: "/admin/dashboard",
    operationId: "adminDashboard",
    summary: "The admin dashboard: today's and all-time business figures, recent activity, live behaviour",
    description: "Poll it every 30 seconds at most. Money is Soko's own revenue (its fees) unless said.",
    tag: "Admin",
    access: "admin",
    response: Dashboard,
    async handle({ locale }) {
      const db = getDb();
      const now = new Date();
      const say = sayIn(locale);
      const [b, activity, behaviour, usd] = await Promise.all([businessFigures(db, { now }), recentActivity(db), readBehaviour(now), rate()]);
      return ok({
        at: iso(now),
        business: {
          newSignupsToday: b.newSignupsToday,
          ordersToday: b.ordersToday,
          orderValueToday: moneyOf(b.orderValueTodayUgx, usd),
          revenueToday: moneyOf(b.revenueTodayUgx, usd),
          totalUsers: b.totalUsers,
          totalOrders: b.totalOrders,
          totalRevenue: moneyOf(b.totalRevenueUgx, usd),
          totalGigs: b.totalGigs,
        },
        recentActivity: activity.map((a) => ({
          id: a.id,
          member: a.user,
          kind: a.kind,
          action: sayActivity(say, ADMIN_ACTIVITY_KEY, a.kind, "admin.activity.unknown"),
          at: iso(a.timestamp),
        })),
        behaviour,
      });
    },
  }),
  call({
    method: "get",
    path: "/admin/stats",
    operationId: "adminStats",
    summary: "The headline figures of a range: page views, sessions, bounce rate, conversions",
    tag: "Admin",
    access: "admin",
    query: z.object({ range: rangeOf("7d") }),
    response: z.object({
      ...Window,
      pageViews: count(),
      uniqueVisitors: count().describe("Sessions with a page view."),
      sessions: count().describe("Sessions with a page view or an action."),
      avgSessionDuration: count().describe("Seconds."),
      bounceRate: share().describe("Sessions of one page view and no interaction."),
      conversions: Conversions,
    }),
    async handle({ query: { range } }) {
      const now = new Date();
      const client = getClickHouse();
      const read = await fromAnalytics(
        () => Promise.all([pageViews(client, range, { now }), sessionReport(client, range, { now }), conversions(client, range, { now }), rate()]),
        "Failed to fetch stats",
      );
      if (!read.ok) return read;
      const [views, sessions, converted, usd] = read.value;
      return ok({
        ...windowOf(range, now),
        pageViews: views.total,
        uniqueVisitors: views.unique,
        sessions: sessions.activity.sessions,
        avgSessionDuration: sessions.activity.avgSessionDuration,
        bounceRate: sessions.activity.bounceRate,
        conversions: conversionsOf(converted, usd),
      });
    },
  }),
  realTimeCall("/admin/realtime-metrics", "adminRealtimeMetrics", "Live figures for the dashboard (the same as /admin/analytics/realtime)"),
  call({
    method: "get",
    path: "/admin/analytics",
    operationId: "adminAnalytics",
    summary: "The analytics reports of a range: pages, sessions, devices, browsers, countries, referrers, conversions, traffic",
    tag: "Admin",
    access: "admin",
    query: z.object({ range: rangeOf("7d") }),
    response: z.object({
      ...Window,
      pageViews: z.object({
        total: count(),
        unique: count().describe("Sessions with a page view."),
        topPages: z.array(z.object({ page: z.string(), views: count(), uniqueViews: count() })).describe("The 10 most viewed pages."),
      }),
      sessions: z.object({
        total: count(),
        avgSessionDuration: count().describe("Seconds."),
        bounceRate: share(),
        devices: z.array(DeviceRow),
      }),
      countries: z.array(CountryRow).describe("The 10 countries with the most sessions."),
      browsers: z.array(ShareRow),
      referrers: z.array(ShareRow),
      conversions: Conversions,
      traffic: z
        .object({
          interval: z.enum(["hour", "day"]),
          points: z.array(z.object({ at: Iso, views: count(), sessions: count() })),
        })
        .describe("Page views and sessions per hour (1d) or per day, in UTC."),
    }),
    async handle({ query: { range } }) {
      const now = new Date();
      const client = getClickHouse();
      const read = await fromAnalytics(
        () =>
          Promise.all([
            pageViews(client, range, { now }),
            sessionReport(client, range, { now }),
            referrers(client, range, { now }),
            conversions(client, range, { now }),
            traffic(client, range, { now }),
            rate(),
          ]),
        "Failed to fetch stats",
      );
      if (!read.ok) return read;
      const [views, sessions, byReferrer, converted, points, usd] = read.value;
      const hourly = points.length > 1 && points[1]!.at - points[0]!.at === 3600;
      return ok({
        ...windowOf(range, now),
        pageViews: {
          total: views.total,
          unique: views.unique,
          topPages: views.pages.map((p) => ({ page: p.page, views: p.views, uniqueViews: p.unique_views })),
        },
        sessions: {
          total: sessions.activity.sessions,
          avgSessionDuration: sessions.activity.avgSessionDuration,
          bounceRate: sessions.activity.bounceRate,
          devices: devicesOf(sessions.activity.devices),
        },
        countries: countriesOf(sessions.countries),
        browsers: sharesOf(sessions.browsers),
        referrers: sharesOf(byReferrer),
        conversions: conversionsOf(converted, usd),
        traffic: {
          interval: hourly ? ("hour" as const) : ("day" as const),
          points: points.map((p) => ({ at: iso(new Date(p.at * 1000)), views: p.views, sessions: p.sessions })),
        },
      });
    },
  }),
  realTimeCall("/admin/analytics/realtime", "adminAnalyticsRealtime", "Real time: the last 5 minutes"),
];
