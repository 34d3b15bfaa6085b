/**
 * What a member stores, across every kind of stored file: gig images (their `uploads` rows, used or not
 * yet), their profile picture, the order files they attached, the files of messages they sent and the
 * documents they uploaded through the JSON API and have not used yet (`uploaded_files`). Each row
 * keeps the bytes written for it (ADR 031).
 */
import type { Db } from "~/server/db.server";

/** The bytes of every file this member's rows still name. */
export async function storedBytesOf(db: Db, userId: number): Promise<number> {
  const { rows } = await db.raw<{ rows: { total: string }[] }>(
    `SELECT (SELECT coalesce(sum(size_bytes), 0) FROM uploads WHERE owner_id = :id)
          + (SELECT coalesce(sum(avatar_size_bytes), 0) FROM users WHERE id = :id AND avatar_key IS NOT NULL)
          + (SELECT coalesce(sum(size_bytes), 0) FROM order_files WHERE uploader_id = :id)
          + (SELECT coalesce(sum(size_bytes), 0) FROM uploaded_files WHERE user_id = :id)
          + (SELECT coalesce(sum(a.size_bytes), 0) FROM messages m JOIN message_attachments a ON a.message_id = m.id
             WHERE m.sender_id = :id AND m.message_type = 'file') AS total`,
    { id: userId },
  );
  return Number(rows[0]!.total); // a bigint sum, as text
}
