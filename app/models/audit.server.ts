/**
 * The admin audit log (admin_audit_log, migration 20261126000002): read here, written only by `tx.audit` in
 * an operation's transaction (app/operations/core.server.ts). Newest first; filtered by action and admin.
 */
import type { Db } from "~/server/db.server";

export type AuditRow = {
  id: number;
  at: Date;
  adminId: number | null;
  adminName: string;
  action: string;
  targetType: string;
  targetId: string | null;
  /** The target's name today, where the target is a member (deleted members read "Deleted member"). */
  targetName: string | null;
  details: Record<string, unknown>;
  ip: string;
};

export async function listAuditLog(
  db: Db,
  f: { action?: string; adminId?: number; page: number; pageSize: number },
): Promise<{ rows: AuditRow[]; total: number }> {
  const base = db("admin_audit_log as l");
  if (f.action) base.where("l.action", f.action);
  if (f.adminId !== undefined) base.where("l.admin_id", f.adminId);
  const { count } = (await base.clone().count({ count: "*" }).first()) as { count: string };
  const rows = await base
    .leftJoin("users as t", function () {
      this.on("l.target_type", "=", db.raw("'user'")).andOn("t.id", "=", db.raw("CASE WHEN l.target_id ~ '^[0-9]{1,18}$' THEN l.target_id::bigint END"));
    })
    .select("l.id", "l.created_at", "l.admin_id", "l.admin_name", "l.action", "l.target_type", "l.target_id", "l.details", "l.ip", "t.name as target_name")
    .orderBy([
      { column: "l.created_at", order: "desc" },
      { column: "l.id", order: "desc" },
    ])
    .limit(f.pageSize)
    .offset((f.page - 1) * f.pageSize);
  return {
    total: Number(count),
    rows: rows.map((r) => ({
      id: Number(r.id),
      at: r.created_at,
      adminId: r.admin_id === null ? null : Number(r.admin_id),
      adminName: r.admin_name,
      action: r.action,
      targetType: r.target_type,
      targetId: r.target_id,
      targetName: r.target_name ?? null,
      details: r.details ?? {},
      ip: r.ip,
    })),
  };
}

/** The filters' choices: every action and every admin that appears in the log. */
export async function auditFilterChoices(db: Db): Promise<{ actions: string[]; admins: { id: number; name: string }[] }> {
  const [actions, admins] = await Promise.all([
    db("admin_audit_log").distinct("action").orderBy("action").pluck("action"),
    db("admin_audit_log as l").join("users as u", "u.id", "l.admin_id").distinct("u.id", "u.name").orderBy("u.name").select("u.id", "u.name"),
  ]);
  return { actions: actions as string[], admins: admins.map((a) => ({ id: Number(a.id), name: a.name as string })) };
}
