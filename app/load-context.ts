declare module "@remix-run/node" {
  interface AppLoadContext {
    /** Per-request nonce for the enforced Content-Security-Policy (server.ts makes it). */
    cspNonce: string;
    /** The client's address as Express sees it (TRUST_PROXY decides whether X-Forwarded-For counts). */
    clientIp: string;
  }
}
export {};
