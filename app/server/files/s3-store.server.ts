/**
 * The S3 file store (file-store.server.ts): every file an object of its key in one bucket, on AWS S3 or any
 * S3-compatible service (MinIO, Cloudflare R2, Backblaze B2), through @aws-sdk/client-s3. The bucket stays
 * private: members' files are only ever served through the app's authorised routes (ADR 056), and the
 * bucket is made by whoever runs it (docker-compose's MinIO, a cloud console), not by the app.
 */
import type { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import { isFileKey, typeOfKey } from "~/server/files/disk-store.server";
import type { FileStore } from "~/server/files/file-store.server";

export type S3Config = {
  bucket: string;
  region: string;
  /** Unset: AWS S3 itself. */
  endpoint?: string;
  /** `endpoint/bucket/key` rather than `bucket.endpoint/key`: MinIO and s3rver need it. */
  forcePathStyle: boolean;
  /** Unset: the SDK's own chain (an instance's role on AWS). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
};

type Sdk = typeof import("@aws-sdk/client-s3");
let loadingSdk: Promise<Sdk> | undefined;

/**
 * The AWS SDK, loaded on first use: it holds about 20 MB of a process's memory and 200 ms of its start, which a
 * process on the disk store never needs.
 */
const loadSdk = () => (loadingSdk ??= import("@aws-sdk/client-s3"));

/** A 404 from S3: no such key (GetObject says NoSuchKey, HeadObject only its status). */
const notFound = (sdk: Sdk, error: unknown) =>
  error instanceof sdk.S3ServiceException && (error.name === "NoSuchKey" || error.name === "NotFound" || error.$metadata.httpStatusCode === 404);

function client(sdk: Sdk, config: S3Config): S3Client {
  // The SDK warns, once per process, that releases after January 2027 will need Node 22: it says nothing about
  // this release, and would be the only unstructured line in our output. An operator's own setting is kept.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  return new sdk.S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    credentials: config.credentials,
    // Checksums only where S3 requires them: the default CRC32 trailers (aws-chunked uploads) are not spoken by
    // every S3-compatible service, and a plain PUT with Content-Length is.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

export function s3Store(config: S3Config): FileStore {
  let connecting: Promise<{ sdk: Sdk; s3: S3Client }> | undefined;
  const connect = () => (connecting ??= loadSdk().then((sdk) => ({ sdk, s3: client(sdk, config) })));
  const Bucket = config.bucket;
  const checked = (key: string) => {
    if (!isFileKey(key)) throw new Error(`not a file key: ${JSON.stringify(key)}`);
    return key;
  };

  return {
    kind: "s3",
    where: config.endpoint ? `${config.endpoint} bucket ${Bucket}` : `S3 bucket ${Bucket} (${config.region})`,
    async put(key, bytes, { contentType, size }) {
      const length = bytes instanceof Uint8Array ? bytes.length : size;
      if (length === undefined) throw new Error("a stream is stored with its size");
      const { sdk, s3 } = await connect();
      await s3.send(new sdk.PutObjectCommand({ Bucket, Key: checked(key), Body: bytes, ContentType: contentType, ContentLength: length }));
    },
    async get(key) {
      if (!isFileKey(key)) return null;
      const { sdk, s3 } = await connect();
      try {
        const answer = await s3.send(new sdk.GetObjectCommand({ Bucket, Key: key }));
        return { body: answer.Body as Readable, size: answer.ContentLength ?? 0, contentType: answer.ContentType ?? typeOfKey(key) };
      } catch (error) {
        if (notFound(sdk, error)) return null;
        throw error;
      }
    },
    async head(key) {
      if (!isFileKey(key)) return null;
      const { sdk, s3 } = await connect();
      try {
        const answer = await s3.send(new sdk.HeadObjectCommand({ Bucket, Key: key }));
        return { size: answer.ContentLength ?? 0, contentType: answer.ContentType ?? typeOfKey(key), modifiedAt: answer.LastModified ?? new Date(0) };
      } catch (error) {
        if (notFound(sdk, error)) return null;
        throw error;
      }
    },
    async delete(key) {
      if (!isFileKey(key)) return;
      const { sdk, s3 } = await connect();
      // S3 answers a delete of a missing key with success too.
      await s3.send(new sdk.DeleteObjectCommand({ Bucket, Key: key }));
    },
    async *list(prefix = "") {
      const { sdk, s3 } = await connect();
      let ContinuationToken: string | undefined;
      do {
        const page = await s3.send(new sdk.ListObjectsV2Command({ Bucket, Prefix: prefix || undefined, ContinuationToken }));
        for (const object of page.Contents ?? []) {
          if (object.Key) yield { key: object.Key, size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) };
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
    async close() {
      if (connecting) (await connecting).s3.destroy();
    },
  };
}
