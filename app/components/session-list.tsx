/**
 * Settings › Security: where the member is signed in (browsers and apps), each with its own "Sign out". Each
 * row is a plain form (intent=end-session and the session's id) that works without JavaScript; with it, the
 * row submits in place and its button says it is working until the page comes back.
 */
import { useFetcher } from "@remix-run/react";
import { ErrorList } from "~/components/forms";
import { usePreferences } from "~/hooks/use-preferences";
import { useT } from "~/i18n/react";
import type { SessionRow } from "~/server/member-sessions.server";

/** `sessionError` is a key of the account catalogue (ErrorList says it). */
type EndAnswer = { sessionError?: string };

export function SessionList({ sessions, action, error }: { sessions: SessionRow[]; action: string; error?: string | null }) {
  const { t } = useT();
  return (
    <section className="form-card session-card" aria-labelledby="sessions-title">
      <h3 id="sessions-title">{t("account.sessions.title")}</h3>
      <p className="field-hint">{t("account.sessions.intro")}</p>
      <ErrorList errors={error ? [error] : undefined} />
      <ul className="session-list" aria-labelledby="sessions-title">
        {sessions.map((s) => (
          <SessionItem key={s.id} session={s} action={action} />
        ))}
      </ul>
    </section>
  );
}

function SessionItem({ session: s, action }: { session: SessionRow; action: string }) {
  const fetcher = useFetcher<EndAnswer>();
  const { dateTime } = usePreferences();
  const { t } = useT();
  const pending = fetcher.state !== "idle";
  return (
    <li className="session-row">
      <div className="session-about">
        <p className="session-name">
          <strong>{s.label}</strong>
          {s.current ? <span className="status-badge">{t("account.sessions.thisDevice")}</span> : null}
        </p>
        {s.device ? <p className="session-device">{s.device}</p> : null}
        <dl className="session-times">
          <dt>{t("account.sessions.signedIn")}</dt>
          <dd>{dateTime(s.createdAt)}</dd>
          <dt>{t("account.sessions.lastUsed")}</dt>
          <dd>{s.current ? t("account.sessions.now") : s.lastUsedAt ? dateTime(s.lastUsedAt) : t("account.sessions.notRecorded")}</dd>
        </dl>
        <ErrorList errors={fetcher.data?.sessionError ? [fetcher.data.sessionError] : undefined} />
      </div>
      <fetcher.Form method="post" action={action}>
        <input type="hidden" name="intent" value="end-session" />
        <input type="hidden" name="sessionId" value={s.id} />
        <button type="submit" className="button button-secondary session-end" disabled={pending} aria-disabled={pending}>
          {pending ? t("account.sessions.signingOut") : t("account.sessions.signOut")}
          <span className="visually-hidden">
            {" "}
            {s.current
              ? t("account.sessions.ofThisDevice")
              : s.device
                ? t("account.sessions.ofSessionOnDevice", { session: s.label, device: s.device })
                : t("account.sessions.ofSession", { session: s.label })}
          </span>
        </button>
      </fetcher.Form>
    </li>
  );
}
