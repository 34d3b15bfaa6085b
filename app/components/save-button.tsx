/**
 * The heart that saves a gig or a seller (ADR 052), on gig cards, gig pages and profiles. A plain form posting to
 * /saved, which sends the browser back to this page without JavaScript; with it, a fetcher: the heart turns at
 * once (optimistic), says it is busy, and the page's loaders reload when the action is done. A visitor gets a
 * link to sign in that brings them back here. The state comes from the member's own rows (the loader's), never
 * from a cached page: cached pages are built for visitors only (ADR 019).
 */
import { useFetcher, useLocation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { Link } from "~/components/link";
import { useT } from "~/i18n/react";

type Props = {
  kind: "gig" | "seller";
  id: number;
  /** The gig's title or the seller's name, for the button's words. */
  name: string;
  /** Whether the member has saved it; null for a visitor (a sign-in link instead). */
  saved: boolean | null;
  /** A smaller heart with its words for screen readers only (on a card). */
  compact?: boolean;
};

export function SaveButton({ kind, id, name, saved, compact = false }: Props) {
  const { t } = useT();
  const location = useLocation();
  const fetcher = useFetcher();
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const here = `${location.pathname}${location.search}`;
  const label = kind === "gig" ? t("catalog.saved.button.saveGig", { name }) : t("catalog.saved.button.saveSeller", { name });
  if (saved === null) {
    return (
      <Link
        className={`save-button${compact ? " save-compact" : ""}`}
        to={`/login?redirectTo=${encodeURIComponent(here)}`}
        aria-label={compact ? label : undefined}
      >
        <span aria-hidden="true">♡</span>
        {compact ? null : <> {t("catalog.saved.button.signInToSave")}</>}
      </Link>
    );
  }
  // Optimistic: the state the form on its way asks for, until the loaders say what is stored.
  const sending = fetcher.formData?.get("intent");
  const isSaved = sending ? sending === "save" : saved;
  const busy = fetcher.state !== "idle";
  return (
    <fetcher.Form method="post" action="/saved" className="save-form">
      {hydrated ? <input type="hidden" name="inPlace" value="1" /> : null}
      <input type="hidden" name="kind" value={kind} />
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="redirectTo" value={here} />
      <button
        type="submit"
        name="intent"
        value={isSaved ? "unsave" : "save"}
        className={`save-button${isSaved ? " is-saved" : ""}${compact ? " save-compact" : ""}${busy ? " is-busy" : ""}`}
        aria-pressed={isSaved}
        // The same name whether pressed or not (a toggle says its state by aria-pressed), with "Save" in it as shown.
        aria-label={label}
        aria-busy={busy || undefined}
        title={label}
      >
        <span aria-hidden="true">{isSaved ? "♥" : "♡"}</span>
        {compact ? null : <> {t("catalog.saved.button.save")}</>}
      </button>
    </fetcher.Form>
  );
}
