/**
 * Message monitoring (ADR 017: admins view any conversation's messages, flag or delete
 * conversations). Every one of these is for admins only and is written to admin_audit_log, reading a
 * conversation included: members' private words are read by an admin only on the record.
 */
import type { Knex } from "knex";
import {
  adminThreadPage,
  conversationsOfPairs,
  deleteConversationRows,
  findAdminConversation,
  listAdminConversations,
  setConversationFlag,
  type AdminConversation,
  type AdminMessage,
} from "~/models/admin-conversation.server";
import { pairKey } from "~/models/conversation.server";
import { adminOf, forbidden, notFound, ok, transact, type Actor, type Result } from "~/operations/core.server";
import type { AdminConversationFilter, DeleteConversationInput, FlagConversationInput } from "~/schemas/monitoring";
import { getDb } from "~/server/db.server";

type Options = { db?: Knex };

/** The list (search, filter, page): a read of summaries, not of anyone's messages beyond the last one, so not audited. */
export async function listConversationsForAdmin(
  actor: Actor,
  input: { q: string; filter: AdminConversationFilter; page: number; limit?: number; offset?: number },
  { db = getDb() }: Options = {},
): Promise<Result<{ conversations: AdminConversation[]; more: boolean }>> {
  if (!adminOf(actor)) return forbidden("access.admins_only");
  return ok(await listAdminConversations(db, input));
}

/**
 * An admin reads a conversation's messages (a page of them: the newest, or those before `before`). The
 * reading is itself audited (conversation.read), in the same transaction as the read. This is the one GET
 * in the portal that writes: the accepted exception to "no GET changes data", since the record of who read
 * members' messages must not depend on the admin pressing a button first.
 */
export async function readConversation(
  actor: Actor,
  input: { conversationId: string; before?: number; limit?: number },
  { db }: Options = {},
): Promise<Result<{ conversation: AdminConversation; messages: AdminMessage[]; older: boolean }>> {
  if (!adminOf(actor)) return forbidden("access.admins_only");
  return transact(
    actor,
    async (tx) => {
      const conversation = await findAdminConversation(tx.trx, input.conversationId);
      if (!conversation) return notFound("conversation.not_found");
      const page = await adminThreadPage(tx.trx, input.conversationId, { before: input.before, limit: input.limit });
      await tx.audit({
        action: "conversation.read",
        targetType: "conversation",
        targetId: input.conversationId,
        details: {
          participants: conversation.participants.map((p) => p.id),
          messages: page.messages.length,
          ...(input.before ? { before: input.before } : {}),
        },
      });
      return ok({ conversation, ...page });
    },
    { db },
  );
}

export type DisputeConversation = { conversation: AdminConversation; messages: AdminMessage[]; older: boolean };

/**
 * The conversations of disputed orders' two parties, for the admin deciding the disputes (by order id; an
 * order whose buyer and seller never wrote to each other has none). Reading them is reading members'
 * messages, so each one shown is audited as readConversation audits it (conversation.read, with the order
 * it was read for), in the same transaction as the reads.
 */
export async function readDisputeConversations(
  actor: Actor,
  input: { orderIds: number[] },
  { db }: Options = {},
): Promise<Result<Map<number, DisputeConversation>>> {
  if (!adminOf(actor)) return forbidden("access.admins_only");
  if (!input.orderIds.length) return ok(new Map());
  return transact(
    actor,
    async (tx) => {
      const orders = (await tx.trx("orders").whereIn("id", input.orderIds).orderBy("id").select("id", "buyer_id", "seller_id")).map((o) => ({
        orderId: Number(o.id),
        a: Number(o.buyer_id),
        b: Number(o.seller_id),
      }));
      const ids = await conversationsOfPairs(tx.trx, orders);
      const read = new Map<number, DisputeConversation>();
      for (const o of orders) {
        const conversationId = ids.get(pairKey(o.a, o.b));
        const conversation = conversationId ? await findAdminConversation(tx.trx, conversationId) : null;
        if (!conversationId || !conversation) continue;
        const page = await adminThreadPage(tx.trx, conversationId);
        await tx.audit({
          action: "conversation.read",
          targetType: "conversation",
          targetId: conversationId,
          details: { participants: conversation.participants.map((p) => p.id), messages: page.messages.length, disputedOrder: o.orderId },
        });
        read.set(o.orderId, { conversation, ...page });
      }
      return ok(read);
    },
    { db },
  );
}

/**
 * Flags a conversation for review (reason 'admin'; an earlier flag and its reason stay) or clears its flag,
 * whichever reason raised it. Audited as conversation.flag or conversation.unflag, with whether it changed.
 */
export async function flagConversationAsAdmin(actor: Actor, input: FlagConversationInput, { db }: Options = {}): Promise<Result<{ changed: boolean }>> {
  if (!adminOf(actor)) return forbidden("access.admins_only");
  return transact(
    actor,
    async (tx) => {
      const result = await setConversationFlag(tx.trx, input.conversationId, input.flagged, "admin");
      if (!result) return notFound("conversation.not_found");
      await tx.audit({
        action: input.flagged ? "conversation.flag" : "conversation.unflag",
        targetType: "conversation",
        targetId: input.conversationId,
        details: { changed: result.changed, previousReason: result.before },
      });
      return ok({ changed: result.changed });
    },
    { db },
  );
}

/**
 * Deletes a conversation: its messages, attachments, both members' sides and its notifications, in one
 * transaction with the audit row (conversation.delete, with who was in it and how many messages it had);
 * the attachments' files are deleted by the worker once that has committed (delete_file effects).
 */
export async function deleteConversationAsAdmin(
  actor: Actor,
  input: DeleteConversationInput,
  { db }: Options = {},
): Promise<Result<{ participants: number[]; messageCount: number; files: number }>> {
  if (!adminOf(actor)) return forbidden("access.admins_only");
  return transact(
    actor,
    async (tx) => {
      const deleted = await deleteConversationRows(tx.trx, input.conversationId);
      if (!deleted) return notFound("conversation.not_found");
      for (const key of deleted.storageKeys) await tx.effect({ kind: "delete_file", key }, `delete_file:${key}`);
      await tx.audit({
        action: "conversation.delete",
        targetType: "conversation",
        targetId: input.conversationId,
        details: { participants: deleted.participants, messageCount: deleted.messageCount, files: deleted.storageKeys.length },
      });
      return ok({ participants: deleted.participants, messageCount: deleted.messageCount, files: deleted.storageKeys.length });
    },
    { db },
  );
}
