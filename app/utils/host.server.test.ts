import { describe, expect, it } from "vitest";
import { getAdminSiteUrl, getMainSiteUrl, getSiteHost, requireSiteHost } from "./host.server";

const request = (url: string) => new Request(url);

describe("site hosts", () => {
  it("serves the admin portal on host names starting with admin.", () => {
    expect(getSiteHost(request("http://admin.localhost:3000/users"))).toBe("admin");
    expect(getSiteHost(request("https://ADMIN.soko.ug/"))).toBe("admin");
    expect(getSiteHost(request("http://localhost:3000/"))).toBe("main");
    expect(getSiteHost(request("https://soko.ug/admin"))).toBe("main");
    expect(getSiteHost(request("https://administrator.soko.ug/"))).toBe("main");
  });

  it("links each host to the other, keeping scheme and port", () => {
    expect(getMainSiteUrl(request("http://admin.localhost:3000/users"))).toBe("http://localhost:3000");
    expect(getMainSiteUrl(request("http://localhost:3000/help"))).toBe("http://localhost:3000");
    expect(getAdminSiteUrl(request("https://soko.ug/"))).toBe("https://admin.soko.ug");
    expect(getAdminSiteUrl(request("http://admin.localhost:3000/"))).toBe("http://admin.localhost:3000");
  });

  it("answers 404 for a page asked of the wrong host", () => {
    expect(() => requireSiteHost(request("http://localhost/help"), "main")).not.toThrow();
    let thrown: unknown;
    try {
      requireSiteHost(request("http://admin.localhost/help"), "main");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(404);
  });
});
