/** What happened on an account: written beside the change it describes, read by the dashboard. */
import type { ActivityKind } from "~/domain/activity";
import { prepared, type Db } from "~/server/db.server";

/** The kinds, and the words that say them: app/domain/activity.ts. */
export type { ActivityKind };

/** `requestId`: the request behind it (ADR 057), when there is one. */
export async function recordActivity(db: Db, userId: number, kind: ActivityKind, details: Record<string, unknown>, requestId: string | null = null) {
  await db("activity").insert({ user_id: userId, kind, details: JSON.stringify(details), request_id: requestId });
}

/** Many activity rows in a few statements (a bulk operation's, such as the demo data's thousands of reviews). */
export async function recordActivities(
  db: Db,
  rows: { userId: number; kind: ActivityKind; details: Record<string, unknown> }[],
  requestId: string | null = null,
) {
  for (let from = 0; from < rows.length; from += 1000) {
    await db("activity").insert(
      rows.slice(from, from + 1000).map((r) => ({ user_id: r.userId, kind: r.kind, details: JSON.stringify(r.details), request_id: requestId })),
    );
  }
}

/** One line of the activity list: one row, or a run of sign-ins one after another (`count` of them, the last `at`). */
export type ActivityItem = { id: number; kind: string; at: Date; count: number };

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
    at: r.at,
    count: Number(r.n),
  }));
}
