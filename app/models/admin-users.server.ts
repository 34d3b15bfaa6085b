/**
 * The admin portal's Users screen (ADR 017): members listed, searched and filtered for an admin, with the
 * total for paging. Reads only; what an admin does to a member goes through app/operations/admin-users.server.ts,
 * which locks and writes users through app/models/user.server.ts.
 */
import type { Role, UserStatus } from "~/models/user.server";
import type { Db } from "~/server/db.server";

/** A member as the admin's list shows them; `status` "deleted" for a deleted member's kept row. */
export type AdminUserRow = {
  id: number;
  name: string;
  email: string;
  username: string;
  role: Role;
  status: UserStatus | "deleted";
  joinedAt: Date;
  lastActiveAt: Date | null;
  /** When an admin vetted this freelancer, and their note (ADR 051); null when not vetted. */
  vettedAt: Date | null;
  vettedNote: string | null;
};

export type AdminUserFilter = {
  q?: string;
  role?: Role;
  status?: UserStatus | "deleted";
  id?: number;
  page: number;
  pageSize: number;
  /** Rows to skip, in place of the page's (the JSON API pages by cursor). */
  offset?: number;
};

/** `%` and `_` typed into a search are letters, not wildcards. */
const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Members for the admin's list, newest first, with the total the filter matches (for paging). The search
 * matches name, email or username anywhere, in any letter case. Deleted members appear only when asked for
 * (status "deleted", or by id). Last active is the newest of the stored time and the member's latest
 * activity (a sign-in, a change of settings; not what an admin did to them).
 */
export async function listUsersForAdmin(db: Db, f: AdminUserFilter): Promise<{ users: AdminUserRow[]; total: number }> {
  const base = db("users as u");
  if (f.id !== undefined) base.where("u.id", f.id);
  else if (f.status === "deleted") base.whereNotNull("u.deleted_at");
  else {
    base.whereNull("u.deleted_at");
    if (f.status) base.where("u.status", f.status);
  }
  if (f.role) base.where("u.role", f.role);
  if (f.q) {
    const pattern = likePattern(f.q);
    base.where((w) => w.whereILike("u.name", pattern).orWhereILike("u.email", pattern).orWhereILike("u.username", pattern));
  }
  const { count } = (await base.clone().count({ count: "*" }).first()) as { count: string };
  const rows = await base
    .select("u.id", "u.name", "u.email", "u.username", "u.role", "u.status", "u.deleted_at", "u.created_at", "u.vetted_at", "u.vetted_note")
    .select(
      db.raw(
        "GREATEST(u.last_active_at, (SELECT max(a.created_at) FROM activity a WHERE a.user_id = u.id AND a.kind NOT LIKE 'status\\_%')) AS last_active_at",
      ),
    )
    .orderBy([
      { column: "u.created_at", order: "desc" },
      { column: "u.id", order: "desc" },
    ])
    .limit(f.pageSize)
    .offset(f.offset ?? (f.page - 1) * f.pageSize);
  return {
    total: Number(count),
    users: rows.map((u) => ({
      id: Number(u.id),
      name: u.name,
      email: u.email,
      username: u.username,
      role: u.role,
      status: u.deleted_at ? "deleted" : u.status,
      joinedAt: u.created_at,
      lastActiveAt: u.last_active_at ?? null,
      vettedAt: u.vetted_at ?? null,
      vettedNote: u.vetted_note ?? null,
    })),
  };
}
