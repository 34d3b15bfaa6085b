import { Form } from "@remix-run/react";
import { SubmitButton } from "~/components/forms";
import { useDataSaver } from "~/components/data-saver";
import { useT } from "~/i18n/react";

/**
 * Settings › Preferences: data-saver mode (ADR 054). Posts to /data-saver, as the footer's switch does, which stores
 * it with the member's preferences, and comes back here saying so.
 */
export function DataSaverChoice() {
  const on = useDataSaver();
  const { t } = useT();
  return (
    <Form method="post" action="/data-saver" className="form-card" key={on ? "on" : "off"}>
      <input type="hidden" name="redirectTo" value="/settings?tab=preferences&saved=1" />
      <fieldset className="field">
        <legend>{t("common.dataSaver.settingsTitle")}</legend>
        <p className="field-hint">{t("common.dataSaver.settingsHint")}</p>
        <div className="checkbox">
          <input type="radio" id="data-saver-on" name="dataSaver" value="on" defaultChecked={on} required />
          <label htmlFor="data-saver-on">{t("common.dataSaver.settingsOn")}</label>
        </div>
        <div className="checkbox">
          <input type="radio" id="data-saver-off" name="dataSaver" value="off" defaultChecked={!on} />
          <label htmlFor="data-saver-off">{t("common.dataSaver.settingsOff")}</label>
        </div>
      </fieldset>
      <SubmitButton pendingLabel={t("account.button.saving")}>{t("common.dataSaver.save")}</SubmitButton>
    </Form>
  );
}
