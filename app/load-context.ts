declare module "@remix-run/node" {
  interface AppLoadContext {
    /** Per-request nonce for the enforced Content-Security-Policy (server.ts makes it). */
    cspNonce: string;
  }
}
export {};
