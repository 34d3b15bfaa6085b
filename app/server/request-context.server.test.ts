import { describe, expect, it } from "vitest";
import { noteActor, noteRoute, openRequest, requestIdOf, type RequestContext } from "./request-context.server";

describe("request ids and the requests in flight", () => {
  it("keeps a caller's X-Request-Id only when it is a short safe token", () => {
    expect(requestIdOf("edge-7f3a:42")).toBe("edge-7f3a:42");
    for (const unsafe of ["", "a b", "x".repeat(65), "<script>", "id\nInjected: 1", ["a", "b"], undefined]) {
      const id = requestIdOf(unsafe as string | string[] | undefined);
      expect(id).not.toBe(unsafe);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("gives a request a new id when one in flight already has the caller's, so two never share log lines", () => {
    const first: RequestContext = { requestId: requestIdOf("shared-id") };
    const open = openRequest(first);
    expect(requestIdOf("shared-id")).not.toBe("shared-id");
    open.done();
    expect(requestIdOf("shared-id")).toBe("shared-id");
  });

  it("notes the deepest route and the member on the request in flight, and nothing once it has ended", () => {
    const context: RequestContext = { requestId: "req-route-1" };
    const open = openRequest(context);
    noteRoute("req-route-1", "root", 0);
    noteRoute("req-route-1", "routes/gig.$id", 1);
    noteRoute("req-route-1", "root", 0);
    noteActor("req-route-1", 12);
    expect(context).toMatchObject({ route: "routes/gig.$id", actorId: 12 });
    open.done();
    noteActor("req-route-1", 13);
    noteRoute("unknown", "routes/x", 9);
    expect(context.actorId).toBe(12);
  });
});
