import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { ErrorList, Field, FormMessage, SubmitButton } from "~/components/forms";
import { currentUsdRate, setUsdRate, usdRateHistory } from "~/operations/exchange-rates.server";
import { adminScreenLoader } from "~/server/admin-area.server";
import { requireMemberActor } from "~/server/auth.server";
import { getFormConstraint } from "~/schemas/form-constraint";
import { useSchemaForm } from "~/hooks/use-schema-form";
import { readFormData } from "~/server/form-data.server";
import { ExchangeRateSchema } from "~/schemas/monitoring";
import { MAX_UGX_PER_USD, MIN_UGX_PER_USD } from "~/domain/money";
import { formFailure } from "~/server/operation-results.server";
import { usePreferences } from "~/hooks/use-preferences";
import monitoringStylesUrl from "~/styles/admin-monitoring.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";
import { formatNumber } from "~/i18n/format";
import { requestLocale } from "~/i18n/locale.server";
import type { Locale } from "~/i18n/locales";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";

/**
 * `/rates` on the admin host, `/admin/rates` on the main host (app/utils/site-routes.ts): the UGX per USD
 * rate USD prices are shown at, a form to set a new one, and every change (who, when, what) newest first.
 * Orders keep the rate of their checkout, so a change reprices the catalogue, never an order.
 */
export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.rates.title") }, { name: "robots", content: "noindex" }];
};

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: monitoringStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

export async function loader({ request }: LoaderFunctionArgs) {
  const { adminName } = await adminScreenLoader(request);
  const [current, history] = await Promise.all([currentUsdRate(), usdRateHistory()]);
  const saved = new URL(request.url).searchParams.get("saved");
  // The confirmation names the rate in force, so a crafted link cannot claim a change that did not happen.
  const notice =
    saved !== null && current && Number(saved) === current.ugxPerUsd
      ? (await requestT(request))("admin.rates.saved", { rate: formatRate(current.ugxPerUsd, await requestLocale(request)) })
      : null;
  // The browser's checks; the schema itself loads once the form is used (app/hooks/use-schema-form.ts).
  return { adminName, current, history, notice, constraint: getFormConstraint(ExchangeRateSchema), ...(await pageMessages(request, ["admin"])) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  // The screen's own rule first (admins only, as for GET), then the admin as the operation's actor.
  await adminScreenLoader(request);
  const actor = await requireMemberActor(request, context.clientIp);
  const formData = await readFormData(request);
  const submission = parseWithZod(formData, { schema: ExchangeRateSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await setUsdRate(actor, submission.value);
  if (!result.ok) return formFailure(submission.reply, result, { locale: await requestLocale(request) });
  return redirect(`${new URL(request.url).pathname}?saved=${result.value.ugxPerUsd}`, 303);
}

const RATE: Intl.NumberFormatOptions = { maximumFractionDigits: 2 };
const formatRate = (n: number, locale: Locale) => formatNumber(n, locale, RATE);

const exchangeRateSchema = () => import("~/schemas/monitoring").then((m) => m.ExchangeRateSchema);

export default function AdminRates() {
  const { current, history, notice, constraint } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const { dateTime, locale } = usePreferences();
  const { t } = useT();
  const [form, fields] = useSchemaForm({
    id: "set-rate",
    lastResult: lastResult as SubmissionResult<string[]> | undefined,
    constraint,
    schema: exchangeRateSchema,
  });
  return (
    <section className="container admin-rates" aria-labelledby="rates-title">
      <h1 id="rates-title">{t("admin.rates.heading")}</h1>
      <FormMessage success={lastResult ? null : notice} />
      <p className="rate-current">
        {current ? (
          <T
            id="admin.rates.current"
            values={{ rate: formatRate(current.ugxPerUsd, locale), since: dateTime(current.updatedAt) }}
            components={{ 0: <strong data-testid="current-rate" />, 1: <time dateTime={current.updatedAt} /> }}
          />
        ) : (
          t("admin.rates.noRate")
        )}
      </p>
      <p>{t("admin.rates.lead")}</p>

      <Form method="post" className="form-card" {...getFormProps(form)}>
        <h2>{t("admin.rates.setHeading")}</h2>
        <ErrorList id={form.errorId} errors={form.errors} />
        <Field
          field={fields.ugxPerUsd}
          label={t("admin.rates.label")}
          hint={t("admin.rates.hint", { min: formatNumber(MIN_UGX_PER_USD, locale), max: formatNumber(MAX_UGX_PER_USD, locale) })}
          inputProps={{ inputMode: "decimal", autoComplete: "off" }}
        />
        <SubmitButton pendingLabel={t("admin.rates.saving")}>{t("admin.rates.set")}</SubmitButton>
      </Form>

      <h2 id="rate-history">{t("admin.rates.history")}</h2>
      {history.length === 0 ? (
        <p>{t("admin.rates.noHistory")}</p>
      ) : (
        <table className="admin-table stack-table" aria-labelledby="rate-history">
          <thead>
            <tr>
              <th scope="col">{t("admin.rates.colWhen")}</th>
              <th scope="col">{t("admin.rates.colRate")}</th>
              <th scope="col">{t("admin.rates.colSetBy")}</th>
            </tr>
          </thead>
          <tbody>
            {history.map((h) => (
              <tr key={h.id}>
                <td data-label={t("admin.rates.colWhen")}>
                  <time dateTime={h.at}>{dateTime(h.at)}</time>
                </td>
                <td data-label={t("admin.rates.colRate")}>{formatRate(h.ugxPerUsd, locale)}</td>
                <td data-label={t("admin.rates.colSetBy")}>{h.setBy}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
