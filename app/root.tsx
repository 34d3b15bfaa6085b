import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { useEffect, type ReactNode } from "react";
import { GeneralErrorBoundary } from "~/components/general-error-boundary";
import { SiteFooter } from "~/components/site-footer";
import { SiteHeader } from "~/components/site-header";
import { AdminHeader } from "~/components/admin-header";
import { getUser } from "~/utils/auth.server";
import { getDisplayCurrency } from "~/utils/currency.server";
import { getDb } from "~/utils/db.server";
import { getAdminSiteUrl, getMainSiteUrl, getSiteHost } from "~/utils/host.server";
import { useNonce } from "~/utils/nonce-provider";
import appStylesUrl from "~/styles/app.css?url";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: appStylesUrl },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await getUser(request);
  return {
    user: user ? { name: user.name, username: user.username, role: user.role } : null,
    currency: await getDisplayCurrency(getDb(), request, user),
    timeZone: user?.timeZone ?? "EAT",
    site: getSiteHost(request),
    mainSiteUrl: getMainSiteUrl(request),
    adminSiteUrl: getAdminSiteUrl(request),
    year: new Date().getFullYear(),
  };
}

export const meta: MetaFunction = () => [
  { title: "Soko: hire Ugandan freelancers" },
  {
    name: "description",
    content: "Fixed-price services from vetted Ugandan freelancers, paid through escrow, priced in UGX.",
  },
];

export function Layout({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  const data = useRouteLoaderData<typeof loader>("root");
  const site = data?.site ?? "main";
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#0f5132" />
        <Meta />
        <Links />
      </head>
      <body data-site={site}>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        {site === "admin" ? (
          <AdminHeader mainSiteUrl={data?.mainSiteUrl ?? "/"} user={data?.user ?? null} />
        ) : (
          <SiteHeader user={data?.user ?? null} />
        )}
        <main id="main" className="site-main" tabIndex={-1}>
          {children}
        </main>
        {site === "main" ? <SiteFooter year={data?.year ?? new Date().getFullYear()} /> : null}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  useLoaderData<typeof loader>();
  // Marks the document once React has hydrated: end-to-end specs wait for it before clicking.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return <Outlet />;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
