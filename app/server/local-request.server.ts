import type { IncomingHttpHeaders } from "node:http";
import net from "node:net";

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Headers a proxy adds when it passes on someone else's request (the standard one and the customary ones). */
const FORWARDING_HEADERS = ["forwarded", "x-forwarded-for", "x-real-ip"] as const;

/**
 * Whether a request comes from a program on this machine: its TCP peer is a loopback address (127.0.0.0/8,
 * ::1, or 127.x as a dual-stack socket reports it, ::ffff:127.0.0.1) and it carries no proxy's forwarding
 * header. Only the socket counts, never X-Forwarded-For (the client writes that, and TRUST_PROXY decides
 * whether Express believes it); and a request a proxy forwarded is a stranger's, even when the proxy runs on
 * this machine and so connects from 127.0.0.1.
 */
export function isLocalRequest(req: { socket: { remoteAddress?: string }; headers: IncomingHttpHeaders }): boolean {
  const peer = req.socket.remoteAddress;
  if (!peer || net.isIP(peer) === 0) return false;
  if (!LOOPBACK.check(peer, net.isIPv4(peer) ? "ipv4" : "ipv6")) return false;
  return FORWARDING_HEADERS.every((name) => req.headers[name] === undefined);
}
