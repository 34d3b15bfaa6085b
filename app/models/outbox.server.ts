/**
 * Mail. There are no SMTP settings yet, so every message is written to the outbox table; the development
 * page /dev/outbox lists it. A mail transport, when added, reads the same rows.
 */
import type { Db } from "~/utils/db.server";

export async function sendMail(db: Db, mail: { to: string; subject: string; body: string }) {
  await db("outbox").insert({ to_address: mail.to, subject: mail.subject, body: mail.body });
}

export async function listOutbox(db: Db, limit = 50) {
  const rows = await db("outbox").orderBy("id", "desc").limit(limit).select("id", "to_address", "subject", "body", "created_at");
  return rows.map((r) => ({ id: r.id as number, to: r.to_address as string, subject: r.subject as string, body: r.body as string, createdAt: r.created_at as Date }));
}
