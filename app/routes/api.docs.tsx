/**
 * /api/docs: the JSON API's reference for people (ADR 041), rendered on the server from the OpenAPI document
 * (app/api/reference.server.ts). No script of its own, nothing from another site: it reads the same without
 * JavaScript and on a 360 px phone. Programs read /api/v1/openapi.json.
 */
import type { LinksFunction, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { Fragment } from "react";
import { apiReference, type RefCall, type RefField } from "~/api/reference.server";
import { GeneralErrorBoundary } from "~/components/general-error-boundary";
import { Link } from "~/components/link";
import docsStylesUrl from "~/styles/api-docs.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: docsStylesUrl }];

export const meta: MetaFunction = () => [
  { title: "API reference | Soko" },
  { name: "description", content: "Soko's JSON API for phone apps and partners: every call, its parameters, body and answers." },
];

export async function loader() {
  return apiReference();
}

export default function ApiDocs() {
  const ref = useLoaderData<typeof loader>();
  return (
    <article className="container api-docs" aria-labelledby="api-title">
      <h1 id="api-title">{ref.title} reference</h1>
      <p className="api-version">Version {ref.version}</p>
      <p>
        <Words text={ref.description} />
      </p>
      <dl className="api-facts">
        <dt>Base address</dt>
        <dd>
          <code>{ref.base}</code> on this site
        </dd>
        <dt>Tokens</dt>
        <dd>
          Send <code>Authorization: Bearer &lt;token&gt;</code>. <Words text={ref.tokens} />
        </dd>
        <dt>For programs</dt>
        <dd>
          The same as an OpenAPI 3.1 document: <a href={`${ref.base}/openapi.json`}>{`${ref.base}/openapi.json`}</a>
        </dd>
      </dl>
      <nav aria-labelledby="api-contents" className="api-contents">
        <h2 id="api-contents">Contents</h2>
        <ul>
          {ref.tags.map((tag) => (
            <li key={tag.id}>
              <a href={`#${tag.id}`}>{tag.name}</a>
              <ul>
                {tag.calls.map((c) => (
                  <li key={c.id}>
                    <a href={`#${c.id}`}>
                      <span className="api-method">{c.method}</span> <code>{c.path}</code>
                    </a>
                  </li>
                ))}
              </ul>
            </li>
          ))}
          <li>
            <a href="#failures">Failures</a>
          </li>
        </ul>
      </nav>
      {ref.tags.map((tag) => (
        <section key={tag.id} id={tag.id} aria-labelledby={`${tag.id}-title`} className="api-tag">
          <h2 id={`${tag.id}-title`}>{tag.name}</h2>
          {tag.calls.map((c) => (
            <Call key={c.id} call={c} />
          ))}
        </section>
      ))}
      <section id="failures" aria-labelledby="failures-title" className="api-tag">
        <h2 id="failures-title">Failures</h2>
        <p>Every failure answers with its status and this body:</p>
        <Fields fields={ref.failure} />
      </section>
      <p className="api-back">
        <Link to="/help">Back to the help centre</Link>
      </p>
    </article>
  );
}

function Call({ call: c }: { call: RefCall }) {
  return (
    <section id={c.id} aria-labelledby={`${c.id}-title`} className="api-call">
      <h3 id={`${c.id}-title`}>
        <span className="api-method">{c.method}</span> <code className="api-path">{c.path}</code>
      </h3>
      <p className="api-summary">{c.summary}</p>
      {c.description ? (
        <p>
          <Words text={c.description} />
        </p>
      ) : null}
      <dl className="api-facts">
        <dt>Who may call</dt>
        <dd>{c.access}</dd>
        <dt>Operation</dt>
        <dd>
          <code>{c.id}</code>
        </dd>
      </dl>
      {c.parameters.length ? (
        <>
          <h4>Parameters</h4>
          <Fields fields={c.parameters} />
        </>
      ) : null}
      {c.body ? (
        <>
          <h4>
            Request body <span className="api-type">({c.body.type})</span>
          </h4>
          {c.body.fields.length ? <Fields fields={c.body.fields} /> : <p>No fields.</p>}
        </>
      ) : null}
      <h4>Responses</h4>
      <ul className="api-responses">
        {c.responses.map((r) => (
          <li key={r.status}>
            <span className={`api-status api-status-${r.status[0]}xx`}>{r.status}</span> <Words text={r.description} />
            {r.fields.length ? <Fields fields={r.fields} /> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Fields({ fields }: { fields: (RefField & { where?: string })[] }) {
  return (
    <ul className="api-fields">
      {fields.map((f) => (
        <li key={`${f.where ?? ""}${f.name}`}>
          <code className="api-field">{f.name}</code> <span className="api-type">{f.type}</span>
          {f.where ? <span className="api-where"> in {f.where}</span> : null}
          {f.required ? <span className="api-required"> required</span> : <span className="api-optional"> optional</span>}
          {f.limits.length ? <span className="api-limits"> · {f.limits.join(" · ")}</span> : null}
          {f.description ? (
            <span className="api-description">
              <Words text={f.description} />
            </span>
          ) : null}
          {f.fields.length ? <Fields fields={f.fields} /> : null}
        </li>
      ))}
    </ul>
  );
}

/** Words with `code` in backticks, as the document writes them. */
function Words({ text }: { text: string }) {
  return <>{text.split(/`([^`]+)`/).map((part, i) => (i % 2 ? <code key={i}>{part}</code> : <Fragment key={i}>{part}</Fragment>))}</>;
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
