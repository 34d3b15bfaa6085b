import { describe, expect, it } from "vitest";
import { maskUrlCredentials } from "./mask-url";

describe("maskUrlCredentials", () => {
  it("hides the password of a URL and keeps the user, host, port and path", () => {
    const cases: [string, string][] = [
      ["redis://:s3cret@redis:6379", "redis://:***@redis:6379"],
      ["redis://default:s3cret@redis:6379/0", "redis://default:***@redis:6379/0"],
      ["postgres://soko:p%40ss@postgres:5432/soko", "postgres://soko:***@postgres:5432/soko"],
      ["smtps://mailer:hunter2@smtp.example.ug:465", "smtps://mailer:***@smtp.example.ug:465"],
      ["http://default:pw@127.0.0.1:18123", "http://default:***@127.0.0.1:18123"],
      // A URL parser reads the userinfo up to the last "@": so must the mask, or "ss@" would show.
      ["redis://u:p@ss@host:1", "redis://u:***@host:1"],
    ];
    for (const [url, masked] of cases) expect(maskUrlCredentials(url), url).toBe(masked);
  });

  it("leaves URLs without a password as they are", () => {
    for (const url of [
      "redis://127.0.0.1:63799",
      "http://127.0.0.1:18123/soko",
      "postgres://postgres@127.0.0.1:54329/soko",
      "http://localhost:3000/reset-password?token=a:b@c",
      "not a url: user:pw@host",
    ]) {
      expect(maskUrlCredentials(url)).toBe(url);
    }
  });

  it("masks every URL inside a longer message", () => {
    const message = "[worker] ready (redis redis://:a@r:6379, clickhouse http://u:b@c:8123/soko) after connect ECONNREFUSED";
    expect(maskUrlCredentials(message)).toBe("[worker] ready (redis redis://:***@r:6379, clickhouse http://u:***@c:8123/soko) after connect ECONNREFUSED");
  });
});
