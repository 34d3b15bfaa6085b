import { Form, useLocation } from "@remix-run/react";
import { LANGUAGE_NAMES, LOCALES } from "~/i18n/locales";
import { useT } from "~/i18n/react";

/**
 * The language switch (ADR 047): one button per language, each named in its own language, in a plain form
 * posting to /language, which stores the choice (a member's preference, and a cookie) and comes back to this
 * page. Works without JavaScript; with it, Remix submits in place and every loader sends its words again.
 */
export function LanguageSwitch({ className = "language-switch" }: { className?: string }) {
  const { t, locale } = useT();
  const location = useLocation();
  return (
    <Form method="post" action="/language" className={className} aria-label={t("common.language.formLabel")}>
      <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
      <span className="language-switch-label" aria-hidden="true">
        {t("common.language.label")}
      </span>
      {LOCALES.map((code) => (
        <button
          key={code}
          type="submit"
          name="language"
          value={code}
          lang={code}
          className="button button-secondary button-small"
          aria-pressed={code === locale}
        >
          {LANGUAGE_NAMES[code]}
        </button>
      ))}
    </Form>
  );
}
