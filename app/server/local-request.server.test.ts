import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isLocalRequest } from "./local-request.server";

const peer = (remoteAddress: string | undefined, headers: http.IncomingHttpHeaders = {}) => isLocalRequest({ socket: { remoteAddress }, headers });

describe("isLocalRequest", () => {
  it("takes loopback peers, in every form a socket reports them", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"]) {
      expect(peer(address), address).toBe(true);
    }
  });

  it("refuses every other peer, and a socket without an address", () => {
    for (const address of ["192.0.2.2", "::ffff:192.0.2.2", "10.0.0.1", "fd00::2", "fe80::1", "0.0.0.0", "::", "localhost", "", undefined]) {
      expect(peer(address), String(address)).toBe(false);
    }
  });

  it("refuses a loopback peer that forwards someone else's request (a proxy on this machine)", () => {
    expect(peer("127.0.0.1", { "x-forwarded-for": "203.0.113.9" })).toBe(false);
    expect(peer("::1", { forwarded: "for=203.0.113.9" })).toBe(false);
    expect(peer("127.0.0.1", { "x-real-ip": "203.0.113.9" })).toBe(false);
    // Even one claiming to be local: the header says a proxy is in between.
    expect(peer("127.0.0.1", { "x-forwarded-for": "127.0.0.1" })).toBe(false);
  });

  describe("on real connections", () => {
    let server: http.Server;
    let port: number;
    beforeAll(async () => {
      // Every interface, as `HOST=0.0.0.0` or a container would listen.
      server = http.createServer((req, res) => res.end(String(isLocalRequest(req))));
      await new Promise<void>((resolve) => server.listen(0, resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const ask = async (host: string, headers: Record<string, string> = {}) => (await fetch(`http://${host}:${port}/`, { headers })).text();

    it("answers true over 127.0.0.1 and ::1, false once a forwarding header is added", async () => {
      expect(await ask("127.0.0.1")).toBe("true");
      expect(await ask("[::1]")).toBe("true");
      expect(await ask("127.0.0.1", { "X-Forwarded-For": "127.0.0.1" })).toBe("false");
    });

    // This machine's own non-loopback addresses (never another host's).
    const own = Object.values(os.networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal && i.family === "IPv4")
      .map((i) => i!.address);
    it.runIf(own.length > 0)("answers false over this machine's own network address", async () => {
      expect(await ask(own[0]!)).toBe("false");
    });
  });
});
