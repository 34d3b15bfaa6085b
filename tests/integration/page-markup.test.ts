/**
 * What screen readers and browsers read from the served HTML: a star rating is an image with a name, the
 * header names the member who is signed in, and /favicon.ico is an icon (browsers and bots ask for it without
 * reading the page), kept for a long time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGig, createReview, createSession, createUser, type TestUser } from "../support/factories";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestDatabase;
let server: TestServer;
let seller: TestUser;
let buyer: TestUser;
let buyerToken: string;
let gigId: number;

beforeAll(async () => {
  t = await createTestDatabase();
  seller = await createUser(t.db, { role: "freelancer", name: "Sarah Namuli" });
  buyer = await createUser(t.db, { role: "client", name: "Brian Okot" });
  buyerToken = await createSession(t.db, buyer.id);
  ({ id: gigId } = await createGig(t.db, { sellerId: seller.id, title: "I will design a bold logo for your shop" }));
  await createReview(t.db, { gigId, reviewerId: buyer.id, rating: 4, comment: "Good work." });
  server = await startTestServer({ DATABASE_URL: t.url });
});
afterAll(async () => {
  await server?.stop();
  await t?.drop();
});

const html = async (path: string, cookie?: string) => {
  const res = await fetch(`${server.baseUrl}${path}`, { headers: cookie ? { cookie } : {} });
  expect(res.status, path).toBe(200);
  return res.text();
};

describe("markup for screen readers and browsers", () => {
  it("shows star ratings as images named by their rating (an aria-label on a plain span is not allowed)", async () => {
    for (const path of [`/gig/${gigId}`, `/user/${seller.username}`]) {
      const stars = [...(await html(path)).matchAll(/<span class="stars"[^>]*>/g)].map((m) => m[0]);
      expect(stars.length, path).toBeGreaterThan(0);
      for (const tag of stars) {
        expect(tag, path).toContain('role="img"');
        expect(tag, path).toMatch(/aria-label="\d\.\d out of 5 stars"/);
      }
      expect(
        stars.some((tag) => tag.includes('aria-label="4.0 out of 5 stars"')),
        path,
      ).toBe(true);
    }
  });

  it("names the signed-in member in the header's accessible text", async () => {
    const page = await html("/", `soko_session=${buyerToken}`);
    // The member's name is an item of the header's menu.
    const user = /<li class="header-user"[^>]*>(.*?)<\/li>/s.exec(page);
    expect(user).not.toBeNull();
    const [tag] = /<li class="header-user"[^>]*>/.exec(page)!;
    // No label to replace what is inside: its text, hidden words included, is its name.
    expect(tag).not.toContain("aria-label");
    const text = user![1]!.replace(/<[^>]+>/g, "").replace(/<!-- -->/g, "");
    expect(text).toBe(`Signed in as ${buyer.name}`);
  });

  it("serves /favicon.ico as an icon, cached for a month", async () => {
    const res = await fetch(`${server.baseUrl}/favicon.ico`, { redirect: "manual" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=2592000");
    const bytes = Buffer.from(await res.arrayBuffer());
    // An ICO file: reserved 0, type 1 (icon), at least one image.
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2)]).toEqual([0, 1]);
    expect(bytes.readUInt16LE(4)).toBeGreaterThan(0);
    // The page's own icon keeps its hour.
    expect((await fetch(`${server.baseUrl}/favicon.svg`)).headers.get("cache-control")).toBe("public, max-age=3600");
  });
});
