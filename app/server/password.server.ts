import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

// scrypt (Node's own, no native dependency) with N=2^17, r=8, p=1 (OWASP's minimum for scrypt): 128 MiB
// and a few hundred milliseconds per hash. The stored string names its parameters, so a hash made with
// weaker ones still verifies, and passwordNeedsRehash tells sign-in to store a stronger one.
const PARAMS = { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 } satisfies ScryptOptions;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, params, (err, key) => (err ? reject(err) : resolve(key))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString("base64")}$${key.toString("base64")}`;
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = stored?.split("$");
  if (!parts || parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [, n, r, p, salt, key] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(key, "base64");
  try {
    const actual = await derive(password, Buffer.from(salt, "base64"), {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: PARAMS.maxmem,
    });
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  } catch {
    return false; // a damaged stored hash (bad parameters) never signs anyone in, and never throws
  }
}

/** Whether a stored hash was made with weaker parameters than today's (or is not ours): store a new one. */
export function passwordNeedsRehash(stored: string | null | undefined): boolean {
  const parts = stored?.split("$");
  if (!parts || parts.length !== 6 || parts[0] !== "scrypt") return true;
  const [, n, r, p] = parts.map(Number);
  return n! < PARAMS.N || r! < PARAMS.r || p! < PARAMS.p;
}
