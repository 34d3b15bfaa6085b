/**
 * Copies every file of one store into another (file-store.server.ts): the files:to-s3 command's work, and a way
 * for backups to carry files. A file the target already has with the same size is skipped, so a copy cut short
 * is finished by running it again, and a second run copies nothing. Files are streamed, a few at a time.
 */
import type { FileStore } from "~/server/files/file-store.server";

export type CopyReport = { copied: number; skipped: number; bytes: number };

/** How many files are in flight at once: enough to hide S3's round trips, few enough for a small machine. */
const AT_ONCE = 4;

export async function copyFiles(from: FileStore, to: FileStore, { onCopied }: { onCopied?: (key: string) => void } = {}): Promise<CopyReport> {
  // One listing of the target (a thousand keys a request) rather than a HEAD per file.
  const there = new Map<string, number>();
  for await (const object of to.list("")) there.set(object.key, object.size);

  const report: CopyReport = { copied: 0, skipped: 0, bytes: 0 };
  const running = new Set<Promise<void>>();
  // The first failure stops the copy (after the files in flight); a run again starts where it stopped.
  let failure: unknown;
  for await (const object of from.list("")) {
    if (failure) break;
    if (there.get(object.key) === object.size) {
      report.skipped += 1;
      continue;
    }
    const copy = (async () => {
      const file = await from.get(object.key);
      if (!file) return; // removed since it was listed: nothing to copy
      await to.put(object.key, file.body, { contentType: file.contentType, size: file.size });
      report.copied += 1;
      report.bytes += file.size;
      onCopied?.(object.key);
    })();
    const tracked = copy.catch((error) => void (failure ??= error)).finally(() => running.delete(tracked));
    running.add(tracked);
    if (running.size >= AT_ONCE) await Promise.race(running);
  }
  await Promise.all(running);
  if (failure) throw failure;
  return report;
}
