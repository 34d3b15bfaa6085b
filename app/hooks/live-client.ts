/**
 * The browser's one live connection (socket.io), shared by everything on the page that wants live events:
 * the chat (app/hooks/use-chat.ts) and the header's bell. It is opened only for signed-in members and only
 * once the page has loaded JavaScript; the page works without it (ADR 016). The session cookie goes with the
 * handshake (same origin), so nothing secret is ever put in a URL.
 */
import { useEffect, useState, useSyncExternalStore } from "react";
import { io, type Socket } from "socket.io-client";

let socket: Socket | null = null;
let watchingNetwork = false;

/** The page's socket, opened on first use (in the browser only). */
export function getLiveSocket(): Socket {
  socket ??= io({
    // WebSocket first: on a slow network the polling round trips are what a user feels. HTTP long-polling is
    // the fallback where a network or proxy refuses WebSockets; engine.io-client (6.6) tries the next transport
    // only with tryAllTransports: without it the page tried WebSocket alone, again and again, and such a member
    // never saw anything live.
    transports: ["websocket", "polling"],
    tryAllTransports: true,
    withCredentials: true,
    reconnectionDelayMax: 10_000,
  });
  // The server ended this page's connection (it does when the member's sessions end: suspended, banned,
  // deleted, signed out elsewhere), and socket.io does not reconnect by itself after that. Signed out: the
  // page goes to sign-in at once rather than saying "reconnecting" forever; still signed in: it reconnects.
  socket.on("disconnect", (reason) => {
    if (reason !== "io server disconnect") return;
    void fetch("/notifications/counts", { credentials: "same-origin", cache: "no-store" })
      .then((res) => {
        if (res.status === 401) window.location.assign(`/login?redirectTo=${encodeURIComponent(window.location.pathname + window.location.search)}`);
        else if (res.ok) socket?.connect();
      })
      .catch(() => {});
  });
  // The phone lost its network: say so now, rather than when the socket's heartbeat next fails (up to 45
  // seconds later), and reconnect as soon as it can. (engine.io does this by itself on every host but
  // localhost; here it is the same on all of them.)
  if (!watchingNetwork) {
    watchingNetwork = true;
    window.addEventListener("offline", () => {
      if (socket?.connected) socket.io.engine?.close();
    });
  }
  return socket;
}

/** Ends the page's socket (signing out in place); the next use opens a new one. */
export function closeLiveSocket() {
  socket?.disconnect();
  socket = null;
}

function subscribe(onChange: () => void) {
  const s = getLiveSocket();
  s.on("connect", onChange);
  s.on("disconnect", onChange);
  s.io.on("reconnect_attempt", onChange);
  return () => {
    s.off("connect", onChange);
    s.off("disconnect", onChange);
    s.io.off("reconnect_attempt", onChange);
  };
}

/**
 * Whether the page's live connection is up: null before JavaScript has run (server render, no-JS), then
 * true or false. `enabled` false (a visitor) opens nothing.
 */
export function useLiveConnected(enabled: boolean): boolean | null {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const connected = useSyncExternalStore(
    enabled && hydrated ? subscribe : noop,
    () => (enabled && hydrated ? getLiveSocket().connected : false),
    () => false,
  );
  return enabled && hydrated ? connected : null;
}

const noop = () => () => {};

/** Calls `handler` for a live event while the component is mounted (members only). */
export function useLiveEvent<T>(enabled: boolean, event: string, handler: (data: T) => void) {
  useEffect(() => {
    if (!enabled) return;
    const s = getLiveSocket();
    const listener = (data: T) => handler(data);
    s.on(event, listener);
    return () => void s.off(event, listener);
  }, [enabled, event, handler]);
}

/** Sends a client event and waits for its acknowledgement (at most `timeoutMs`): the operation's answer. */
export async function ask<T = { ok: boolean; error?: string; message?: string; issues?: Record<string, string[]> }>(
  event: string,
  payload: unknown,
  timeoutMs = 10_000,
): Promise<T> {
  return getLiveSocket().timeout(timeoutMs).emitWithAck(event, payload) as Promise<T>;
}
