/**
 * Pieces of checkout and its "waiting for your phone" page: the payer's number and network (the network
 * follows the typed number until the payer picks one), a mobile number as people read it, and the waiting
 * page's poll while a payment is still open.
 */
import { useRevalidator } from "@remix-run/react";
import { useEffect, useState } from "react";
import { ErrorList } from "~/components/forms";
import { guessNetwork, NETWORK_LABEL, type Network } from "~/domain/mobile-money";
import { useT } from "~/i18n/react";

/** `+256772123456` → `+256 772 123 456`; anything else as it is. */
export function formatMsisdn(msisdn: string): string {
  const m = /^\+256(\d{3})(\d{3})(\d{3})$/.exec(msisdn);
  return m ? `+256 ${m[1]} ${m[2]} ${m[3]}` : msisdn;
}

/** The hidden field that tells the server which network the form showed chosen (resolveNetwork). */
export const NETWORK_OFFERED = "networkOffered";

/**
 * The payer's number and network. With JavaScript, typing a number moves the choice to that number's
 * network until the payer picks one themselves. Without it the radio stays where the page drew it, so the
 * form also sends that first choice (`networkOffered`): a radio left on it lets the server take the typed
 * number's network instead. A network the payer picked is sent as picked.
 */
export function PayerFields({
  msisdn,
  network,
}: {
  msisdn: { id: string; name: string; initialValue: string; errorId: string; errors?: string[] };
  network: { name: string; initialValue: Network; errorId: string; errors?: string[] };
}) {
  const [chosen, setChosen] = useState<Network>(network.initialValue);
  const [picked, setPicked] = useState(false);
  const invalid = Boolean(msisdn.errors?.length);
  const { t } = useT();
  return (
    <>
      <div className="field">
        <label htmlFor={msisdn.id}>{t("orders.payer.msisdn")}</label>
        <p id={`${msisdn.id}-hint`} className="field-hint">
          {t("orders.payer.msisdnHint")}
        </p>
        <input
          id={msisdn.id}
          name={msisdn.name}
          type="tel"
          autoComplete="tel"
          required
          maxLength={30}
          defaultValue={msisdn.initialValue}
          aria-invalid={invalid || undefined}
          aria-describedby={invalid ? `${msisdn.id}-hint ${msisdn.errorId}` : `${msisdn.id}-hint`}
          onChange={(event) => {
            if (picked) return;
            const guess = guessNetwork(event.currentTarget.value);
            if (guess) setChosen(guess);
          }}
        />
        <ErrorList id={msisdn.errorId} errors={msisdn.errors} />
      </div>
      <fieldset className="field network-choice" aria-describedby={network.errors?.length ? network.errorId : undefined}>
        <legend>{t("orders.payer.network")}</legend>
        <input type="hidden" name={NETWORK_OFFERED} value={picked ? "" : network.initialValue} />
        {(Object.keys(NETWORK_LABEL) as Network[]).map((n) => (
          <label key={n}>
            <input
              type="radio"
              name={network.name}
              value={n}
              checked={chosen === n}
              onChange={() => {
                setChosen(n);
                setPicked(true);
              }}
            />{" "}
            {NETWORK_LABEL[n]}
          </label>
        ))}
        <ErrorList id={network.errorId} errors={network.errors} />
      </fieldset>
    </>
  );
}

/** How often the waiting page asks the server again while the payment is open. */
export const POLL_MS = 3_000;

/**
 * Reloads the page's data every POLL_MS while `open` (with JavaScript): the page changes in place when the
 * payment settles. Without JavaScript the page's meta refresh does the same by reloading the document.
 */
export function useRevalidateWhile(open: boolean) {
  const { revalidate, state } = useRevalidator();
  useEffect(() => {
    if (!open || state !== "idle") return;
    const timer = setTimeout(revalidate, POLL_MS);
    return () => clearTimeout(timer);
  }, [open, state, revalidate]);
}
