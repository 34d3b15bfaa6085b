/**
 * The host names the built server answers (ADR 029). A Host it does not serve is answered 421 before anything
 * runs: a page, a form post, a tracking post (answered ahead of Express), socket.io's handshake and its
 * WebSocket upgrade. The names it serves are answered; /dev/outbox and /dev/pay only at a loopback name; and
 * a form's Origin must be the very origin it posts to (scheme, host and port). The DNS-rebinding take-over
 * (a page on evil.example whose name resolves to 127.0.0.1 asks for a reset mail, reads it from /dev/outbox,
 * resets the password and signs in) is replayed and fails at its first step.
 *
 * Two servers on one database: `served` has PUBLIC_URL (soko.test) and lists partner.example; `listing` has no
 * PUBLIC_URL and lists evil.example itself, so the pages of this machine alone are shown to be refused at a
 * name the server does serve.
 */
import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { streamEntries } from "~/analytics/ingest-stream.server";
import { getEnv } from "~/server/env.server";
import { createRedis } from "~/server/redis.server";
import { DEFAULT_PASSWORD, createSession, createUser } from "../support/factories";
import { orderTestContext, placeTestOrder } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("hosts", { parties: true });
/** The served server's own namespace (rate limits, tracking stream): not the sandbox's, which `listing` shares. */
const SERVED_PREFIX = `${t.queuePrefix}_served`;
let served: TestServer;
let listing: TestServer;
let redis: Redis;

beforeAll(async () => {
  redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  [served, listing] = await Promise.all([
    // TRUST_PROXY: the proxy test below speaks as a TLS-terminating proxy on this machine.
    startTestServer({
      DATABASE_URL: t.url,
      QUEUE_PREFIX: SERVED_PREFIX,
      DEV_OUTBOX: "1",
      PUBLIC_URL: "http://soko.test",
      ALLOWED_HOSTS: "partner.example",
      TRUST_PROXY: "loopback",
    }),
    startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, DEV_OUTBOX: "1", ALLOWED_HOSTS: "evil.example", PAYMENTS_SANDBOX: "1" }),
  ]);
});
afterAll(async () => {
  await Promise.all([served?.stop(), listing?.stop()]);
  await redis?.quit();
});

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };
type SendOptions = { host?: string; headers?: Record<string, string>; form?: Record<string, string>; body?: string };

/** One request to a server from this machine (a browser here), with the Host header it names (node:http can set one; fetch cannot). */
function send(
  server: TestServer,
  method: string,
  target: string,
  { host = `localhost:${server.port}`, headers = {}, form, body }: SendOptions = {},
): Promise<Answer> {
  const payload = form ? Buffer.from(new URLSearchParams(form).toString()) : body !== undefined ? Buffer.from(body) : undefined;
  const all: Record<string, string> = { Host: host, ...headers };
  if (form) all["Content-Type"] = "application/x-www-form-urlencoded";
  if (payload) all["Content-Length"] = String(payload.length);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, method, path: target, headers: all, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** A WebSocket upgrade of socket.io's, as a browser's page opens one: 101 when it is taken, else the answer's status. */
function upgrade(server: TestServer, host: string, origin = `http://${host}`): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: "127.0.0.1",
      port: server.port,
      path: "/socket.io/?EIO=4&transport=websocket",
      agent: false,
      headers: {
        Host: host,
        Origin: origin,
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": randomBytes(16).toString("base64"),
      },
    });
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

const ANDROID = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
/** A tracking post of one click, as the tracker sends it (text/plain, so no preflight). */
const trackingPost = (host: string, origin: string) => {
  const event = { event_id: randomUUID(), session_id: "1764000000000-k3j9x2", timestamp: Date.now(), action_type: "click", page: "/browse" };
  return { event, options: { host, headers: { Origin: origin, "Content-Type": "text/plain", "User-Agent": ANDROID }, body: JSON.stringify(event) } };
};
const queued = async (eventId: string) => (await streamEntries(redis, SERVED_PREFIX)).flatMap((entry) => entry.events).some((e) => e.event_id === eventId);
/** A sign-in that fails (400) once it reaches the form's action: an email of its own, so no sign-in limit is met. */
const wrongPassword = () => ({ email: `nobody.${randomBytes(4).toString("hex")}@example.ug`, password: "wrong-password-1" });
const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number((await t.db(table).where(where).count<{ c: string }[]>({ c: "*" }).first())?.c);

describe("a host name the server does not serve", () => {
  const foreign = () => [
    `evil.example:${served.port}`,
    "evil.example",
    `localhost.evil.example:${served.port}`,
    `soko.test.evil.example:${served.port}`,
    "10.0.0.5:3000",
  ];

  it("is answered 421 Misdirected Request, for a page and any path, before any route runs", async () => {
    for (const host of foreign()) {
      for (const target of ["/", "/terms", "/login", "/dev/outbox", "/definitely/not/here", "/__manifest?p=%2F&version=x", "/assets/x.js"]) {
        const res = await send(served, "GET", target, { host });
        expect(res.status, `${host} ${target}`).toBe(421);
        expect(res.body).toBe("Misdirected Request: this server does not serve that host name.");
      }
    }
    // In the visitor's language, from the request's own headers.
    const inLuganda = await send(served, "GET", "/", { host: "evil.example", headers: { "Accept-Language": "lg-UG" } });
    expect(inLuganda.headers["content-language"]).toBe("lg");
    expect(inLuganda.status).toBe(421);
    expect(inLuganda.body).toBe("Ekisabo kiyise we kitali: seeva eno tekola ku linnya lya mukutu eryo.");
  });

  it("is answered 421 for a form post, a tracking post and socket.io's handshake and upgrade, and nothing is written", async () => {
    await createUser(t.db, { name: "Host Victim", email: "host.victim@example.ug" });
    const before = { outbox: await count("outbox"), resets: await count("password_resets") };
    for (const host of foreign()) {
      const origin = `http://${host}`;
      const asked = await send(served, "POST", "/forgot-password", { host, headers: { Origin: origin }, form: { email: "host.victim@example.ug" } });
      expect(asked.status, host).toBe(421);
      // Answered ahead of Express (the exact path) and through it (any other spelling).
      for (const path of ["/api/v1/analytics/action", "/api/v1/analytics/action?x=1"]) {
        const { event, options } = trackingPost(host, origin);
        expect((await send(served, "POST", path, options)).status, `${host} ${path}`).toBe(421);
        expect(await queued(event.event_id)).toBe(false);
      }
      const handshake = await send(served, "GET", "/socket.io/?EIO=4&transport=polling", { host, headers: { Origin: origin } });
      expect(handshake.status, host).toBe(421);
      expect(handshake.body).not.toContain('"sid"');
      expect(await upgrade(served, host), host).toBe(421);
    }
    expect({ outbox: await count("outbox"), resets: await count("password_resets") }).toEqual(before);

    // The same requests at our own name do what they are for: the refusals above were the host's.
    const local = `localhost:${served.port}`;
    const asked = await send(served, "POST", "/forgot-password", {
      host: local,
      headers: { Origin: `http://${local}` },
      form: { email: "host.victim@example.ug" },
    });
    expect(asked.status).toBe(200);
    expect(await count("outbox")).toBe(before.outbox + 1);
    const { event, options } = trackingPost(local, `http://${local}`);
    expect((await send(served, "POST", "/api/v1/analytics/action", options)).status).toBe(202);
    expect(await queued(event.event_id)).toBe(true);
    expect((await send(served, "GET", "/socket.io/?EIO=4&transport=polling", { host: local, headers: { Origin: `http://${local}` } })).body).toContain('"sid"');
    expect(await upgrade(served, local)).toBe(101);
  });

  it("is checked in X-Forwarded-Host too, and a Host that is no host name is a 400", async () => {
    const res = await send(served, "GET", "/terms", { headers: { "X-Forwarded-Host": "evil.example" } });
    expect(res.status).toBe(421);
    expect((await send(served, "GET", "/terms", { host: "local host" })).status).toBe(400);
  });

  it("may still ask /healthz: a load balancer asks by address", async () => {
    for (const host of ["10.0.0.5:3000", "evil.example"]) {
      const res = await send(served, "GET", "/healthz", { host });
      expect(res.status, host).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ ok: true });
    }
  });
});

describe("the host names the server serves", () => {
  it("are the loopback names on any port, PUBLIC_URL's host and its admin host on any port, and ALLOWED_HOSTS", async () => {
    const port = served.port;
    const main = [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      "localhost",
      `soko.test:${port}`,
      "soko.test",
      "partner.example",
      `partner.example:${port}`,
    ];
    const admin = [`admin.localhost:${port}`, `admin.soko.test:${port}`, "admin.soko.test"];
    for (const host of [...main, ...admin]) {
      const res = await send(served, "GET", "/login", { host });
      expect(res.status, host).toBe(200);
      expect(res.body, host).toContain(`data-site="${admin.includes(host) ? "admin" : "main"}"`);
    }
    // Each posts to itself: its own origin passes the same-origin check (a wrong password is a 400, not a 403).
    for (const host of [`localhost:${port}`, `soko.test:${port}`, `admin.localhost:${port}`, `admin.soko.test:${port}`, `partner.example:${port}`]) {
      const res = await send(served, "POST", "/login", { host, headers: { Origin: `http://${host}` }, form: wrongPassword() });
      expect(res.status, host).toBe(400);
    }
    // The other server lists evil.example, and serves nothing else but loopback names.
    expect((await send(listing, "GET", "/login", { host: `evil.example:${listing.port}` })).status).toBe(200);
    expect((await send(listing, "GET", "/login", { host: `soko.test:${listing.port}` })).status).toBe(421);
  });

  it("are named in the log at start; without PUBLIC_URL, it says only localhost names and the list are served", () => {
    expect(served.output()).toContain(
      "[web] serving the host names partner.example, soko.test, admin.soko.test, localhost, *.localhost, 127.0.0.1 and [::1] on any port; any other Host is answered 421 Misdirected Request",
    );
    expect(listing.output()).toContain("[web] PUBLIC_URL is not set: only localhost names and ALLOWED_HOSTS are served.");
  });
});

describe("the pages of this machine alone", () => {
  it("/dev/outbox is 404 at any name but a loopback one, even one the server serves and from this machine", async () => {
    await t
      .db("outbox")
      .insert({ to_address: "someone@example.ug", subject: "Reset your Soko password", body: "http://localhost/reset-password?token=outbox-secret" });
    for (const host of [`localhost:${listing.port}`, `127.0.0.1:${listing.port}`]) {
      const res = await send(listing, "GET", "/dev/outbox", { host });
      expect(res.status, host).toBe(200);
      expect(res.body).toContain("outbox-secret");
    }
    for (const [host, headers] of [
      [`evil.example:${listing.port}`, {}],
      ["evil.example", {}],
      [`localhost:${listing.port}`, { "X-Forwarded-Host": "evil.example" }],
    ] as const) {
      for (const target of ["/dev/outbox", "/dev/outbox.data"]) {
        const res = await send(listing, "GET", target, { host, headers });
        expect(res.status, `${host} ${JSON.stringify(headers)} ${target}`).toBe(404);
        expect(res.body).not.toContain("outbox-secret");
      }
    }
  });

  it("/dev/pay is 404 at any name but a loopback one, for its buyer too, and an answer there changes nothing", async () => {
    const { reference } = await placeTestOrder(t, t.buyer, t.gigId);
    const cookie = `soko_session=${await createSession(t.db, t.buyer.id)}`;
    const local = `localhost:${listing.port}`;
    const prompt = await send(listing, "GET", `/dev/pay/${reference}`, { host: local, headers: { Cookie: cookie } });
    expect(prompt.status).toBe(200);
    expect(prompt.body).toContain("Approve");
    const evil = `evil.example:${listing.port}`;
    expect((await send(listing, "GET", `/dev/pay/${reference}`, { host: evil, headers: { Cookie: cookie } })).status).toBe(404);
    const answer = await send(listing, "POST", `/dev/pay/${reference}`, {
      host: evil,
      headers: { Cookie: cookie, Origin: `http://${evil}` },
      form: { intent: "approve" },
    });
    expect(answer.status).toBe(404);
    expect(await t.sandbox.get(reference)).toMatchObject({ status: "PENDING" });
    // The payment page links to the prompt at a loopback name only; at a served name it says where the prompt is.
    const orderId = (await t.db("payments").where({ reference }).first("order_id"))!.order_id as number;
    const atLocal = await send(listing, "GET", `/orders/${orderId}/pay`, { host: local, headers: { Cookie: cookie } });
    expect(atLocal.body).toContain(`href="/dev/pay/${reference}"`);
    const atEvil = await send(listing, "GET", `/orders/${orderId}/pay`, { host: evil, headers: { Cookie: cookie } });
    expect(atEvil.status).toBe(200);
    expect(atEvil.body).not.toContain("/dev/pay/");
    expect(atEvil.body).toContain("opens only on the machine that runs Soko");
  });
});

describe("a form's Origin", () => {
  const refused = "This form was sent from another site, so it was refused. Send it from its own page on Soko.";
  const login = (server: TestServer, host: string, headers: Record<string, string>) => send(server, "POST", "/login", { host, headers, form: wrongPassword() });

  it("must be the origin posted to: our host over another scheme or port is refused (403), for forms, tracking and socket.io", async () => {
    const local = `localhost:${served.port}`;
    const sources: Record<string, string>[] = [
      { Origin: `https://${local}` },
      { Origin: `http://localhost:${served.port + 1}` },
      { Origin: "http://localhost" },
      { Referer: `https://${local}/login` },
    ];
    for (const source of sources) {
      const res = await login(served, local, source);
      expect(res.status, JSON.stringify(source)).toBe(403);
      expect(res.body).toBe(refused);
    }
    expect((await login(served, local, { Origin: `http://${local}` })).status).toBe(400);
    expect((await login(served, local, { Referer: `http://${local}/login` })).status).toBe(400);
    // The admin host's page posts to the admin host, not the main one (nor the other way round).
    expect((await login(served, `admin.localhost:${served.port}`, { Origin: `http://${local}` })).status).toBe(403);

    const { event, options } = trackingPost(local, `https://${local}`);
    const tracked = await send(served, "POST", "/api/v1/analytics/action", options);
    expect(tracked.status).toBe(403);
    expect(await queued(event.event_id)).toBe(false);
    expect((await send(served, "GET", "/socket.io/?EIO=4&transport=polling", { host: local, headers: { Origin: `https://${local}` } })).status).toBe(403);
    // engine.io answers a refused upgrade 400 (a handshake over polling 403).
    expect(await upgrade(served, local, `https://${local}`)).toBe(400);
    expect(await upgrade(served, local, `http://${local}`)).toBe(101);
  });

  it("takes the scheme from a proxy TRUST_PROXY trusts (X-Forwarded-Proto), and from nobody else", async () => {
    const host = `soko.test:${served.port}`;
    expect((await login(served, host, { Origin: `https://${host}`, "X-Forwarded-Proto": "https" })).status).toBe(400);
    expect((await login(served, host, { Origin: `http://${host}`, "X-Forwarded-Proto": "https" })).status).toBe(403);
    // The listing server trusts no proxy: the connection's scheme (http) is the one that counts.
    const other = `localhost:${listing.port}`;
    expect((await login(listing, other, { Origin: `https://${other}`, "X-Forwarded-Proto": "https" })).status).toBe(403);
    expect((await login(listing, other, { Origin: `http://${other}`, "X-Forwarded-Proto": "https" })).status).toBe(400);
  });
});

/**
 * The take-over a page on evil.example could do once its name resolved to 127.0.0.1 (DNS rebinding): the
 * victim's own browser, on this machine, sends each request with Host evil.example and Origin
 * http://evil.example, so the server saw a same-origin page of its own. What the page got at each step.
 */
async function rebind(server: TestServer, email: string) {
  const host = `evil.example:${server.port}`;
  const origin = `http://${host}`;
  const asked = await send(server, "POST", "/forgot-password", { host, headers: { Origin: origin }, form: { email } });
  const outbox = await send(server, "GET", "/dev/outbox", { host });
  const mail = outbox.body.split("<article").find((article) => article.includes(email)) ?? "";
  const token = /reset-password\?token=([\w-]+)/.exec(mail)?.[1] ?? null;
  let signedIn = false;
  if (token) {
    const password = "taken-over-pass-1";
    await send(server, "POST", "/reset-password", { host, headers: { Origin: origin }, form: { token, password, confirmPassword: password } });
    const login = await send(server, "POST", "/login", { host, headers: { Origin: origin }, form: { email, password } });
    signedIn = login.status === 302 && /soko_session=/.test(String(login.headers["set-cookie"] ?? ""));
  }
  return { asked: asked.status, read: outbox.status, token, signedIn };
}

describe("the DNS-rebinding take-over, replayed", () => {
  it("is refused at its first step: the reset is never asked, no mail is readable, nobody signs in", async () => {
    const victim = await createUser(t.db, { name: "Rebind Victim", email: "rebind.victim@example.ug" });
    expect(await rebind(served, victim.email)).toEqual({ asked: 421, read: 421, token: null, signedIn: false });
    expect(await count("password_resets", { user_id: victim.id })).toBe(0);
    // The victim's own password still signs them in.
    const own = await send(served, "POST", "/login", {
      headers: { Origin: `http://localhost:${served.port}` },
      form: { email: victim.email, password: DEFAULT_PASSWORD },
    });
    expect(own.status).toBe(302);
    expect(own.headers.location).toBe("/dashboard");
  });

  it("fails at a name the server serves too: the mail is sent, but its link is this machine's and the outbox is not shown there", async () => {
    const victim = await createUser(t.db, { name: "Listed Victim", email: "listed.victim@example.ug" });
    expect(await rebind(listing, victim.email)).toEqual({ asked: 200, read: 404, token: null, signedIn: false });
    const mail = await t.db("outbox").where({ to_address: victim.email }).orderBy("id", "desc").first();
    expect(mail.body).toMatch(new RegExp(`http://localhost:${listing.port}/reset-password\\?token=`));
    expect(mail.body).not.toContain("evil.example");
    const own = await send(listing, "POST", "/login", {
      headers: { Origin: `http://localhost:${listing.port}` },
      form: { email: victim.email, password: DEFAULT_PASSWORD },
    });
    expect(own.headers.location).toBe("/dashboard");
  });

  it("fails through the JSON API too: its reset mail's link is this machine's, never the name the request gave", async () => {
    const victim = await createUser(t.db, { name: "Api Listed Victim", email: "api.listed.victim@example.ug" });
    const host = `evil.example:${listing.port}`;
    const asked = await send(listing, "POST", "/api/v1/auth/forgot-password", {
      host,
      headers: { Origin: `http://${host}`, "Content-Type": "application/json" },
      body: JSON.stringify({ email: victim.email }),
    });
    expect(asked.status).toBe(200);
    const mail = await t.db("outbox").where({ to_address: victim.email }).orderBy("id", "desc").first();
    expect(mail.body).toMatch(new RegExp(`http://localhost:${listing.port}/reset-password\\?token=`));
    expect(mail.body).not.toContain("evil.example");
  });
});
