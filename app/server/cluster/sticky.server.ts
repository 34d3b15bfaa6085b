/**
 * Connections to the web processes of a cluster (ADR 059). The primary owns the public port; for each new
 * connection it reads the first chunk, picks a web process, and hands it the connection itself (the file
 * descriptor) with that chunk. A request of a socket.io long-polling session (`/socket.io/?…&sid=…`) goes to the
 * process that holds the session; anything else to the next ready process in turn. From then on the connection
 * is the chosen process's alone: the primary never copies a request or response byte (unlike @socket.io/sticky
 * 2, which relays every request with a body, every tracking post and upload, through the primary).
 *
 * Reading stops inside the first chunk's callback (libuv reads up to 32 times in a row; a read after the handle
 * was sent would be dropped), so the bytes after the first chunk wait in the kernel for the chosen process.
 */
import type { Worker } from "node:cluster";
import type { Server } from "node:http";
import net from "node:net";

/** What a web process tells the primary, and what the primary sends it. */
export type StickyMessage =
  { type: "soko:connection"; head: string } | { type: "soko:ready" } | { type: "soko:draining" } | { type: "soko:session"; sid: string; open: boolean };

/** An engine.io session id in the request line of a /socket.io/ request (20 characters of base64url). */
const SESSION = /^[A-Z]+ \/socket\.io\/\?(?:[^ ]*&)?sid=([\w-]{20})(?:[& ])/;

/** The session a request's first bytes name, if it is a socket.io request that names one. */
export function sessionOfRequest(head: Buffer): string | null {
  const lineEnd = head.indexOf("\r\n");
  const line = head.subarray(0, lineEnd === -1 ? Math.min(head.length, 2048) : lineEnd).toString("latin1");
  return SESSION.exec(line)?.[1] ?? null;
}

export type StickyRouter = {
  server: net.Server;
  /** A process that has said it is ready takes new connections until it drains or exits. */
  ready: (worker: Worker) => void;
  /** Takes no new connections (it is stopping); its sessions' own requests still reach it while it lives. */
  drain: (worker: Worker) => void;
  /** Forgets a process that exited, and its sessions. */
  remove: (worker: Worker) => void;
  session: (worker: Worker, sid: string, open: boolean) => void;
  /** How many processes take new connections. */
  readyCount: () => number;
};

/** The primary's side: a TCP server whose connections go to the web processes; the caller listens. */
export function stickyRouter({ firstByteTimeoutMs = 60_000 } = {}): StickyRouter {
  const ready: Worker[] = [];
  const sessions = new Map<string, Worker>();
  let turn = 0;

  const pick = (head: Buffer): Worker | undefined => {
    const sid = sessionOfRequest(head);
    const holder = sid ? sessions.get(sid) : undefined;
    if (holder?.isConnected()) return holder;
    if (ready.length === 0) return undefined;
    turn = (turn + 1) % ready.length;
    return ready[turn];
  };

  const server = net.createServer((socket) => {
    socket.on("error", () => socket.destroy());
    // A connection that says nothing is closed, as the web process would (its headersTimeout).
    socket.setTimeout(firstByteTimeoutMs, () => socket.destroy());
    socket.once("data", (head: Buffer) => {
      // Nothing more is read here: what follows stays in the kernel for the process chosen below.
      (socket as net.Socket & { _handle?: { readStop?: () => number } })._handle?.readStop?.();
      socket.pause();
      socket.setTimeout(0);
      const worker = pick(head);
      if (!worker) {
        socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n");
        return;
      }
      const message: StickyMessage = { type: "soko:connection", head: head.toString("base64") };
      worker.send(message, socket, { keepOpen: false }, (error) => {
        if (error) socket.destroy();
      });
    });
  });

  const unready = (worker: Worker) => {
    const at = ready.indexOf(worker);
    if (at !== -1) ready.splice(at, 1);
  };
  return {
    server,
    ready: (worker) => {
      if (!ready.includes(worker)) ready.push(worker);
    },
    drain: unready,
    remove: (worker) => {
      unready(worker);
      for (const [sid, holder] of sessions) if (holder === worker) sessions.delete(sid);
    },
    session: (worker, sid, open) => {
      if (open) sessions.set(sid, worker);
      else if (sessions.get(sid) === worker) sessions.delete(sid);
    },
    readyCount: () => ready.length,
  };
}

/**
 * A web process's side: connections handed over by the primary are served by `httpServer` as if it had
 * accepted them; `engine` (socket.io's) sessions are reported so their polling requests find their way back.
 */
export function takeStickyConnections(httpServer: Server, engine: { on: (event: "connection", listener: (socket: EngineSocket) => void) => void }) {
  process.on("message", (message: StickyMessage, handle?: net.Socket) => {
    if (message?.type !== "soko:connection" || !handle) return;
    // What net.Server does for the connections it accepts itself (emitting "connection" skips it): without
    // TCP_NODELAY a response written in parts waits for the client's delayed ACK (Nagle).
    handle.setNoDelay(true);
    httpServer.emit("connection", handle);
    handle.unshift(Buffer.from(message.head, "base64"));
    handle.resume();
  });
  engine.on("connection", (socket) => {
    tellPrimary({ type: "soko:session", sid: socket.id, open: true });
    socket.once("close", () => tellPrimary({ type: "soko:session", sid: socket.id, open: false }));
  });
}

type EngineSocket = { id: string; once: (event: "close", listener: () => void) => void };

/** Sends a message to the cluster's primary; nothing when this process is not a cluster worker. */
export function tellPrimary(message: StickyMessage) {
  if (process.send && process.connected) process.send(message);
}
