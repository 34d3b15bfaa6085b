import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, type LinksFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useLocation, useRouteLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/link";
import { ErrorList, Field, FormMessage, PasswordField, SubmitButton, TextAreaField } from "~/components/forms";
import { getFormConstraint, type FormConstraint } from "~/schemas/form-constraint";
import { useSchemaForm } from "~/hooks/use-schema-form";
import { getSettings, type NotificationPreferences } from "~/models/user.server";
import { signOutOthers } from "~/operations/accounts.server";
import { endSession } from "~/operations/app-sessions.server";
import { updateBilling, updateNotifications, updatePreferences, updateProfile } from "~/operations/account-settings.server";
import { changePassword } from "~/operations/passwords.server";
import type { Failure } from "~/operations/core.server";
import { BillingSchema, EndSessionSchema, HIDDEN_PASSWORDS, NotificationsSchema, PreferencesSchema, ProfileSchema, SecuritySchema } from "~/schemas/account";
import type { loader as rootLoader } from "~/root";
import { clearSessionCookie, requireMemberActor, requireUser } from "~/server/auth.server";
import { memberSessionRows, type SessionRow } from "~/server/member-sessions.server";
import { SessionList } from "~/components/session-list";
import { getDb } from "~/server/db.server";
import { readFormData, readMultipartFormData } from "~/server/form-data.server";
import { failureStatus, formFailure } from "~/server/operation-results.server";
import { maskMsisdn, payoutHoldUntil } from "~/domain/mobile-money";
import { LANGUAGES } from "~/domain/preferences";
import { imageUrl, MAX_IMAGE_BYTES } from "~/server/files/storage.server";
import { usePreferences } from "~/hooks/use-preferences";
import { messageOf } from "~/content/operation-messages";
import settingsStylesUrl from "~/styles/settings.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: settingsStylesUrl }];

export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction = () => [{ title: "Settings | Soko" }];

const TABS = {
  profile: "Profile",
  notifications: "Notifications",
  security: "Security",
  billing: "Billing",
  preferences: "Preferences",
} as const;
type Tab = keyof typeof TABS;

function tabOf(request: Request): Tab {
  const tab = new URL(request.url).searchParams.get("tab");
  return tab && tab in TABS ? (tab as Tab) : "profile";
}

const SAVED: Record<Tab, string> = {
  profile: "Your profile is saved.",
  notifications: "Your notification settings are saved.",
  security: "Your password is changed. Your other sessions were signed out.",
  billing: "Your mobile-money number is saved.",
  preferences: "Your preferences are saved.",
};

/** Confirmations of the Security tab's other forms, by the `saved` value they redirect with. */
const OTHER_SAVED: Record<string, string> = {
  others: "You are signed out of every other session.",
  ended: "That session is signed out.",
};

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const settings = await getSettings(getDb(), user.id);
  if (!settings) throw new Response("Not Found", { status: 404 });
  const url = new URL(request.url);
  const saved = url.searchParams.get("saved");
  const tab = tabOf(request);
  return {
    tab,
    settings: {
      ...settings,
      avatarUrl: settings.avatarKey ? imageUrl(settings.avatarKey, "avatar") : null,
      payoutHoldUntil: payoutHoldUntil(settings.payoutNumberSetAt),
    },
    saved: saved ? (Object.hasOwn(OTHER_SAVED, saved) ? OTHER_SAVED[saved] : SAVED[tab]) : null,
    // Where the member is signed in: only the Security tab shows it.
    sessions: tab === "security" ? await memberSessionRows(getDb(), user) : [],
    // The browser's checks of the tab's form; its schema loads once the form is used (app/hooks/use-schema-form.ts).
    constraint: getFormConstraint(
      { profile: ProfileSchema, notifications: NotificationsSchema, security: SecuritySchema, billing: BillingSchema, preferences: PreferencesSchema }[tab],
    ),
  };
}

type Reply = SubmissionResult<string[]>;

/** The tabs' schemas, fetched the first time focus enters a tab's form. */
const schemas = {
  profile: () => import("~/schemas/account").then((m) => m.ProfileSchema),
  notifications: () => import("~/schemas/account").then((m) => m.NotificationsSchema),
  security: () => import("~/schemas/account").then((m) => m.SecuritySchema),
  billing: () => import("~/schemas/account").then((m) => m.BillingSchema),
  preferences: () => import("~/schemas/account").then((m) => m.PreferencesSchema),
};

const NOTIFICATION_LABELS: Record<keyof NotificationPreferences, string> = {
  emailOrders: "Email me about my orders",
  emailMessages: "Email me about new messages",
  emailMarketing: "Email me news and offers",
  pushOrders: "Notify me on this device about my orders",
  pushMessages: "Notify me on this device about new messages",
};

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const tab = tabOf(request);
  const done = (saved = "1") => redirect(`/settings?tab=${tab}&saved=${saved}`);
  const bad = (reply: Reply, status = 400) => data({ tab, reply }, { status });
  /** An operation's refusal beside this tab's form (a missing account is the error page instead). */
  const refused = (reply: Parameters<typeof formFailure>[0], failure: Failure, hideFields?: string[]) => {
    const answer = formFailure(reply, failure, { hideFields });
    return data({ tab, reply: answer.data }, answer.init ?? undefined);
  };

  if (tab === "profile") {
    const formData = await readMultipartFormData(request, { maxPartSize: MAX_IMAGE_BYTES });
    if (formData === "too-large") return bad({ status: "error", error: { avatar: ["Images can be at most 5 MB"] } } as Reply, 413);
    const submission = parseWithZod(formData, { schema: ProfileSchema });
    if (submission.status !== "success") return bad(submission.reply());
    const file = formData.get("avatar");
    const avatar = file instanceof File && file.size > 0 ? Buffer.from(await file.arrayBuffer()) : null;
    const result = await updateProfile(actor, { ...submission.value, avatar });
    if (!result.ok) {
      // A picture over the member's upload limit is refused beside its own field.
      if (result.error === "limited") {
        return data(
          { tab, reply: submission.reply({ fieldErrors: { avatar: [messageOf(result)] } }) },
          { status: result.status, headers: { "Retry-After": String(result.retryAfter) } },
        );
      }
      return refused(submission.reply, result);
    }
    return done();
  }

  const formData = await readFormData(request);
  if (tab === "notifications") {
    const submission = parseWithZod(formData, { schema: NotificationsSchema });
    if (submission.status !== "success") return bad(submission.reply());
    const result = await updateNotifications(actor, submission.value);
    return result.ok ? done() : refused(submission.reply, result);
  }
  if (tab === "security") {
    if (formData.get("intent") === "end-session") return endOneSession(actor, formData, done);
    if (formData.get("intent") === "sign-out-others") {
      const result = await signOutOthers(actor);
      if (!result.ok) throw new Response(result.error === "invalid" ? null : messageOf(result), { status: failureStatus(result) });
      return done("others");
    }
    const submission = parseWithZod(formData, { schema: SecuritySchema });
    const hide = [...HIDDEN_PASSWORDS, "currentPassword"];
    if (submission.status !== "success") return bad(submission.reply({ hideFields: hide }));
    const result = await changePassword(actor, submission.value);
    return result.ok ? done() : refused(submission.reply, result, hide);
  }
  if (tab === "billing") {
    const submission = parseWithZod(formData, { schema: BillingSchema });
    const hide = ["currentPassword"];
    if (submission.status !== "success") return bad(submission.reply({ hideFields: hide }));
    const result = await updateBilling(actor, submission.value);
    return result.ok ? done() : refused(submission.reply, result, hide);
  }
  const submission = parseWithZod(formData, { schema: PreferencesSchema });
  if (submission.status !== "success") return bad(submission.reply());
  const result = await updatePreferences(actor, submission.value);
  return result.ok ? done() : refused(submission.reply, result);
}

/**
 * "Sign out" beside one session: it ends (an app's with every token of its sign-in) and the page comes back
 * saying so; the member's own session signs them out. An id that is not one of theirs (or has ended) is 404
 * beside the list, and nothing ends.
 */
async function endOneSession(actor: Awaited<ReturnType<typeof requireMemberActor>>, formData: FormData, done: (saved: string) => Response) {
  const submission = parseWithZod(formData, { schema: EndSessionSchema });
  if (submission.status !== "success") return data({ tab: "security" as const, sessionError: "Choose a session from the list." }, { status: 400 });
  const result = await endSession(actor, { sessionId: submission.value.sessionId });
  if (!result.ok) {
    if (result.error === "not_found") {
      return data({ tab: "security" as const, sessionError: "That session has already ended, or it is not one of yours." }, { status: 404 });
    }
    throw new Response(result.error === "invalid" ? null : messageOf(result), { status: failureStatus(result) });
  }
  // Signed out here: the sign-in page (where this page's live connection, closed by the same end, sends it too).
  if (result.value.current) return redirect("/login", { headers: { "Set-Cookie": clearSessionCookie() } });
  return done("ended");
}

export default function Settings() {
  const { tab, settings, saved, sessions, constraint } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [params] = useSearchParams();
  // Each navigation (such as the redirect after a save) remounts the form, so it shows the stored values.
  const { key } = useLocation();
  const reply = actionData?.tab === tab && "reply" in actionData ? actionData.reply : undefined;
  const sessionError = actionData && "sessionError" in actionData ? actionData.sessionError : null;
  const success = reply ? null : params.get("saved") ? saved : null;
  return (
    <section className="container form-page" aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <nav aria-label="Settings sections">
        <ul className="tabs">
          {(Object.keys(TABS) as Tab[]).map((t) => (
            <li key={t}>
              <Link to={`/settings?tab=${t}`} aria-current={t === tab ? "page" : undefined} preventScrollReset>
                {TABS[t]}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <h2>{TABS[tab]}</h2>
      <FormMessage success={success} />
      {tab === "profile" ? <ProfileTab key={key} s={settings} constraint={constraint} reply={reply} /> : null}
      {tab === "notifications" ? <NotificationsTab s={settings} key={key} constraint={constraint} reply={reply} /> : null}
      {tab === "security" ? <SecurityTab key={key} constraint={constraint} reply={reply} sessions={sessions} sessionError={sessionError} /> : null}
      {tab === "billing" ? <BillingTab s={settings} key={key} constraint={constraint} reply={reply} /> : null}
      {tab === "preferences" ? <PreferencesTab s={settings} key={key} constraint={constraint} reply={reply} /> : null}
      {tab === "preferences" ? <AnalyticsChoice /> : null}
    </section>
  );
}

type LoadedSettings = ReturnType<typeof useLoaderData<typeof loader>>["settings"];

function ProfileTab({ s, constraint, reply }: { s: LoadedSettings; constraint: FormConstraint; reply?: Reply }) {
  const { date } = usePreferences();
  const [form, fields] = useSchemaForm({
    id: "settings-profile",
    lastResult: reply,
    defaultValue: {
      name: s.name,
      bio: s.bio,
      location: s.location,
      skills: s.skills.join(", "),
      languages: s.languages.join(", "),
    },
    constraint,
    schema: schemas.profile,
  });
  const avatarErrors = (reply?.error as Record<string, string[] | null> | undefined)?.avatar ?? undefined;
  return (
    <Form method="post" action="/settings?tab=profile" encType="multipart/form-data" className="form-card" {...getFormProps(form)}>
      <ErrorList id={form.errorId} errors={form.errors} />
      <p>
        @{s.username} · member since {date(s.createdAt)}
      </p>
      <div className="field">
        {s.avatarUrl ? <img src={s.avatarUrl} alt="Your profile photo" width={96} height={96} className="avatar" /> : null}
        <label htmlFor="avatar">Profile photo</label>
        <p className="field-hint">A JPEG, PNG or WebP image, at most 5 MB.</p>
        <input id="avatar" name="avatar" type="file" accept="image/jpeg,image/png,image/webp" aria-invalid={avatarErrors ? true : undefined} />
        <ErrorList errors={avatarErrors} />
      </div>
      <Field field={fields.name} label="Full name" autoComplete="name" />
      <TextAreaField field={fields.bio} label="Bio" />
      <Field field={fields.location} label="Location" hint="For example Kampala, Uganda" />
      <Field field={fields.skills} label="Skills" hint="Separate with commas" />
      <Field field={fields.languages} label="Languages" hint="Separate with commas, e.g. English, Luganda" />
      <SubmitButton pendingLabel="Saving...">Save profile</SubmitButton>
    </Form>
  );
}

function NotificationsTab({ s, constraint, reply }: { s: LoadedSettings; constraint: FormConstraint; reply?: Reply }) {
  const [form] = useSchemaForm({ id: "settings-notifications", lastResult: reply, constraint, schema: schemas.notifications });
  return (
    <Form method="post" action="/settings?tab=notifications" className="form-card" {...getFormProps(form)}>
      <ErrorList id={form.errorId} errors={form.errors} />
      {(Object.keys(NOTIFICATION_LABELS) as (keyof NotificationPreferences)[]).map((key) => (
        <div className="checkbox" key={key}>
          <input type="checkbox" id={`n-${key}`} name={key} defaultChecked={s.notifications[key]} />
          <label htmlFor={`n-${key}`}>{NOTIFICATION_LABELS[key]}</label>
        </div>
      ))}
      <SubmitButton pendingLabel="Saving...">Save notifications</SubmitButton>
    </Form>
  );
}

function SecurityTab({
  constraint,
  reply,
  sessions,
  sessionError,
}: {
  constraint: FormConstraint;
  reply?: Reply;
  sessions: SessionRow[];
  sessionError: string | null;
}) {
  const [form, fields] = useSchemaForm({ id: "settings-security", lastResult: reply, constraint, schema: schemas.security });
  return (
    <>
      <Form method="post" action="/settings?tab=security" className="form-card" {...getFormProps(form)}>
        <h3>Change password</h3>
        <ErrorList id={form.errorId} errors={form.errors} />
        <PasswordField field={fields.currentPassword} label="Current password" autoComplete="current-password" />
        <PasswordField field={fields.password} label="New password" autoComplete="new-password" />
        <PasswordField field={fields.confirmPassword} label="Confirm new password" autoComplete="new-password" />
        <SubmitButton pendingLabel="Saving...">Change password</SubmitButton>
      </Form>
      <SessionList sessions={sessions} action="/settings?tab=security" error={sessionError} />
      <Form method="post" action="/settings?tab=security" className="form-card session-card">
        <h3>Other sessions</h3>
        <p>Signed in on a phone or computer you no longer use? End every session except this one.</p>
        <SubmitButton name="intent" value="sign-out-others" pendingLabel="Signing out...">
          Sign out of all other sessions
        </SubmitButton>
      </Form>
    </>
  );
}

function BillingTab({ s, constraint, reply }: { s: LoadedSettings; constraint: FormConstraint; reply?: Reply }) {
  const { dateTime } = usePreferences();
  const [form, fields] = useSchemaForm({
    id: "settings-billing",
    lastResult: reply,
    defaultValue: { mobileMoneyNumber: s.mobileMoneyNumber ?? "" },
    constraint,
    schema: schemas.billing,
  });
  return (
    <Form method="post" action="/settings?tab=billing" className="form-card" {...getFormProps(form)}>
      <ErrorList id={form.errorId} errors={form.errors} />
      <Field
        field={fields.mobileMoneyNumber}
        label="Mobile-money number"
        type="tel"
        autoComplete="tel"
        hint="MTN or Airtel, in the format +256 7XX XXXXXX. Payouts go here about 14 days after an order completes."
      />
      {s.mobileMoneyNumber && s.payoutHoldUntil ? (
        <p className="notice" role="note">
          Withdrawals to {maskMsisdn(s.mobileMoneyNumber)} open on {dateTime(s.payoutHoldUntil)}.
        </p>
      ) : null}
      <p className="field-hint">
        Your password is needed to change where your earnings go. Withdrawals to a new number open 24 hours after you save it, and we tell you about the change
        by mail.
      </p>
      <PasswordField field={fields.currentPassword} label="Current password" autoComplete="current-password" />
      <SubmitButton pendingLabel="Saving...">Save number</SubmitButton>
    </Form>
  );
}

function PreferencesTab({ s, constraint, reply }: { s: LoadedSettings; constraint: FormConstraint; reply?: Reply }) {
  const [form, fields] = useSchemaForm({ id: "settings-preferences", lastResult: reply, constraint, schema: schemas.preferences });
  const select = (name: string, id: string, label: string, value: string, options: Record<string, string>, errors?: string[]) => (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} defaultValue={value}>
        {Object.entries(options).map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
      <ErrorList errors={errors} />
    </div>
  );
  return (
    <Form method="post" action="/settings?tab=preferences" className="form-card" {...getFormProps(form)}>
      <ErrorList id={form.errorId} errors={form.errors} />
      {select("language", "pref-language", "Language", s.language, LANGUAGES, fields.language.errors)}
      {select(
        "preferredCurrency",
        "pref-currency",
        "Currency",
        s.preferredCurrency,
        { UGX: "UGX (Uganda shilling)", USD: "USD (US dollar)" },
        fields.preferredCurrency.errors,
      )}
      {select("timeZone", "pref-timezone", "Time zone", s.timeZone, { EAT: "EAT (East Africa Time, UTC+3)", UTC: "UTC" }, fields.timeZone.errors)}
      <SubmitButton pendingLabel="Saving...">Save preferences</SubmitButton>
    </Form>
  );
}

/** The analytics choice lives in a cookie, not the account: this form posts to /consent and comes back. */
function AnalyticsChoice() {
  const consent = useRouteLoaderData<typeof rootLoader>("root")?.consent ?? null;
  return (
    <Form method="post" action="/consent" className="form-card" key={consent ?? "none"}>
      <input type="hidden" name="redirectTo" value="/settings?tab=preferences&saved=1" />
      <fieldset className="field">
        <legend>Analytics</legend>
        <p className="field-hint">
          Anonymous page views are always counted. <Link to="/consent">What each choice means</Link>
        </p>
        <div className="checkbox">
          <input type="radio" id="consent-granted" name="consent" value="granted" defaultChecked={consent === "granted"} required />
          <label htmlFor="consent-granted">Allow analytics (clicks, scrolling, time on page, page errors)</label>
        </div>
        <div className="checkbox">
          <input type="radio" id="consent-denied" name="consent" value="denied" defaultChecked={consent === "denied"} />
          <label htmlFor="consent-denied">Only anonymous page views</label>
        </div>
      </fieldset>
      <SubmitButton pendingLabel="Saving...">Save analytics choice</SubmitButton>
    </Form>
  );
}
