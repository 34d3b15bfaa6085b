/** The part of s3rver (an S3-compatible server in Node, for tests) that tests/support/s3.ts uses: it ships no types. */
declare module "s3rver" {
  import type { AddressInfo } from "node:net";

  export default class S3rver {
    constructor(options: {
      port?: number;
      address?: string;
      silent?: boolean;
      directory: string;
      resetOnClose?: boolean;
      configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
    });
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
