/**
 * The S3 file store (file-store.server.ts): every file an object of its key in one bucket, on AWS S3 or any
 * S3-compatible service (MinIO, Cloudflare R2, Backblaze B2), through @aws-sdk/client-s3. The bucket stays
 * private: members' files are only ever served through the app's authorised routes (ADR 056), and the
 * bucket is made by whoever runs it (docker-compose's MinIO, a cloud console), not by the app.
 */
import type { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
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

/** A 404 from S3: no such key (GetObject says NoSuchKey, HeadObject only its status). */
const notFound = (error: unknown) =>
  error instanceof S3ServiceException && (error.name === "NoSuchKey" || error.name === "NotFound" || error.$metadata.httpStatusCode === 404);

function client(config: S3Config): S3Client {
  // The SDK warns, once per process, that releases after January 2027 will need Node 22: it says nothing about
  // this release, and would be the only unstructured line in our output. An operator's own setting is kept.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  return new S3Client({
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
  const s3 = client(config);
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
      await s3.send(new PutObjectCommand({ Bucket, Key: checked(key), Body: bytes, ContentType: contentType, ContentLength: length }));
    },
    async get(key) {
      if (!isFileKey(key)) return null;
      try {
        const answer = await s3.send(new GetObjectCommand({ Bucket, Key: key }));
        return { body: answer.Body as Readable, size: answer.ContentLength ?? 0, contentType: answer.ContentType ?? typeOfKey(key) };
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    async head(key) {
      if (!isFileKey(key)) return null;
      try {
        const answer = await s3.send(new HeadObjectCommand({ Bucket, Key: key }));
        return { size: answer.ContentLength ?? 0, contentType: answer.ContentType ?? typeOfKey(key), modifiedAt: answer.LastModified ?? new Date(0) };
      } catch (error) {
        if (notFound(error)) return null;
        throw error;
      }
    },
    async delete(key) {
      // S3 answers a delete of a missing key with success too.
      if (isFileKey(key)) await s3.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },
    async *list(prefix = "") {
      let ContinuationToken: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: prefix || undefined, ContinuationToken }));
        for (const object of page.Contents ?? []) {
          if (object.Key) yield { key: object.Key, size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date(0) };
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
    async close() {
      s3.destroy();
    },
  };
}
