/**
 * What an admin does to members from the Users screen (ADRs 012, 017): suspend, ban, activate (one
 * member or a selection) and delete. Each runs in one transaction with its audit row (`tx.audit`: who, what,
 * whom, from which address), the member's activity, the end of their sessions (rows deleted in the same
 * transaction) and of their open pages' live connections (after the commit).
 *
 * The guards, checked under locks so two admins acting at once cannot get round them: an admin never acts on
 * their own account, and the platform always keeps an active admin (every active admin's row is locked
 * first, so of two admins suspending each other, the second finds they are no longer active themself).
 * The transitions (docs/product.md, Accounts): suspend only an active member, ban one not banned, activate one not
 * active; a deleted member is gone for good.
 */
import type { Knex } from "knex";
import { memberBalances } from "~/models/ledger.server";
import { anonymiseUser, hasOpenOrders, lockActiveAdmins, lockUsers, setUserStatus, type LockedUser } from "~/models/user.server";
import { adminOf, conflict, forbidden, invalid, issue, notFound, ok, transact, type Actor, type Failure, type Result, type Tx } from "~/operations/core.server";
import { STATUS_OF_ACTION, type StatusAction } from "~/schemas/admin";

type Options = { db?: Knex };

const AUDIT_ACTION: Record<StatusAction, string> = { suspend: "user.suspend", ban: "user.ban", activate: "user.activate" };

/** Why a transition does not apply to a member as they are now, or null when it does. */
function refusal(action: StatusAction, u: LockedUser): Failure | null {
  const { name } = u;
  if (u.deleted) return conflict("member.deleted", { name });
  if (action === "suspend" && u.status !== "active") return conflict("member.not_active", { name });
  if (action === "ban" && u.status === "banned") return conflict("member.already_banned", { name });
  if (action === "activate" && u.status === "active") return conflict("member.already_active", { name });
  return null;
}

type Refusal = Extract<Failure, { error: "conflict" | "forbidden" }>;

/**
 * Refuses when the admin is among `targets` or `targets` would take the last active admins away (every
 * action but activate takes a member out of the active ones). Locks every active admin's row first.
 * `batch`: for the bulk action, whose refusal says that nothing was changed.
 */
async function adminGuards(tx: Tx, adminId: number, targets: LockedUser[], leavesActive: boolean, batch = false): Promise<Refusal | null> {
  const params = batch ? { batch } : {};
  if (targets.some((u) => u.id === adminId)) return conflict("admin.own_account", params) as Refusal;
  if (leavesActive) return null;
  const active = await lockActiveAdmins(tx.trx);
  // Another admin changed this one's account since the page was read: they may do nothing more.
  if (!active.includes(adminId)) return forbidden("admin.no_longer_active", params) as Refusal;
  const removed = new Set(targets.filter((u) => u.role === "admin").map((u) => u.id));
  if (active.every((id) => removed.has(id))) return conflict("admin.last_admin", params) as Refusal;
  return null;
}

/** Applies one status change to a locked member: the row, their sessions (the model ends them), activity, audit, live. */
async function applyStatus(tx: Tx, u: LockedUser, action: StatusAction, bulk: boolean) {
  const status = STATUS_OF_ACTION[action];
  await setUserStatus(tx.trx, u.id, status);
  await tx.activity(u.id, `status_${status}` as const);
  await tx.audit({
    action: AUDIT_ACTION[action],
    targetType: "user",
    targetId: u.id,
    details: { from: u.status, to: status, ...(bulk ? { bulk: true } : {}) },
  });
  if (status !== "active") tx.live({ disconnect: u.id });
  tx.pagesChanged(); // a suspended or banned seller's gigs leave the catalogue
}

/** Suspends, bans or activates one member. */
export async function changeUserStatus(actor: Actor, input: { userId: number; action: StatusAction }, { db }: Options = {}): Promise<Result<{ name: string }>> {
  const admin = adminOf(actor);
  if (!admin) return forbidden();
  if (input.userId === admin.id) return conflict("admin.own_account");
  return transact(
    actor,
    async (tx) => {
      const active = input.action === "activate";
      // Admins first, then the member: the same lock order as every other admin operation.
      if (!active) await lockActiveAdmins(tx.trx);
      const [u] = await lockUsers(tx.trx, [input.userId]);
      if (!u) return notFound("member.not_found");
      const guarded = await adminGuards(tx, admin.id, [u], active);
      if (guarded) return guarded;
      const refused = refusal(input.action, u);
      if (refused) return refused;
      await applyStatus(tx, u, input.action, false);
      return ok({ name: u.name });
    },
    { db },
  );
}

/**
 * The bulk action: every selected member, in one transaction. Ids that name no member (or a deleted one)
 * refuse the whole batch, naming them, and so do the admin's own account and the last active admins:
 * nothing changes. Members the action does not apply to (suspending one already banned, activating one
 * already active) are left as they are and counted as skipped.
 */
export async function bulkUserAction(
  actor: Actor,
  input: { userIds: number[]; action: StatusAction },
  { db }: Options = {},
): Promise<Result<{ changed: number; skipped: number }>> {
  const admin = adminOf(actor);
  if (!admin) return forbidden();
  const ids = [...new Set(input.userIds)];
  if (ids.length === 0) return invalid({ userIds: [issue("admin.nothing_selected")] });
  return transact(
    actor,
    async (tx) => {
      const active = input.action === "activate";
      if (!active) await lockActiveAdmins(tx.trx);
      const found = await lockUsers(tx.trx, ids);
      const known = new Set(found.filter((u) => !u.deleted).map((u) => u.id));
      const unknown = ids.filter((id) => !known.has(id));
      if (unknown.length) return conflict("member.unknown", { ids: unknown });
      const guarded = await adminGuards(tx, admin.id, found, active, true);
      if (guarded) return guarded;
      let changed = 0;
      for (const u of found) {
        if (refusal(input.action, u)) continue;
        await applyStatus(tx, u, input.action, true);
        changed++;
      }
      return ok({ changed, skipped: found.length - changed });
    },
    { db },
  );
}

/**
 * Deletes a member: their row is kept (orders, the ledger, reviews and messages name it) with nothing of the
 * person left (app/models/user.server.ts anonymiseUser), their gigs leave the catalogue, their sessions and
 * open pages end, and their picture is deleted after the commit. Refused while they have orders under way
 * (money in escrow needs both parties) or money on the platform (earnings, a payout, a refund due). The audit row keeps their role and former status, not their name
 * or email: the log is append-only, and a deletion that the log undid would be none.
 */
export async function deleteUser(actor: Actor, input: { userId: number }, { db }: Options = {}): Promise<Result<null>> {
  const admin = adminOf(actor);
  if (!admin) return forbidden();
  if (input.userId === admin.id) return conflict("admin.own_account");
  return transact(
    actor,
    async (tx) => {
      await lockActiveAdmins(tx.trx);
      const [u] = await lockUsers(tx.trx, [input.userId]);
      if (!u || u.deleted) return notFound("member.not_found");
      const guarded = await adminGuards(tx, admin.id, [u], false);
      if (guarded) return guarded;
      if (await hasOpenOrders(tx.trx, u.id)) return conflict("member.open_orders");
      // Money the platform owes them would have nobody to go to (the payout number is wiped too).
      if (Object.values(await memberBalances(tx.trx, u.id)).some((ugx) => ugx !== 0)) return conflict("member.money_held");
      await anonymiseUser(tx.trx, u.id);
      tx.pagesChanged();
      if (u.avatarKey) await tx.effect({ kind: "delete_image", key: u.avatarKey }, `delete_image:${u.avatarKey}`);
      await tx.audit({ action: "user.delete", targetType: "user", targetId: u.id, details: { role: u.role, from: u.status } });
      tx.live({ disconnect: u.id });
      return ok(null);
    },
    { db },
  );
}
