/**
 * Copies every stored file from the disk (UPLOAD_DIR) to the S3 bucket this environment names (S3_BUCKET and the
 * other S3_* variables, ADR 056), for a deployment that moves its files to object storage:
 *   S3_BUCKET=… S3_REGION=… [S3_ENDPOINT=… S3_ACCESS_KEY_ID=… S3_SECRET_ACCESS_KEY=… S3_FORCE_PATH_STYLE=1] npm run files:to-s3
 * Files already in the bucket with the same size are skipped, so it is safe to run twice (or again after it was
 * cut short). The disk is left as it was: remove UPLOAD_DIR once the app runs on the bucket.
 */
import { getEnv } from "~/server/env.server";
import { copyFiles } from "~/server/files/copy-files.server";
import { diskStore, fileStore, uploadDir } from "~/server/files/file-store.server";

const env = getEnv();
if (!env.S3_BUCKET) {
  console.error("files:to-s3: S3_BUCKET is not set: set S3_BUCKET, S3_REGION (and S3_ENDPOINT with its keys for MinIO, R2 or B2) first.");
  process.exit(1);
}
const from = diskStore(uploadDir(env));
const to = fileStore(env);
console.log(`files:to-s3: from ${from.where} to ${to.where}`);
try {
  const { copied, skipped, bytes } = await copyFiles(from, to);
  console.log(`files:to-s3: copied ${copied} files (${(bytes / (1024 * 1024)).toFixed(1)} MB), skipped ${skipped} already in the bucket`);
} catch (error) {
  console.error(`files:to-s3: stopped: ${(error as Error).message}. Run it again: files already copied are skipped.`);
  process.exitCode = 1;
} finally {
  await to.close();
}
