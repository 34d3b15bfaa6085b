/**
 * Mail: /dev/outbox is shown to this machine only and only while no mail server is configured; with
 * SMTP_URL the worker delivers the outbox through a real SMTP server (smtp-server, on 127.0.0.1), at least
 * once, with retries, and never logs a body.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { SMTPServer, type SMTPServerAddress } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isOutboxOpen, sendMail } from "~/models/outbox.server";
import { getEnv, parseEnv } from "~/server/env.server";
import { startMailDelivery } from "../../worker/mail-sender.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";

const root = path.resolve(import.meta.dirname, "../..");

/** This machine's own non-loopback IPv4 address, if it has one (never another host's). */
const ownAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === "IPv4")?.address;

async function until<T>(read: () => Promise<T> | T, ok: (value: T) => boolean, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Received = { from: string; to: string[]; raw: string };

/** A real SMTP server on 127.0.0.1 that wants a user name and password, as a mail provider would. */
async function startSmtp({ rcpt }: { rcpt?: (address: string) => Error | null } = {}) {
  const received: Received[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === "soko-mailer" && auth.password === "smtp-secret-pw") return callback(null, { user: auth.username });
      callback(new Error("Invalid username or password"));
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      callback(rcpt?.(address.address) ?? null);
    },
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (d: Buffer) => (raw += d.toString("utf8")));
      stream.on("end", () => {
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    received,
    url: `smtp://soko-mailer:smtp-secret-pw@127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The text of a received message, undoing quoted-printable (soft line breaks, "=3D" for "="). */
function textOf(raw: string) {
  const body = raw.slice(raw.indexOf("\r\n\r\n") + 4);
  if (!/^Content-Transfer-Encoding: quoted-printable/im.test(raw)) return body;
  return body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** A temporary refusal (the server is busy), as SMTP servers give it: the sender should try again later. */
function busy() {
  return Object.assign(new Error("Try again later"), { responseCode: 451 });
}

describe("who may see /dev/outbox (isOutboxOpen)", () => {
  const env = (vars: Record<string, string>) => parseEnv({ DATABASE_URL: "postgres://x@h/x", REDIS_URL: "redis://h", CLICKHOUSE_URL: "http://h", ...vars });
  it("a local request while no mail server is configured; in production only with DEV_OUTBOX", () => {
    const local = { isLocalRequest: true };
    const remote = { isLocalRequest: false };
    expect(isOutboxOpen(env({ NODE_ENV: "development" }), local)).toBe(true);
    expect(isOutboxOpen(env({ NODE_ENV: "production", DEV_OUTBOX: "1" }), local)).toBe(true);
    expect(isOutboxOpen(env({ NODE_ENV: "development" }), remote)).toBe(false);
    expect(isOutboxOpen(env({ NODE_ENV: "production", DEV_OUTBOX: "1" }), remote)).toBe(false);
    expect(isOutboxOpen(env({ NODE_ENV: "production" }), local)).toBe(false);
    expect(isOutboxOpen(env({ NODE_ENV: "production", DEV_OUTBOX: "0" }), local)).toBe(false);
    expect(isOutboxOpen(env({ NODE_ENV: "development", SMTP_URL: "smtp://127.0.0.1:2525" }), local)).toBe(false);
    expect(isOutboxOpen(env({ NODE_ENV: "production", DEV_OUTBOX: "1", SMTP_URL: "smtp://127.0.0.1:2525" }), local)).toBe(false);
  });
});

describe("/dev/outbox without a mail server (npm start's demo set-up, listening on every interface)", () => {
  let t: TestDatabase;
  let server: TestServer;
  beforeAll(async () => {
    t = await createTestDatabase();
    await sendMail(t.db, { to: "someone@example.ug", subject: "Reset your Soko password", body: "https://soko.test/reset-password?token=secret-token" });
    // HOST unset: every interface, so the test can also arrive from this machine's network address.
    server = await startTestServer({ DATABASE_URL: t.url, DEV_OUTBOX: "1", TRUST_PROXY: "loopback", QUEUE_PREFIX: `outbox_${process.pid}` });
  });
  afterAll(async () => {
    await server?.stop();
    await t?.drop();
  });

  const get = (host: string, headers: Record<string, string> = {}) => fetch(`http://${host}:${server.port}/dev/outbox`, { headers });

  it("shows the mail to a browser on this machine", async () => {
    const res = await get("127.0.0.1");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Reset your Soko password");
  });

  it.runIf(ownAddress)("answers 404 to a client on the network, even though the page exists", async () => {
    // A browser on the network names the address it asked for: not a name this server serves (ADR 029).
    const res = await get(ownAddress!);
    expect(res.status).toBe(421);
    expect(await res.text()).not.toContain("secret-token");
    // A client that names localhost all the same is still no program on this machine.
    const named = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get({ host: ownAddress, port: server.port, path: "/dev/outbox", headers: { Host: `localhost:${server.port}` } }, (r) => {
          let body = "";
          r.on("data", (d: Buffer) => (body += d));
          r.on("end", () => resolve({ status: r.statusCode ?? 0, body }));
        })
        .on("error", reject);
    });
    expect(named.status).toBe(404);
    expect(named.body).not.toContain("secret-token");
  });

  it("answers 404 to a request a proxy forwarded, even from a proxy on this machine", async () => {
    const forwarded: Record<string, string>[] = [
      { "X-Forwarded-For": "203.0.113.9" },
      { "X-Forwarded-For": "127.0.0.1" },
      { Forwarded: "for=203.0.113.9" },
      { "X-Real-IP": "127.0.0.1" },
    ];
    for (const headers of forwarded) {
      const res = await get("127.0.0.1", headers);
      expect(res.status, JSON.stringify(headers)).toBe(404);
      expect(await res.text()).not.toContain("secret-token");
    }
  });
});

describe("mail through SMTP_URL (the worker drains the outbox)", () => {
  let t: TestDatabase;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let server: TestServer;
  const failFirst = new Set<string>();
  const refused = new Set<string>();
  const attemptsBy = new Map<string, number>();

  beforeAll(async () => {
    t = await createTestDatabase();
    smtp = await startSmtp({
      rcpt: (address) => {
        attemptsBy.set(address, (attemptsBy.get(address) ?? 0) + 1);
        if (refused.has(address)) return Object.assign(new Error("No such user here"), { responseCode: 550 });
        if (failFirst.has(address) && attemptsBy.get(address) === 1) return busy();
        return null;
      },
    });
    await createUser(t.db, { name: "Mail Reset", email: "reset.me@example.ug", password: "old-password-1" });
    // As npm start runs it: 127.0.0.1 only (HOST), the demo outbox flag on, and a real mail server.
    // A gateway key as well: the page also lists the SMS sandbox's texts, and with both real services set it has nothing to show.
    server = await startTestServer({
      DATABASE_URL: t.url,
      DEV_OUTBOX: "1",
      SMTP_URL: smtp.url,
      AFRICASTALKING_API_KEY: "test-key-unused",
      AFRICASTALKING_BASE_URL: "http://127.0.0.1:9",
      HOST: "127.0.0.1",
      QUEUE_PREFIX: `smtp_${process.pid}`,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
    await t?.drop();
  });

  it("a reset request ends as one mail with the link, sent by the worker process; the log never shows the link or the SMTP password", async () => {
    const form = await fetch(`${server.baseUrl}/forgot-password`, {
      method: "POST",
      headers: { Origin: server.baseUrl, "Content-Type": "application/x-www-form-urlencoded" },
      body: "email=reset.me%40example.ug",
    });
    expect(await form.text()).toContain("If an account uses that email");

    const env = getEnv();
    const worker = spawn(path.join(root, "node_modules", ".bin", "tsx"), ["worker/index.ts"], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: t.url,
        REDIS_URL: env.REDIS_URL,
        CLICKHOUSE_URL: env.CLICKHOUSE_URL,
        SMTP_URL: smtp.url,
        QUEUE_PREFIX: `smtp_${process.pid}`,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    worker.stdout.on("data", (d) => (output += d));
    worker.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => worker.once("exit", (code) => resolve(code)));
    try {
      await until(
        () => smtp.received.length,
        (n) => n >= 1,
      );
      const row = await until(
        () => t.db("outbox").where({ to_address: "reset.me@example.ug" }).first(),
        (r) => r?.sent_at != null,
      );
      expect(row.attempts).toBe(1);
    } finally {
      worker.kill("SIGTERM");
    }
    expect(await exited).toBe(0);

    expect(smtp.received).toHaveLength(1);
    const [mail] = smtp.received;
    expect(mail!.to).toEqual(["reset.me@example.ug"]);
    expect(mail!.from).toBe("no-reply@soko.ug");
    expect(mail!.raw).toMatch(/^Subject: Reset your Soko password/m);
    const token = /\/reset-password\?token=([\w-]+)/.exec(textOf(mail!.raw))?.[1];
    expect(token).toBeTruthy();
    // The link in the mail is a working one.
    expect((await fetch(`${server.baseUrl}/reset-password?token=${token}`)).status).toBe(200);

    expect(output).toContain("[mail] delivering the outbox through smtp://soko-mailer:***@127.0.0.1:");
    expect(output).toMatch(/\[mail\] #\d+ sent \(attempt 1\)/);
    expect(output).not.toContain(token);
    expect(output).not.toContain("smtp-secret-pw");
  });

  it("/dev/outbox is 404 while SMTP_URL and the SMS gateway key are set, even from this machine", async () => {
    const res = await fetch(`${server.baseUrl}/dev/outbox`);
    expect(res.status).toBe(404);
  });

  it.runIf(ownAddress)("npm start's HOST=127.0.0.1: the site is not reachable from the network", async () => {
    await expect(fetch(`http://${ownAddress}:${server.port}/healthz`)).rejects.toThrow();
    expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
  });

  it("retries a mail the server refused for now, with a pause, and delivers it once; gives up on a permanent refusal", async () => {
    failFirst.add("busy@example.ug");
    refused.add("nobody@example.ug");
    await sendMail(t.db, { to: "busy@example.ug", subject: "Welcome to Soko", body: "Hello busy" });
    await sendMail(t.db, { to: "nobody@example.ug", subject: "Welcome to Soko", body: "Hello nobody" });
    const before = smtp.received.length;
    const delivery = startMailDelivery(parseEnv({ ...process.env, DATABASE_URL: t.url, SMTP_URL: smtp.url }), { db: t.db, pollMs: 50, retryInitialMs: 500 })!;
    try {
      const busy = await until(
        () => t.db("outbox").where({ to_address: "busy@example.ug" }).first(),
        (r) => r?.sent_at != null,
      );
      expect(busy.attempts).toBe(2);
      expect(busy.last_error).toContain("451");
      // The second attempt waited out its pause (500 ms, ±20%).
      expect(new Date(busy.sent_at).getTime() - new Date(busy.created_at).getTime()).toBeGreaterThanOrEqual(400);
      const nobody = await until(
        () => t.db("outbox").where({ to_address: "nobody@example.ug" }).first(),
        (r) => r?.next_attempt_at === null,
      );
      expect(nobody).toMatchObject({ sent_at: null, attempts: 1 });
      expect(nobody.last_error).toContain("550");
    } finally {
      await delivery.close();
    }
    const delivered = smtp.received.slice(before);
    expect(delivered.map((m) => m.to)).toEqual([["busy@example.ug"]]);
    expect(attemptsBy.get("busy@example.ug")).toBe(2);
    expect(attemptsBy.get("nobody@example.ug")).toBe(1);
  });
});
