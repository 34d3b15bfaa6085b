/**
 * A web process's life (ADR 059): starting, ready (it takes requests, /readyz answers 200), draining (SIGTERM:
 * /readyz answers 503, no new connection is given to it, the connections it has are closed as their requests
 * end, and its sockets are told to reconnect, which lands them on another process). Nothing in flight is cut:
 * a request being served finishes, and a response tells its client to open a new connection for the next.
 */
import type { Server as HttpServer } from "node:http";
import type net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { RequestHandler } from "express";
import type { Server as SocketServer } from "socket.io";
import { tellPrimary } from "./sticky.server";

export type Phase = "starting" | "ready" | "draining";

export type Lifecycle = {
  phase: () => Phase;
  /** Ready for requests: says so to the cluster's primary, which starts handing this process connections. */
  ready: () => void;
  /** Every response of a draining process ends its connection (`Connection: close`). */
  closeWhenDraining: RequestHandler;
  /**
   * Drains: resolves once every connection has closed, or after `maxMs` (then the rest are closed).
   * `listening`: this process owns its port (no cluster) and stops accepting on it.
   */
  drain: (options: { maxMs: number; listening: boolean; io: SocketServer }) => Promise<void>;
};

export function lifecycle(httpServer: HttpServer): Lifecycle {
  let phase: Phase = "starting";
  const connections = new Set<net.Socket>();
  httpServer.on("connection", (socket: net.Socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
  });

  return {
    phase: () => phase,
    ready: () => {
      phase = "ready";
      tellPrimary({ type: "soko:ready" });
    },
    closeWhenDraining: (_req, res, next) => {
      if (phase === "draining") res.setHeader("Connection", "close");
      next();
    },
    drain: async ({ maxMs, listening, io }) => {
      phase = "draining";
      tellPrimary({ type: "soko:draining" });
      // Alone on its port, the process stops accepting (idle keep-alive connections close with it).
      if (listening) httpServer.close();
      // Each live connection's transport is closed: socket.io's client reconnects by itself ("transport close",
      // unlike a server-side disconnect), and the primary gives the new connection to another process.
      for (const socket of io.of("/").sockets.values()) socket.conn.close();
      const deadline = Date.now() + maxMs;
      // An idle keep-alive connection is left for its client to close: Node tells clients it keeps them 5 s
      // (Keep-Alive: timeout=5) and well-behaved clients close theirs first, so no request is sent into a
      // connection being closed.
      // (Node closes an idle one itself once its 5 s are up.) What is still open at the deadline is closed.
      while (connections.size > 0 && Date.now() < deadline) await sleep(100);
      for (const socket of connections) socket.destroy();
    },
  };
}
