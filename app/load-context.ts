import type { DocumentEncoding } from "~/server/speed/document-encoding.server";

declare module "@remix-run/node" {
  interface AppLoadContext {
    /** Per-request nonce for the enforced Content-Security-Policy (server.ts makes it). */
    cspNonce: string;
    /** The client's address as Express sees it (TRUST_PROXY decides whether X-Forwarded-For counts). */
    clientIp: string;
    /**
     * The request comes from this machine itself: its socket's peer is a loopback address and no proxy
     * forwarded it (app/server/local-request.server.ts). Never read from X-Forwarded-For.
     */
    isLocalRequest: boolean;
    /**
     * The page view the server records for this HTML page (no JavaScript needed), or null for other requests
     * and bots. The root renders it as `<meta name="soko-pageview" content="<eventId> <time>">` so the tracker
     * can re-send the same view (same event_id, page and time) when the visitor has consented.
     */
    pageview: { eventId: string; time: number } | null;
    /**
     * Resolves once the response has room for more (at once if it has; also when the client has gone). Remix
     * writes a streamed body without waiting for the socket, so a long stream (the analytics CSV export)
     * awaits this before each chunk to keep a slow download from piling up in memory.
     */
    responseDrained: () => Promise<void>;
    /**
     * How entry.server compresses a rendered document for this request (the encoding compression() would
     * choose: app/server/speed/document-encoding.server.ts), or null to send it as it is: no acceptable encoding,
     * a page the page cache keeps (it compresses its own parts), or SPEED_PATCHES=off (compression() encodes it).
     */
    documentEncoding: DocumentEncoding | null;
  }
}
export {};
