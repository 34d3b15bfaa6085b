/**
 * The key device cookies are signed with (ADR 030): one row, made by its migration. Read once per process and
 * database handle; a process that starts after the key is replaced reads the new one.
 */
import type { Db } from "~/server/db.server";

const keys = new WeakMap<Db, Promise<Buffer>>();

export function getDeviceKey(db: Db): Promise<Buffer> {
  let key = keys.get(db);
  if (!key) {
    key = db("sign_in_device_key")
      .where({ id: 1 })
      .first("secret")
      .then((row: { secret: string } | undefined) => {
        if (!row) throw new Error("sign_in_device_key has no row: run the migrations");
        return Buffer.from(row.secret, "utf8");
      });
    // A failed read is not kept: the next sign-in asks again.
    key.catch(() => keys.delete(db));
    keys.set(db, key);
  }
  return key;
}
