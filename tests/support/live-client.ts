/**
 * A member's socket.io client on a test server, as a browser's page holds one: the session cookie and our
 * Origin on the handshake, every server event kept in order, client events answered by their
 * acknowledgement. Shared by the chat and notification tests.
 */
import { io as connect, type Socket } from "socket.io-client";
import type { TestServer } from "./test-server";

const WAIT_MS = 5_000;

type Event = { event: string; data: unknown };

export class LiveClient {
  readonly events: Event[] = [];
  private waiters: (() => void)[] = [];
  readonly socket: Socket;

  /** `token` is the session cookie's value (null: a visitor); `origin` the page's (ours unless a test says). */
  constructor(
    server: Pick<TestServer, "baseUrl">,
    token: string | null,
    { origin = server.baseUrl, polling = false }: { origin?: string; polling?: boolean } = {},
  ) {
    this.socket = connect(server.baseUrl, {
      // HTTP long-polling only, when a test says: each round trip is a request of its own.
      transports: polling ? ["polling"] : ["websocket"],
      reconnection: false,
      forceNew: true,
      extraHeaders: { origin, ...(token ? { cookie: `soko_session=${token}` } : {}) },
    });
    this.socket.onAny((event: string, data: unknown) => {
      this.events.push({ event, data });
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Connected, or the reason the server gave for refusing the handshake. */
  connected(): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (this.socket.connected) return Promise.resolve({ ok: true });
    return new Promise((resolve) => {
      this.socket.once("connect", () => resolve({ ok: true }));
      this.socket.once("connect_error", (error) => resolve({ ok: false, reason: error.message }));
    });
  }

  async connect(): Promise<this> {
    const result = await this.connected();
    if (!result.ok) throw new Error(`the socket was refused: ${result.reason}`);
    return this;
  }

  /** The reason the connection ends (the next disconnect). */
  disconnection(): Promise<string> {
    return new Promise((resolve) => this.socket.once("disconnect", resolve));
  }

  /** A client event with its acknowledgement (the operation's answer). */
  ask<T = Record<string, unknown>>(event: string, payload?: unknown): Promise<T & { ok: boolean; error?: string; message?: string }> {
    return this.socket.timeout(WAIT_MS).emitWithAck(event, payload);
  }

  /** The first `event` received (now or later) whose data passes `match`. */
  async next<T>(event: string, match: (data: T) => boolean = () => true): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const found = this.events.find((e) => e.event === event && match(e.data as T));
      if (found) return found.data as T;
      if (!(await this.wait(deadline))) throw new Error(`no ${event} within ${WAIT_MS} ms; received: ${JSON.stringify(this.events.map((e) => e.event))}`);
    }
  }

  /** Every `event` received, once `count` of them have come (or what came within the wait). */
  async received<T>(event: string, count: number): Promise<T[]> {
    const deadline = Date.now() + WAIT_MS;
    while (this.all(event).length < count && (await this.wait(deadline)));
    return this.all<T>(event);
  }

  all<T>(event: string): T[] {
    return this.events.filter((e) => e.event === event).map((e) => e.data as T);
  }

  close() {
    this.socket.disconnect();
  }

  /** Until the next event or the deadline; false once the deadline has passed. */
  private async wait(deadline: number): Promise<boolean> {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, left);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    return true;
  }
}
