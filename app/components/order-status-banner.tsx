/**
 * The banner at the top of an order's page: its title, its lines and its buttons, as the page's loader worded
 * them for the member reading it (app/content/order-banner.server.ts says what it says, and why).
 */
import type { ReactNode } from "react";
import type { Banner, BannerButton } from "~/content/order-banner.server";
import { Link } from "~/components/link";
import { OrderPost } from "~/components/order-buttons";

function BannerAction({ orderId, button, main }: { orderId: number; button: BannerButton; main: boolean }) {
  if ("post" in button) return <OrderPost orderId={orderId} intent="cancel" label={button.label} pendingLabel={button.pending} secondary={!main} />;
  const className = main ? "button" : "button button-secondary";
  // A form further down this page is a plain anchor (no navigation); anything else goes through the router.
  if (button.to.startsWith("#"))
    return (
      <a href={button.to} className={className}>
        {button.label}
      </a>
    );
  return (
    <Link to={button.to} className={className} preventScrollReset={button.to.includes("#")}>
      {button.label}
    </Link>
  );
}

/** The banner itself: its title, its lines, its buttons; `children` (a cancel request's answer) go below. */
export function OrderStatusBanner({ orderId, banner: b, children }: { orderId: number; banner: Banner; children?: ReactNode }) {
  return (
    <section className={`order-banner order-banner-${b.tone}`} aria-labelledby="order-banner-title">
      <h2 id="order-banner-title">{b.title}</h2>
      {b.lines.map((line) => (
        <p key={line}>{line}</p>
      ))}
      {b.main || b.more ? (
        <div className="order-banner-actions">
          {b.main ? <BannerAction orderId={orderId} button={b.main} main /> : null}
          {b.more ? <BannerAction orderId={orderId} button={b.more} main={false} /> : null}
        </div>
      ) : null}
      {children}
    </section>
  );
}
