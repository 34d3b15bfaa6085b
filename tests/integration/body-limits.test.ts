/**
 * Request body caps (ADR 010) through the real built server: a form body over 1 MB, or an
 * image form over its total, is answered 413 in words, whether it says its size up front (Content-Length) or
 * streams without one (chunked), before any action reads it; the web process does not take the body into
 * memory; a form of more than 100 parts is refused by every form reader; nothing is stored; forms under the
 * caps, the largest legitimate image form included, still work.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConversation } from "~/operations/messages.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { DEFAULT_PASSWORD, createSession, createUser } from "../support/factories";
import { gigFormData as gigForm } from "../support/gig-form";
import { memberActor } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestDatabase;
let server: TestServer;
let uploadDir: string;
let png: Buffer; // a small real image
let nearlyFiveMb: Buffer; // a real image just under the 5 MB a file may have
const PASSWORD = DEFAULT_PASSWORD;
const MEMBER = { email: "member@example.ug" };
const tokens: Record<"member" | "seller", string> = { member: "", seller: "" };
const ids: Record<"member" | "seller", number> = { member: 0, seller: 0 };
const MB = 1024 * 1024;

beforeAll(async () => {
  t = await createTestDatabase();
  for (const [who, role] of [
    ["member", "client"],
    ["seller", "freelancer"],
  ] as const) {
    ids[who] = (await createUser(t.db, { role, name: `Test ${who}`, email: `${who}@example.ug` })).id;
    tokens[who] = await createSession(t.db, ids[who]);
  }
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-body-limits-"));
  png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#0a0" } })
    .png()
    .toBuffer();
  // 1320 x 1320 x 3 bytes, stored without compression: 5,229,000 bytes of PNG, 13 KB under the limit.
  nearlyFiveMb = await sharp({ create: { width: 1320, height: 1320, channels: 3, background: "#000", noise: { type: "gaussian", mean: 128, sigma: 40 } } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  expect(nearlyFiveMb.length).toBeGreaterThan(5 * MB - 20_000);
  expect(nearlyFiveMb.length).toBeLessThanOrEqual(5 * MB);
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: `bodylim_${process.pid}_${Date.now()}`, UPLOAD_DIR: uploadDir });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await t?.drop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------
// Helpers

type Answer = { status: number; text: string; headers: http.IncomingHttpHeaders };
type Body = Buffer | (() => AsyncGenerator<Buffer>);

/**
 * Sends a body as a client would: with its Content-Length, or (`chunked`) streamed without one. The client
 * goes on sending the whole body even when the answer comes first, as curl and browsers do; the answer is
 * what it reads. An error after the answer (the server hanging up on the rest) does not count.
 */
function send(
  urlPath: string,
  { body, contentType, cookie, chunked = false }: { body: Body; contentType: string; cookie?: string; chunked?: boolean },
): Promise<Answer> {
  const headers: Record<string, string> = { Host: `localhost:${server.port}`, Origin: server.baseUrl, "Content-Type": contentType };
  if (cookie) headers.Cookie = cookie;
  if (!chunked) {
    if (!Buffer.isBuffer(body)) throw new Error("a body with a Content-Length is a Buffer here");
    headers["Content-Length"] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request({ host: "127.0.0.1", port: server.port, path: urlPath, method: "POST", headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString("utf8"), headers: res.headers }));
      res.on("error", reject);
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    if (Buffer.isBuffer(body)) {
      // Written in pieces, so a chunked request really arrives in chunks.
      (async () => {
        for (let i = 0; i < body.length && !req.destroyed; i += 64 * 1024) {
          if (!req.write(body.subarray(i, i + 64 * 1024))) await new Promise((r) => req.once("drain", r));
        }
        req.end();
      })().catch(() => undefined);
    } else {
      (async () => {
        for await (const chunk of body()) {
          if (req.destroyed) return;
          if (!req.write(chunk)) await new Promise((r) => req.once("drain", r));
        }
        req.end();
      })().catch(() => undefined);
    }
  });
}

/** `bytes` bytes of a URL-encoded form with one long field, in 64 KB pieces, made as they are sent. */
function urlencoded(bytes: number, prefix = `email=${encodeURIComponent(MEMBER.email)}&password=wrong&filler=`) {
  return async function* () {
    yield Buffer.from(prefix);
    const piece = Buffer.alloc(64 * 1024, "x");
    for (let left = bytes - prefix.length; left > 0; left -= piece.length) yield left >= piece.length ? piece : piece.subarray(0, left);
  };
}

/** A multipart body as a browser encodes it (FormData through `new Response`). */
async function multipart(form: FormData): Promise<{ body: Buffer; contentType: string }> {
  const encoded = new Response(form);
  return { body: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get("content-type")! };
}

const URLENCODED = "application/x-www-form-urlencoded";
const session = (who: "member" | "seller") => `soko_session=${tokens[who]}`;

/**
 * The pid of the web process itself: the test server's child, node running the compiled build/processes/server.js
 * (ADR 020), or a process under it (tsx running server.ts, as `npm run dev` does).
 */
function webPid(): number {
  const queue = [server.child.pid!];
  while (queue.length) {
    const pid = queue.shift()!;
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    const runsServer =
      cmdline.some((arg) => arg.endsWith("processes/server.js")) || (pid !== server.child.pid && cmdline.some((arg) => arg.endsWith("server.ts")));
    if (runsServer) return pid;
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
    if (children) queue.push(...children.split(/\s+/).map(Number));
  }
  throw new Error("the web process was not found under the test server");
}

/** Resident memory of a process in bytes (VmRSS in /proc/<pid>/status). */
function rss(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) * 1024;
}

/** Runs `work` while sampling the web process's memory every 20 ms; the most it grew by. */
async function growthDuring(work: () => Promise<unknown>): Promise<number> {
  const pid = webPid();
  const before = rss(pid);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, rss(pid))), 20);
  try {
    await work();
    await new Promise((r) => setTimeout(r, 200)); // memory the process takes just after answering is counted too
    peak = Math.max(peak, rss(pid));
  } finally {
    clearInterval(timer);
  }
  return peak - before;
}

const filesIn = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);
const count = async (table: string) => Number((await t.db(table).count<{ c: string }[]>({ c: "*" }).first())?.c);
const stored = async () => ({
  sessions: await count("sessions"),
  gigs: await count("gigs"),
  uploads: await count("uploads"),
  gig_images: await count("gig_images"),
  avatars: (await t.db("users").whereNotNull("avatar_key").pluck("avatar_key")) as string[],
  files: filesIn(uploadDir),
});

function profileForm(avatar: Buffer, extraFiles: Buffer[] = []) {
  const form = new FormData();
  form.append("name", "Test member");
  form.append("avatar", new Blob([new Uint8Array(avatar)], { type: "image/png" }), "me.png");
  extraFiles.forEach((data, i) => form.append(`extra${i}`, new Blob([new Uint8Array(data)], { type: "image/png" }), `extra-${i}.png`));
  return form;
}

// ---------------------------------------------------------------------------------------------------------

describe("a form body over 1 MB is refused before any action reads it", () => {
  it("2 MB to /login with its Content-Length: 413 in words, and no session", async () => {
    const before = await stored();
    const body = Buffer.from(`email=${encodeURIComponent(MEMBER.email)}&password=${PASSWORD}&filler=${"x".repeat(2 * MB)}`);
    const res = await send("/login", { body, contentType: URLENCODED });
    expect(res.status).toBe(413);
    expect(res.headers["content-type"]).toMatch(/^text\/plain/);
    expect(res.text).toContain("This form is larger than 1 MB");
    // A browser's kept-alive connection reads the same answer.
    const kept = await fetch(`${server.baseUrl}/login`, { method: "POST", body, headers: { "Content-Type": URLENCODED, Origin: server.baseUrl } });
    expect(kept.status).toBe(413);
    expect(await kept.text()).toContain("This form is larger than 1 MB");
    expect(await stored()).toEqual(before);
  });

  it("2 MB streamed to /login without a Content-Length: 413, cut at the cap, and no session", async () => {
    const before = await stored();
    const res = await send("/login", {
      body: urlencoded(2 * MB, `email=${encodeURIComponent(MEMBER.email)}&password=${PASSWORD}&filler=`),
      contentType: URLENCODED,
      chunked: true,
    });
    expect(res.status).toBe(413);
    expect(res.text).toContain("This form is larger than 1 MB");
    expect(await stored()).toEqual(before);
  });

  it("200 MB to /login, streamed or announced: 413, and the web process grows by less than 50 MB", async () => {
    let chunked: Answer | undefined;
    const streamed = await growthDuring(async () => {
      chunked = await send("/login", { body: urlencoded(200 * MB), contentType: URLENCODED, chunked: true });
    });
    expect(streamed).toBeLessThan(50 * MB);
    expect(chunked?.status).toBe(413);

    // With a Content-Length the answer needs no byte of the body; the client sends it all anyway.
    const body = Buffer.alloc(200 * MB, "x");
    body.write("filler=");
    let announced: Answer | undefined;
    const growth = await growthDuring(async () => {
      announced = await send("/login", { body, contentType: URLENCODED });
    });
    expect(growth).toBeLessThan(50 * MB);
    expect(announced?.status).toBe(413);
  }, 120_000);

  it("a multipart form without files over 1 MB, on a page that takes no files: 413", async () => {
    const form = new FormData();
    form.append("currentPassword", PASSWORD);
    form.append("password", "y".repeat(1.5 * MB));
    const { body, contentType } = await multipart(form);
    const res = await send("/settings?tab=security", { body, contentType, cookie: session("member") });
    expect(res.status).toBe(413);
    expect(res.text).toContain("This form is larger than 1 MB");
  });
});

describe("an image form is capped in total", () => {
  // Seven images of just under 5 MB: each is allowed, together they are more than any form of ours sends.
  it("settings: 36 MB of files with a valid picture: 413 by Content-Length, no picture stored, no file written", async () => {
    const before = await stored();
    const { body, contentType } = await multipart(profileForm(png, Array(7).fill(nearlyFiveMb)));
    expect(body.length).toBeGreaterThan(31 * MB);
    const res = await send("/settings?tab=profile", { body, contentType, cookie: session("member") });
    expect(res.status).toBe(413);
    expect(res.text).toContain("This form is larger than 31 MB");
    expect(res.text).toContain("Images can be at most 5 MB each");
    expect(await stored()).toEqual(before);
  });

  it("settings: the same form streamed without a Content-Length: 413, nothing stored", async () => {
    const before = await stored();
    const { body, contentType } = await multipart(profileForm(png, Array(7).fill(nearlyFiveMb)));
    const res = await send("/settings?tab=profile", { body, contentType, cookie: session("member"), chunked: true });
    expect(res.status).toBe(413);
    expect(res.text).toContain("This form is larger than 31 MB");
    expect(await stored()).toEqual(before);
  });

  it("a conversation: seven files of 10 MB with a message: 413 over its 61 MB, no message stored, no file written", async () => {
    const started = await startConversation(
      memberActor({ id: ids.member, name: "Test member", username: "", email: "member@example.ug", role: "client" }),
      { userId: ids.seller },
      { db: t.db },
    );
    const conversationId = started.ok ? started.value.conversationId : "";
    const files = filesIn(path.join(uploadDir, "order-files"));
    const form = new FormData();
    form.append("body", "Here are the photos");
    const tenMb = Buffer.alloc(10 * MB, 0x25);
    for (let i = 0; i < 7; i++) form.append("files", new Blob([new Uint8Array(tenMb)], { type: "application/pdf" }), `photo-${i}.pdf`);
    const { body, contentType } = await multipart(form);
    const res = await send(`/messages/${conversationId}`, { body, contentType, cookie: session("member"), chunked: true });
    expect(res.status).toBe(413);
    expect(res.text).toContain("This form is larger than 61 MB");
    expect(await t.db("messages").where({ conversation_id: conversationId }).pluck("id")).toEqual([]);
    expect(filesIn(path.join(uploadDir, "order-files"))).toEqual(files);
  });

  it("gig editor: seven images of 5 MB: 413, nothing in uploads, no gig, no file written", async () => {
    const before = await stored();
    const { body, contentType } = await multipart(gigForm(Array(7).fill(nearlyFiveMb)));
    const res = await send("/gig/create", { body, contentType, cookie: session("seller"), chunked: true });
    expect(res.status).toBe(413);
    expect(await stored()).toEqual(before);
  });
});

describe("a form of more than 100 parts is refused by every form reader", () => {
  function manyParts(fields: Record<string, string>, extra: number) {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    for (let i = 0; i < extra; i++) form.append(`p${i}`, "1");
    return multipart(form);
  }

  it("sign-in (readFormData): 1,000 tiny parts with the right password: 413, no session", async () => {
    const before = await stored();
    const { body, contentType } = await manyParts({ email: MEMBER.email, password: PASSWORD }, 1000);
    expect(body.length).toBeLessThan(MB);
    const res = await send("/login", { body, contentType });
    expect(res.status).toBe(413);
    // The error page says what was wrong, not "Something went wrong".
    expect(res.text).toContain("This form has more than 100 fields, more than any page of ours sends.");
    expect(await stored()).toEqual(before);
  });

  it("profile settings (readMultipartFormData): 1,000 tiny parts and a picture: 413, no picture stored", async () => {
    const before = await stored();
    const form = profileForm(png);
    for (let i = 0; i < 1000; i++) form.append(`p${i}`, "1");
    const { body, contentType } = await multipart(form);
    const res = await send("/settings?tab=profile", { body, contentType, cookie: session("member") });
    expect(res.status).toBe(413);
    expect(await stored()).toEqual(before);
  });

  it("gig editor (its own reader): 1,000 tiny parts and an image: 413, no gig, nothing in uploads", async () => {
    const before = await stored();
    const form = gigForm([png]);
    for (let i = 0; i < 1000; i++) form.append("tags", "t");
    const { body, contentType } = await multipart(form);
    const res = await send("/gig/create", { body, contentType, cookie: session("seller") });
    expect(res.status).toBe(413);
    expect(await stored()).toEqual(before);
  });
});

describe("forms under the caps still work", () => {
  it("sign-in with a Content-Length, streamed without one, and with 900 KB of extra field", async () => {
    const body = (extra = "") => Buffer.from(`email=${encodeURIComponent(MEMBER.email)}&password=${PASSWORD}${extra}`);
    for (const [payload, chunked] of [
      [body(), false],
      [body(), true],
      [body(`&filler=${"x".repeat(900 * 1024)}`), false],
      [body(`&filler=${"x".repeat(900 * 1024)}`), true],
    ] as const) {
      const res = await send("/login", { body: payload, contentType: URLENCODED, chunked });
      expect(res.status, `chunked: ${chunked}, ${payload.length} bytes: ${res.text.slice(0, 200)}`).toBe(302);
      expect(res.headers.location).toBe("/dashboard");
      expect(String(res.headers["set-cookie"])).toContain("soko_session=");
    }
  });

  it("the largest gig form (five images of nearly 5 MB each) is published with its five images", async () => {
    const before = await stored();
    const { body, contentType } = await multipart(gigForm(Array(5).fill(nearlyFiveMb)));
    expect(body.length).toBeGreaterThan(24 * MB);
    const res = await send("/gig/create", { body, contentType, cookie: session("seller") });
    expect(res.status, res.text.slice(0, 500)).toBe(302);
    expect(res.headers.location).toBe("/dashboard?gig=published");
    const gig = await t.db("gigs").where({ seller_id: ids.seller }).orderBy("id", "desc").first("id");
    expect(await t.db("gig_images").where({ gig_id: gig.id }).count<{ c: number }[]>({ c: "*" }).first()).toEqual({ c: 5 });
    expect((await stored()).files.length).toBe(before.files.length + 15); // a small, a thumb and a large size each
  }, 60_000);

  it("a profile picture with the form, streamed without a Content-Length, is stored", async () => {
    const { body, contentType } = await multipart(profileForm(png));
    const res = await send("/settings?tab=profile", { body, contentType, cookie: session("member"), chunked: true });
    expect(res.status, res.text.slice(0, 500)).toBe(302);
    const user = await t.db("users").where({ id: ids.member }).first("avatar_key");
    expect(user.avatar_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(filesIn(uploadDir)).toContain(`${user.avatar_key}-avatar.webp`);
  });
});
