import { Link as RemixLink, NavLink as RemixNavLink, type LinkProps, type NavLinkProps } from "@remix-run/react";
import fc from "fast-check";
import { renderToString } from "react-dom/server";
import { StaticRouter } from "react-router-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Link, NavLink } from "~/components/link";
import { installServerAnchors } from "./server-anchors.server";

// The app's Link and NavLink with the anchors installed, as the web process has them unless SPEED_PATCHES=off.
beforeAll(() => void installServerAnchors());
afterAll(() => void installServerAnchors(false));

/** An element's server markup, on a page at `location` (the test runs where there is no document: the server). */
function markupOf(element: React.ReactElement, location = "/orders/5") {
  return renderToString(
    <StaticRouter location={location}>
      <nav>{element}</nav>
    </StaticRouter>,
  );
}

function markup(Component: typeof Link | typeof RemixLink, props: LinkProps, location?: string) {
  return markupOf(<Component {...props} />, location);
}

function expectSame(props: LinkProps, location?: string) {
  expect(markup(Link, props, location), JSON.stringify(props)).toBe(markup(RemixLink, props, location));
}

describe("Link on the server", () => {
  it("writes the anchor Remix's Link writes, for every kind of link the app has", () => {
    const targets = [
      "/",
      "/browse",
      "/browse?category=graphics-design&sort=rating",
      "/gig/12#reviews",
      "/gig/12?reviews=2#reviews",
      "/orders/5?confirm=cancel#cancel",
      "/settings/",
      "/search?q=logo%20design",
      "/user/ama%C3%A9",
      "/a?",
      "/a#",
      "/a?#b",
      "/a/../b",
      "/a/./b",
      "//evil.example/x",
      "/\\evil.example",
      "/a b",
      "?tab=2",
      "#top",
      "",
      ".",
      "../users?member=3",
      "users",
      "https://example.com/x",
      "mailto:help@soko.ug",
    ];
    for (const to of targets) {
      expectSame({ to, children: "Go" });
      expectSame({ to, children: "Go" }, "/browse/");
      expectSame({ to, className: "button", "aria-current": "page", preventScrollReset: true, replace: true, state: { a: 1 }, children: <span>Go</span> });
      expectSame({ to, target: "_blank", rel: "noopener", title: "Opens a tab", children: "Go" });
      expectSame({ to, prefetch: "intent", children: "Go" });
      expectSame({ to, discover: "none", children: "Go" });
      expectSame({ to, reloadDocument: true, children: "Go" });
      expectSame({ to, relative: "path", children: "Go" });
    }
    expectSame({ to: { pathname: "/gig/3", search: "?x=1" }, children: "Go" });
  });

  it("writes the same anchor for any absolute path", () => {
    fc.assert(
      fc.property(
        fc.webPath(),
        fc.option(fc.webQueryParameters(), { nil: undefined }),
        fc.option(fc.webFragments(), { nil: undefined }),
        (path, query, fragment) => {
          const to = `/${path.replace(/^\/+/, "")}${query === undefined ? "" : `?${query}`}${fragment === undefined ? "" : `#${fragment}`}`;
          expectSame({ to, className: "c", children: "x" });
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("writes the anchor itself, not through the router's hooks, for a plain path (what makes it cheaper)", () => {
    // Outside a router a Remix Link throws (it needs the router's context); the anchor does not.
    expect(renderToString(<Link to="/browse?category=writing">Writing</Link>)).toBe('<a data-discover="true" href="/browse?category=writing">Writing</a>');
    expect(() => renderToString(<Link to="?tab=2">Tab</Link>)).toThrow();
  });
});

function navMarkup(Component: typeof NavLink | typeof RemixNavLink, props: NavLinkProps, location: string) {
  return markupOf(<Component {...props} />, location);
}

function expectSameNav(props: NavLinkProps, location: string) {
  expect(navMarkup(NavLink, props, location), `${JSON.stringify(props)} at ${location}`).toBe(navMarkup(RemixNavLink, props, location));
}

describe("without the patch (SPEED_PATCHES=off)", () => {
  it("is Remix's Link and NavLink, which need the router", () => {
    installServerAnchors(false);
    try {
      expect(() => renderToString(<Link to="/browse">Browse</Link>)).toThrow();
      expect(markupOf(<NavLink to="/orders">Orders</NavLink>)).toBe(markupOf(<RemixNavLink to="/orders">Orders</RemixNavLink>));
    } finally {
      installServerAnchors();
    }
  });
});

describe("NavLink on the server", () => {
  const locations = [
    "/",
    "/browse",
    "/browse/",
    "/browse/graphics",
    "/Browse",
    "/browsers",
    "/orders/5",
    "/messages?c=3",
    "/settings/password",
    "/notifications",
    "/users/",
    "/a%20b/c",
  ];
  const targets = [
    "/",
    "/browse",
    "/browse/",
    "/BROWSE",
    "/orders",
    "/orders/5",
    "/messages",
    "/settings",
    "/notifications",
    "/users/",
    "/a/../b",
    "/a//b",
    "/a b",
    "/amaé",
    "/browse?x=1",
    "browse",
    "../orders",
    ".",
    "",
  ];

  it("writes the anchor, active or not, that Remix's NavLink writes", () => {
    for (const location of locations) {
      for (const to of targets) {
        expectSameNav({ to, children: "Go" }, location);
        expectSameNav({ to, className: "button button-small", children: "Go" }, location);
        expectSameNav({ to, end: true, children: "Go" }, location);
        expectSameNav({ to, caseSensitive: true, children: "Go" }, location);
        expectSameNav(
          { to, "aria-current": "location", "aria-label": "Messages, 2 unread", ...{ "data-live": "connected" }, children: <span>Go</span> },
          location,
        );
        expectSameNav({ to, style: { color: "red" }, title: "t", target: "_blank", children: "Go" }, location);
        expectSameNav({ to, className: ({ isActive }) => (isActive ? "on" : "off"), children: ({ isActive }) => (isActive ? "here" : "there") }, location);
        expectSameNav({ to, prefetch: "intent", children: "Go" }, location);
        expectSameNav({ to, reloadDocument: true, children: "Go" }, location);
      }
    }
  });

  it("writes the same anchor for any path of plain characters, at any location", () => {
    // Segments of one to six characters (an empty one, "//", is no URL react-router's NavLink can encode), and
    // sometimes a trailing slash.
    const segment = fc.stringMatching(/^[A-Za-z0-9\-._~]{1,6}$/);
    const path = fc.tuple(fc.array(segment, { maxLength: 4 }), fc.boolean()).map(([parts, slash]) => `/${parts.join("/")}${slash && parts.length ? "/" : ""}`);
    fc.assert(
      fc.property(path, path, fc.boolean(), fc.boolean(), (to, location, end, caseSensitive) => {
        expectSameNav({ to, end, caseSensitive, className: "c", children: "x" }, location);
      }),
      { numRuns: 1000 },
    );
  });

  it("writes the anchor itself, not through the router's hooks, for a plain path", () => {
    // Outside a router Remix's NavLink throws; ours needs only the location.
    const html = renderToString(
      <StaticRouter location="/orders/5">
        <NavLink to="/orders">Orders</NavLink>
      </StaticRouter>,
    );
    expect(html).toBe('<a data-discover="true" aria-current="page" class="active" href="/orders">Orders</a>');
  });
});
