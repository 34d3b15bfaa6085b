/**
 * Client addresses as the web process handles them, without the GeoIP database: the truncation we store
 * (/24 for IPv4, /48 for IPv6: docs/product.md) and the key a rate limit counts an address under. An IPv4-mapped
 * IPv6 address (`::ffff:41.210.145.12`, what a dual-stack socket reports) is the IPv4 address it carries.
 *
 * Kept apart from the place lookup (geo.server.ts): what needs only these (the rate limits, the truncation)
 * loads no GeoIP reader.
 */
import net from "node:net";

/** The IPv4 address inside an IPv4-mapped IPv6 address, or the address unchanged. */
export function unmapIp(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped?.[1] ?? ip;
}

/** Expands an IPv6 address into its eight 16-bit groups; null when it is not one. */
function ipv6Groups(ip: string): number[] | null {
  if (net.isIPv6(ip) === false) return null;
  let text = ip.replace(/%.*$/, "");
  // A trailing dotted IPv4 part (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) becomes two groups.
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part ? part.split(":").map((g) => parseInt(g, 16)) : []);
  const front = parse(head);
  if (tail === undefined) return front.length === 8 ? front : null;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The address as we store it: IPv4 with its last octet zeroed (/24), IPv6 with all but the first three
 * groups zeroed (/48), written in the compressed form (`2c0f:f5c0:1::`). Anything else: ''.
 */
export function truncateIp(rawIp: string): string {
  const ip = unmapIp(rawIp);
  if (net.isIPv4(ip)) {
    const [a, b, c] = ip.split(".");
    return `${Number(a)}.${Number(b)}.${Number(c)}.0`;
  }
  const groups = ipv6Groups(ip);
  if (!groups) return "";
  const kept = groups.slice(0, 3);
  // Trailing zero groups of the kept three are folded into the "::" with the zeroed rest.
  while (kept.length > 0 && kept[kept.length - 1] === 0) kept.pop();
  return `${kept.map((g) => g.toString(16)).join(":")}::`;
}

/**
 * The key a rate limit counts an address under: the IPv4 address itself, or the /64 of an IPv6 address
 * (one subscriber gets a whole /64, so counting single IPv6 addresses would count nothing).
 */
export function rateLimitKey(rawIp: string): string {
  const ip = unmapIp(rawIp);
  if (net.isIPv4(ip)) return ip;
  const groups = ipv6Groups(ip);
  if (!groups) return ip || "unknown";
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}
