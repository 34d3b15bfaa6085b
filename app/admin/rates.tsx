import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { ADMIN_SECTIONS } from "~/components/coming-soon";
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

/**
 * `/rates` on the admin host, `/admin/rates` on the main host (app/utils/site-routes.ts): the UGX per USD
 * rate USD prices are shown at, a form to set a new one, and every change (who, when, what) newest first.
 * Orders keep the rate of their checkout, so a change reprices the catalogue, never an order.
 */
export const meta: MetaFunction = () => [{ title: `${ADMIN_SECTIONS.rates.title} | Soko Admin` }, { name: "robots", content: "noindex" }];

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
    saved !== null && current && Number(saved) === current.ugxPerUsd ? `The rate is now UGX ${formatRate(current.ugxPerUsd)} per US dollar.` : null;
  // The browser's checks; the schema itself loads once the form is used (app/hooks/use-schema-form.ts).
  return { adminName, current, history, notice, constraint: getFormConstraint(ExchangeRateSchema) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  // The screen's own rule first (admins only, as for GET), then the admin as the operation's actor.
  await adminScreenLoader(request);
  const actor = await requireMemberActor(request, context.clientIp);
  const formData = await readFormData(request);
  const submission = parseWithZod(formData, { schema: ExchangeRateSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await setUsdRate(actor, submission.value);
  if (!result.ok) return formFailure(submission.reply, result);
  return redirect(`${new URL(request.url).pathname}?saved=${result.value.ugxPerUsd}`, 303);
}

const formatRate = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });

const exchangeRateSchema = () => import("~/schemas/monitoring").then((m) => m.ExchangeRateSchema);

export default function AdminRates() {
  const { current, history, notice, constraint } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const { dateTime } = usePreferences();
  const [form, fields] = useSchemaForm({
    id: "set-rate",
    lastResult: lastResult as SubmissionResult<string[]> | undefined,
    constraint,
    schema: exchangeRateSchema,
  });
  return (
    <section className="container admin-rates" aria-labelledby="rates-title">
      <h1 id="rates-title">{ADMIN_SECTIONS.rates.title}</h1>
      <FormMessage success={lastResult ? null : notice} />
      <p className="rate-current">
        {current ? (
          <>
            Current rate: <strong data-testid="current-rate">UGX {formatRate(current.ugxPerUsd)}</strong> per US dollar, since{" "}
            <time dateTime={current.updatedAt}>{dateTime(current.updatedAt)}</time>.
          </>
        ) : (
          "No rate is set: prices are shown in UGX only."
        )}
      </p>
      <p>
        Prices are kept in UGX; members who choose USD see them at this rate. An order keeps the rate of its checkout, so a change does not reprice orders
        already placed.
      </p>

      <Form method="post" className="form-card" {...getFormProps(form)}>
        <h2>Set a new rate</h2>
        <ErrorList id={form.errorId} errors={form.errors} />
        <Field
          field={fields.ugxPerUsd}
          label="UGX per US dollar"
          hint={`Between ${MIN_UGX_PER_USD.toLocaleString("en-US")} and ${MAX_UGX_PER_USD.toLocaleString("en-US")}, such as 3750 or 3,750.50.`}
          inputProps={{ inputMode: "decimal", autoComplete: "off" }}
        />
        <SubmitButton pendingLabel="Saving…">Set rate</SubmitButton>
      </Form>

      <h2 id="rate-history">History</h2>
      {history.length === 0 ? (
        <p>No admin has changed the rate yet.</p>
      ) : (
        <table className="admin-table stack-table" aria-labelledby="rate-history">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">UGX per USD</th>
              <th scope="col">Set by</th>
            </tr>
          </thead>
          <tbody>
            {history.map((h) => (
              <tr key={h.id}>
                <td data-label="When">
                  <time dateTime={h.at}>{dateTime(h.at)}</time>
                </td>
                <td data-label="UGX per USD">{formatRate(h.ugxPerUsd)}</td>
                <td data-label="Set by">{h.setBy}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
