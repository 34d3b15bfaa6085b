/** What happened on an account: written beside the change it describes, read by the dashboard. */
import { prepared, type Db } from "~/server/db.server";

export type ActivityKind =
  | "joined"
  | "signed_in"
  | "profile_updated"
  | "notifications_updated"
  | "billing_updated"
  | "preferences_updated"
  | "password_changed"
  | "password_reset"
  | "signed_out_elsewhere"
  | "status_active"
  | "status_suspended"
  | "status_banned"
  | "gig_published"
  | "gig_saved"
  | "gig_paused"
  | "gig_resumed"
  | "gig_deleted"
  | "became_seller"
  | "review_left"
  | "review_edited"
  | "review_deleted"
  | "order_placed"
  | "payment_requested";

const LABELS: Record<string, string> = {
  joined: "You joined Soko",
  signed_in: "You signed in",
  profile_updated: "You updated your profile",
  notifications_updated: "You changed your notification settings",
  billing_updated: "You updated your mobile-money number",
  preferences_updated: "You changed your preferences",
  password_changed: "You changed your password",
  password_reset: "You reset your password",
  signed_out_elsewhere: "You signed out of your other sessions",
  status_active: "Your account was activated",
  status_suspended: "Your account was suspended",
  status_banned: "Your account was banned",
  gig_published: "You published a gig",
  gig_saved: "You saved a gig as a draft",
  gig_paused: "You paused a gig",
  gig_resumed: "You published a paused gig again",
  gig_deleted: "You deleted a gig",
  became_seller: "You started selling on Soko",
  review_left: "You reviewed a gig",
  review_edited: "You changed a review",
  review_deleted: "You deleted a review",
  order_placed: "You placed an order",
  payment_requested: "You asked for an order's payment again",
};

export async function recordActivity(db: Db, userId: number, kind: ActivityKind, details: Record<string, unknown>) {
  await db("activity").insert({ user_id: userId, kind, details: JSON.stringify(details) });
}

/** Many activity rows in a few statements (a bulk operation's, such as the demo data's thousands of reviews). */
export async function recordActivities(db: Db, rows: { userId: number; kind: ActivityKind; details: Record<string, unknown> }[]) {
  for (let from = 0; from < rows.length; from += 1000) {
    await db("activity").insert(rows.slice(from, from + 1000).map((r) => ({ user_id: r.userId, kind: r.kind, details: JSON.stringify(r.details) })));
  }
}

/** One line of the activity list: one row, or a run of sign-ins one after another (`count` of them, the last `at`). */
export type ActivityItem = { id: number; kind: string; label: string; at: Date; count: number };

/** How far back the list looks for runs of sign-ins: a bound on the rows read, however often a member signs in. */
const WINDOW = 500;

/**
 * The member's latest activity, newest first, with sign-ins in a row (nothing else between them) as one item:
 * five sign-ins are one line, not five. Grouped in the query, over the member's latest rows only.
 */
export async function listRecentActivity(db: Db, userId: number, limit = 8): Promise<ActivityItem[]> {
  const { rows } = await prepared(
    db.raw(
      `WITH recent AS (
         SELECT id, kind, created_at FROM activity WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ${WINDOW}
       ), marked AS (
         SELECT *, CASE WHEN kind = 'signed_in' AND lag(kind) OVER w = 'signed_in' THEN 0 ELSE 1 END AS starts
         FROM recent WINDOW w AS (ORDER BY created_at DESC, id DESC)
       ), runs AS (
         SELECT *, sum(starts) OVER (ORDER BY created_at DESC, id DESC) AS run FROM marked
       )
       SELECT (array_agg(id ORDER BY created_at DESC, id DESC))[1] AS id, min(kind) AS kind, max(created_at) AS at, count(*)::int AS n
       FROM runs GROUP BY run ORDER BY run LIMIT ?`,
      [userId, limit],
    ),
  );
  return rows.map((r: Record<string, any>) => ({
    id: Number(r.id),
    kind: r.kind,
    label: LABELS[r.kind] ?? r.kind.replace(/_/g, " "),
    at: r.at,
    count: Number(r.n),
  }));
}
