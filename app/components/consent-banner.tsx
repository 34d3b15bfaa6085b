import { useFetcher, useLocation } from "@remix-run/react";
import { Link } from "~/components/link";
import { useEffect, useState } from "react";

/**
 * Asks for the analytics choice while none is stored (the root shows it on both hosts). A plain form posting
 * to /consent, so it works without JavaScript (the server sets the cookie and sends the visitor back here);
 * with JavaScript it submits in place and disappears, and the root starts the tracker if allowed.
 */
export function ConsentBanner() {
  const fetcher = useFetcher();
  const location = useLocation();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  // Gone as soon as a choice is on its way; the root's reloaded data then keeps it gone.
  if (fetcher.state !== "idle" || fetcher.data) return null;
  return (
    <div className="container">
      <section className="notice" aria-labelledby="consent-banner-title">
        <h2 id="consent-banner-title">Your privacy choice</h2>
        <p>
          We count anonymous page views. May we also record how you use Soko (clicks, scrolling, time on a page, page errors) to improve it?{" "}
          <Link to="/privacy">How we handle your data</Link>
        </p>
        <fetcher.Form method="post" action="/consent" className="form-actions">
          <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
          {hydrated ? <input type="hidden" name="inPlace" value="1" /> : null}
          <button type="submit" name="consent" value="granted" className="button button-small">
            Allow analytics
          </button>
          <button type="submit" name="consent" value="denied" className="button button-secondary button-small">
            Only anonymous page views
          </button>
        </fetcher.Form>
      </section>
    </div>
  );
}
