/**
 * An S3-compatible server for tests (s3rver, on 127.0.0.1 and a free port, its objects in a temporary directory),
 * speaking S3's real protocol over HTTP, so the S3 file store is tested as it talks to AWS S3 or MinIO: signed
 * requests, path-style addressing, ListObjectsV2's pages. Each call starts its own server with the buckets asked for.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import { s3Store, type FileStore } from "~/server/files/file-store.server";

/** The keys s3rver checks signatures with. */
const KEY = "S3RVER";

export type TestS3 = {
  endpoint: string;
  /** The environment of a process whose files are in `bucket` (S3_*). */
  env(bucket: string): Record<string, string>;
  /** A store on `bucket`, for a test to look in (closed by `stop`). */
  store(bucket: string): FileStore;
  stop(): Promise<void>;
};

export async function startS3(buckets: string[]): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "soko-s3rver-"));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const stores: FileStore[] = [];
  return {
    endpoint,
    env: (bucket) => ({
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY_ID: KEY,
      S3_SECRET_ACCESS_KEY: KEY,
      S3_FORCE_PATH_STYLE: "1",
    }),
    store(bucket) {
      const store = s3Store({ bucket, region: "us-east-1", endpoint, forcePathStyle: true, credentials: { accessKeyId: KEY, secretAccessKey: KEY } });
      stores.push(store);
      return store;
    },
    async stop() {
      for (const store of stores) await store.close();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
