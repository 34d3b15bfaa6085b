import { Form } from "@remix-run/react";
import { SubmitButton } from "~/components/forms";
import { isUnnamedPackage, TIER_KEY } from "~/domain/catalog-vocabulary";
import { useT } from "~/i18n/react";
import type { GigPackage } from "~/models/gig.server";
import { usePreferences } from "~/hooks/use-preferences";

/**
 * The gig page's package panel: Basic / Standard / Premium as tabs and one Continue button. The tabs are radio
 * buttons (the form's `package` field) and CSS shows the chosen package's parts (app.css, gig page block), so
 * switching needs no JavaScript and no request, and the page stays cacheable. Continue posts the chosen package
 * to the page's action, as the old per-package buttons did. Its accessible name says which package and price:
 * only the chosen package's hidden words are displayed.
 */
export function PackagePanel({ packages, buyable }: { packages: GigPackage[]; buyable: boolean }) {
  const { price } = usePreferences();
  const { t } = useT();
  if (packages.length === 0) return null; // a draft that has none yet
  const tabbed = packages.length > 1;
  const part = (p: GigPackage, kind: string) => `pkg-part pkg-${kind} pkg-${p.tier}`;
  const body = (
    <>
      {tabbed ? (
        packages.map((p, i) => (
          <input key={p.tier} type="radio" name="package" value={p.tier} id={`pkg-${p.tier}`} className="visually-hidden" defaultChecked={i === 0} />
        ))
      ) : (
        <input type="hidden" name="package" value={packages[0]?.tier} />
      )}
      {tabbed ? (
        <div className="pkg-tabs">
          {packages.map((p) => (
            <label key={p.tier} htmlFor={`pkg-${p.tier}`}>
              {t(TIER_KEY[p.tier])}
            </label>
          ))}
        </div>
      ) : null}
      {packages.map((p) => (
        <section key={p.tier} className={part(p, "top")} aria-labelledby={`package-${p.tier}`}>
          <h3 id={`package-${p.tier}`}>
            {t(TIER_KEY[p.tier])}
            {/* A package left unnamed is stored with its tier's English name: said once, as the tier, in the reader's language. */}
            {isUnnamedPackage(p.tier, p.name) ? "" : `: ${p.name}`}
            {p.popular ? (
              <>
                {" "}
                <span className="status-badge">{t("catalog.pkg.popular")}</span>
              </>
            ) : null}
          </h3>
          <p className="pkg-price">{price(p.priceUgx)}</p>
          <p className="pkg-facts">{t("catalog.pkg.facts", { days: p.deliveryDays, revisions: p.revisions })}</p>
        </section>
      ))}
      {buyable ? (
        <>
          <SubmitButton name="intent" value="continue" pendingLabel={t("catalog.shared.pending")}>
            {t("catalog.pkg.continue")}
            {packages.map((p) => (
              <span key={p.tier} className={`visually-hidden pkg-for pkg-${p.tier}`}>
                {` ${t("catalog.pkg.with", { tier: t(TIER_KEY[p.tier]), price: price(p.priceUgx) })}`}
              </span>
            ))}
          </SubmitButton>
          <p className="escrow-note">{t("catalog.pkg.escrow")}</p>
        </>
      ) : null}
      {packages.map((p) =>
        p.description || p.features.length ? (
          <div key={p.tier} className={part(p, "more")}>
            {p.description ? <p>{p.description}</p> : null}
            {p.features.length ? (
              <ul>
                {p.features.map((f) => (
                  <li key={f}>{f}</li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : null,
      )}
    </>
  );
  const className = tabbed ? "pkg" : "pkg pkg-only";
  return buyable ? (
    <Form method="post" className={className}>
      {body}
    </Form>
  ) : (
    <div className={className}>{body}</div>
  );
}
