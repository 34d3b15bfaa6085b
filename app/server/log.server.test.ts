import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./log.server";

/** A logger writing into an array of parsed lines. */
function captured(level = "info") {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: createLogger({ level, destination }), lines };
}

describe("the logger", () => {
  it("redacts secrets and personal data whatever a caller passes, at the top and one level down", () => {
    const { log, lines } = captured();
    log.info(
      {
        password: "pw-1",
        token: "tok-1",
        cookie: "soko_session=abc",
        phone: "+256772123456",
        text: "a private message",
        body: { anything: true },
        user: { id: 7, password: "pw-2", phone: "+256701234567", resetUrl: "https://soko.ug/reset-password?token=r1" },
        headers: { cookie: "c", authorization: "Bearer x", accept: "text/html" },
      },
      "something",
    );
    const text = JSON.stringify(lines);
    for (const secret of ["pw-1", "pw-2", "tok-1", "abc", "772123456", "701234567", "a private message", "anything", "token=r1", "Bearer x"]) {
      expect(text).not.toContain(secret);
    }
    expect(lines[0]).toMatchObject({ level: "info", msg: "something", user: { id: 7 }, headers: { accept: "text/html" } });
  });

  it("writes an error with its stack, the passwords of URLs in it masked", () => {
    const { log, lines } = captured();
    log.error({ err: new Error("connect ECONNREFUSED redis://:hunter2@cache:6379") }, "failed");
    const err = lines[0]!.err as { message: string; stack: string; type: string };
    expect(err.type).toBe("Error");
    expect(err.message).toBe("connect ECONNREFUSED redis://:***@cache:6379");
    expect(err.stack).toContain("log.server.test.ts");
    expect(JSON.stringify(lines)).not.toContain("hunter2");
  });

  it("writes nothing below its level", () => {
    const { log, lines } = captured("warn");
    log.info("quiet");
    log.warn("loud");
    expect(lines.map((l) => l.msg)).toEqual(["loud"]);
  });
});
