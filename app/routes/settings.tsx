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
import { confirmPayoutNumber, updateBilling, updateNotifications, updatePreferences, updateProfile } from "~/operations/account-settings.server";
import { CODE_REFUSALS, pendingCodeNumber } from "~/operations/phone-verification.server";
import { PhoneCodeForm } from "~/components/phone-code-form";
import { changePassword } from "~/operations/passwords.server";
import type { Failure } from "~/operations/core.server";
import { BillingSchema, EndSessionSchema, HIDDEN_PASSWORDS, NotificationsSchema, PreferencesSchema, ProfileSchema, SecuritySchema } from "~/schemas/account";
import type { loader as rootLoader } from "~/root";
import { clearSessionCookie, requireMemberActor, requireUser } from "~/server/auth.server";
import { memberSessionRows, type SessionRow } from "~/server/member-sessions.server";
import { SessionList } from "~/components/session-list";
import { SellerProfileFields } from "~/components/settings-seller-profile";
import { PhoneSettingsLink } from "~/components/settings-phone";
import { getDb } from "~/server/db.server";
import { readFormData, readMultipartFormData } from "~/server/form-data.server";
import { failureStatus, formFailure } from "~/server/operation-results.server";
import { maskMsisdn, payoutHoldUntil } from "~/domain/mobile-money";
import { LANGUAGES } from "~/domain/preferences";
import { imageUrl, MAX_IMAGE_BYTES } from "~/server/files/storage.server";
import { usePreferences } from "~/hooks/use-preferences";
import { messageOf } from "~/content/operation-messages";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { requestLocale } from "~/i18n/locale.server";
import { LANGUAGE_COOKIE } from "~/i18n/locales";
import { metaI18n, T, useT } from "~/i18n/react";
import { serializeCookie } from "~/server/cookies.server";
import settingsStylesUrl from "~/styles/settings.css?url";
import { DataSaverChoice } from "~/components/settings-data-saver";
import { ShowImage, useDataSaver } from "~/components/data-saver";
import { EmailChange } from "~/components/settings-email";
import { CHANGE_EMAIL } from "~/schemas/email-change";
import { changeEmailAnswer } from "~/server/settings-email.server";
import { getMailOrigin } from "~/server/host.server";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: settingsStylesUrl }];

export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("account.settings.title") }];
};

const TABS = {
  profile: "account.settings.tab.profile",
  notifications: "account.settings.tab.notifications",
  security: "account.settings.tab.security",
  billing: "account.settings.tab.billing",
  preferences: "account.settings.tab.preferences",
} as const;
type Tab = keyof typeof TABS;

function tabOf(request: Request): Tab {
  const tab = new URL(request.url).searchParams.get("tab");
  return tab && tab in TABS ? (tab as Tab) : "profile";
}

const SAVED: Record<Tab, string> = {
  profile: "account.settings.saved.profile",
  notifications: "account.settings.saved.notifications",
  security: "account.settings.saved.security",
  billing: "account.settings.saved.billing",
  preferences: "account.settings.saved.preferences",
};

/** Confirmations of the Security tab's other forms, by the `saved` value they redirect with. */
const OTHER_SAVED: Record<string, string> = {
  others: "account.settings.saved.others",
  ended: "account.settings.saved.ended",
  email: "account.verify.emailChanged",
  code: "account.settings.payoutCodeSent",
};

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const settings = await getSettings(getDb(), user.id);
  if (!settings) throw new Response((await requestT(request))("account.settings.notFound"), { status: 404 });
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
    /** The confirmation's key, said by FormMessage in the reader's language. */
    saved: saved ? (Object.hasOwn(OTHER_SAVED, saved) ? OTHER_SAVED[saved] : SAVED[tab]) : null,
    // A code texted to a new payout number, waiting to be typed back (ADR 055): only the Billing tab asks for it.
    payoutCodeTo: tab === "billing" ? await pendingCodeNumber(getDb(), user.id, "payout") : null,
    // Where the member is signed in: only the Security tab shows it.
    sessions: tab === "security" ? await memberSessionRows(getDb(), user, await requestLocale(request)) : [],
    // The browser's checks of the tab's form; its schema loads once the form is used (app/hooks/use-schema-form.ts).
    constraint: getFormConstraint(
      { profile: ProfileSchema, notifications: NotificationsSchema, security: SecuritySchema, billing: BillingSchema, preferences: PreferencesSchema }[tab],
    ),
    ...(await pageMessages(request, ["account"])),
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
  emailOrders: "account.settings.notify.emailOrders",
  emailMessages: "account.settings.notify.emailMessages",
  emailMarketing: "account.settings.notify.emailMarketing",
  pushOrders: "account.settings.notify.pushOrders",
  pushMessages: "account.settings.notify.pushMessages",
  smsOrders: "account.settings.notify.smsOrders",
  smsMessages: "account.settings.notify.smsMessages",
};

export async function action({ request, context }: ActionFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const tab = tabOf(request);
  const done = (saved = "1") => redirect(`/settings?tab=${tab}&saved=${saved}`);
  const bad = (reply: Reply, status = 400) => data({ tab, reply }, { status });
  /** An operation's refusal beside this tab's form, in the reader's language (a missing account is the error page instead). */
  const refused = async (reply: Parameters<typeof formFailure>[0], failure: Failure, hideFields?: string[]) => {
    const answer = formFailure(reply, failure, { hideFields, locale: await requestLocale(request) });
    return data({ tab, reply: answer.data }, answer.init ?? undefined);
  };

  if (tab === "profile") {
    const formData = await readMultipartFormData(request, { maxPartSize: MAX_IMAGE_BYTES });
    if (formData === "too-large") return bad({ status: "error", error: { avatar: ["account.settings.avatarTooLarge"] } } as Reply, 413);
    const submission = parseWithZod(formData, { schema: ProfileSchema });
    if (submission.status !== "success") return bad(submission.reply());
    const file = formData.get("avatar");
    const avatar = file instanceof File && file.size > 0 ? Buffer.from(await file.arrayBuffer()) : null;
    const result = await updateProfile(actor, { ...submission.value, avatar });
    if (!result.ok) {
      // A picture over the member's upload limit is refused beside its own field.
      if (result.error === "limited") {
        return data(
          { tab, reply: submission.reply({ fieldErrors: { avatar: [messageOf(result, await requestLocale(request))] } }) },
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
    if (formData.get("intent") === "end-session") return endOneSession(request, actor, formData, done);
    if (formData.get("intent") === CHANGE_EMAIL) return changeEmailAnswer(actor, formData, await requestLocale(request), getMailOrigin(request));
    if (formData.get("intent") === "sign-out-others") {
      const result = await signOutOthers(actor);
      if (!result.ok) {
        throw new Response(result.error === "invalid" ? null : messageOf(result, await requestLocale(request)), { status: failureStatus(result) });
      }
      return done("others");
    }
    const submission = parseWithZod(formData, { schema: SecuritySchema });
    const hide = [...HIDDEN_PASSWORDS, "currentPassword"];
    if (submission.status !== "success") return bad(submission.reply({ hideFields: hide }));
    const result = await changePassword(actor, submission.value);
    return result.ok ? done() : refused(submission.reply, result, hide);
  }
  if (tab === "billing") {
    if (formData.get("intent") === "confirm-payout") {
      const result = await confirmPayoutNumber(actor, { code: String(formData.get("code") ?? "").slice(0, 20) });
      if (result.ok && result.value.verified) return done();
      // A key, said beside the code field in the reader's language.
      const codeError = result.ok && !result.value.verified ? CODE_REFUSALS[result.value.refusal] : "account.phone.codeFormat";
      return data({ tab: "billing" as const, codeError }, { status: 400 });
    }
    const submission = parseWithZod(formData, { schema: BillingSchema });
    const hide = ["currentPassword"];
    if (submission.status !== "success") return bad(submission.reply({ hideFields: hide }));
    const result = await updateBilling(actor, submission.value);
    if (result.ok && result.value.codeSentTo) return done("code");
    return result.ok ? done() : refused(submission.reply, result, hide);
  }
  const submission = parseWithZod(formData, { schema: PreferencesSchema });
  if (submission.status !== "success") return bad(submission.reply());
  const result = await updatePreferences(actor, submission.value);
  if (!result.ok) return refused(submission.reply, result);
  // The page comes back in the language saved (the root reads it with the session), and the browser keeps it
  // after signing out, as the language switch does (app/routes/language.tsx).
  return redirect(`/settings?tab=${tab}&saved=1`, {
    headers: { "Set-Cookie": serializeCookie(LANGUAGE_COOKIE, submission.value.language, { maxAge: 31_536_000 }) },
  });
}

/**
 * "Sign out" beside one session: it ends (an app's with every token of its sign-in) and the page comes back
 * saying so; the member's own session signs them out. An id that is not one of theirs (or has ended) is 404
 * beside the list, and nothing ends.
 */
async function endOneSession(request: Request, actor: Awaited<ReturnType<typeof requireMemberActor>>, formData: FormData, done: (saved: string) => Response) {
  const submission = parseWithZod(formData, { schema: EndSessionSchema });
  // Keys, said by the list's ErrorList in the reader's language.
  if (submission.status !== "success") return data({ tab: "security" as const, sessionError: "account.sessions.choose" }, { status: 400 });
  const result = await endSession(actor, { sessionId: submission.value.sessionId });
  if (!result.ok) {
    if (result.error === "not_found") {
      return data({ tab: "security" as const, sessionError: "account.sessions.notYours" }, { status: 404 });
    }
    throw new Response(result.error === "invalid" ? null : messageOf(result, await requestLocale(request)), { status: failureStatus(result) });
  }
  // Signed out here: the sign-in page (where this page's live connection, closed by the same end, sends it too).
  if (result.value.current) return redirect("/login", { headers: { "Set-Cookie": clearSessionCookie() } });
  return done("ended");
}

export default function Settings() {
  const { tab, settings, saved, sessions, constraint, payoutCodeTo } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [params] = useSearchParams();
  // Each navigation (such as the redirect after a save) remounts the form, so it shows the stored values.
  const { key } = useLocation();
  const reply = actionData?.tab === tab && "reply" in actionData ? actionData.reply : undefined;
  const sessionError = actionData && "sessionError" in actionData ? actionData.sessionError : null;
  const codeError = actionData && "codeError" in actionData ? actionData.codeError : null;
  const success = reply ? null : params.get("saved") ? saved : null;
  const { t } = useT();
  return (
    <section className="container form-page" aria-labelledby="settings-title">
      <h1 id="settings-title">{t("account.settings.heading")}</h1>
      <nav aria-label={t("account.settings.sections")}>
        <ul className="tabs">
          {(Object.keys(TABS) as Tab[]).map((name) => (
            <li key={name}>
              <Link to={`/settings?tab=${name}`} aria-current={name === tab ? "page" : undefined} preventScrollReset>
                {t(TABS[name])}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <h2>{t(TABS[tab])}</h2>
      <FormMessage success={success} />
      {tab === "profile" ? <ProfileTab key={key} s={settings} constraint={constraint} reply={reply} /> : null}
      {tab === "notifications" ? <NotificationsTab s={settings} key={key} constraint={constraint} reply={reply} /> : null}
      {tab === "security" ? <EmailChange email={settings.email} verified={Boolean(settings.emailVerifiedAt)} /> : null}
      {tab === "security" ? <SecurityTab key={key} constraint={constraint} reply={reply} sessions={sessions} sessionError={sessionError} /> : null}
      {tab === "billing" && payoutCodeTo ? (
        <PhoneCodeForm
          intent="confirm-payout"
          action="/settings?tab=billing"
          phone={payoutCodeTo}
          errors={codeError ? [t(codeError)] : undefined}
          submit={t("account.settings.confirmNumber")}
          pending={t("account.phone.confirming")}
        />
      ) : null}
      {/* A code refused once none waits any more (used, or too many tries): said above the number form. */}
      {tab === "billing" && !payoutCodeTo && codeError ? <FormMessage errors={[codeError]} /> : null}
      {tab === "billing" ? <BillingTab s={settings} key={key} constraint={constraint} reply={reply} /> : null}
      {tab === "preferences" ? <PreferencesTab s={settings} key={key} constraint={constraint} reply={reply} /> : null}
      {tab === "preferences" ? <AnalyticsChoice /> : null}
      {tab === "preferences" ? <DataSaverChoice /> : null}
    </section>
  );
}

type LoadedSettings = ReturnType<typeof useLoaderData<typeof loader>>["settings"];

function ProfileTab({ s, constraint, reply }: { s: LoadedSettings; constraint: FormConstraint; reply?: Reply }) {
  const { date } = usePreferences();
  const { t } = useT();
  const [form, fields] = useSchemaForm({
    id: "settings-profile",
    lastResult: reply,
    defaultValue: {
      name: s.name,
      bio: s.bio,
      location: s.location,
      skills: s.skills.join(", "),
      languages: s.languages.join(", "),
      yearsExperience: s.yearsExperience === null ? "" : String(s.yearsExperience),
      portfolioUrl: s.portfolioUrl ?? "",
    },
    constraint,
    schema: schemas.profile,
  });
  const avatarErrors = (reply?.error as Record<string, string[] | null> | undefined)?.avatar ?? undefined;
  return (
    <Form method="post" action="/settings?tab=profile" encType="multipart/form-data" className="form-card" {...getFormProps(form)}>
      <ErrorList id={form.errorId} errors={form.errors} />
      <p>{t("account.settings.memberSince", { username: s.username, date: date(s.createdAt) })}</p>
      <div className="field">
        {s.avatarUrl ? <MemberPhoto src={s.avatarUrl} alt={t("account.settings.photoAlt")} /> : null}
        <label htmlFor="avatar">{t("account.settings.photo")}</label>
        <p className="field-hint">{t("account.settings.photoHint")}</p>
        <input id="avatar" name="avatar" type="file" accept="image/jpeg,image/png,image/webp" aria-invalid={avatarErrors ? true : undefined} />
        <ErrorList errors={avatarErrors} />
      </div>
      <Field field={fields.name} label={t("account.field.fullName")} autoComplete="name" />
      <TextAreaField field={fields.bio} label={t("account.settings.bio")} />
      <Field field={fields.location} label={t("account.settings.location")} hint={t("account.settings.locationHint")} />
      <Field field={fields.skills} label={t("account.field.skills")} hint={t("account.settings.skillsHint")} />
      <Field field={fields.languages} label={t("account.settings.languages")} hint={t("account.settings.languagesHint")} />
      {s.role === "freelancer" ? <SellerProfileFields years={fields.yearsExperience} portfolio={fields.portfolioUrl} /> : null}
      <SubmitButton pendingLabel={t("account.button.saving")}>{t("account.settings.saveProfile")}</SubmitButton>
    </Form>
  );
}

function NotificationsTab({ s, constraint, reply }: { s: LoadedSettings; constraint: FormConstraint; reply?: Reply }) {
  const [form] = useSchemaForm({ id: "settings-notifications", lastResult: reply, constraint, schema: schemas.notifications });
  const { t } = useT();
  return (
    <Form method="post" action="/settings?tab=notifications" className="form-card" {...getFormProps(form)}>
      <ErrorList id={form.errorId} errors={form.errors} />
      {(Object.keys(NOTIFICATION_LABELS) as (keyof NotificationPreferences)[]).map((key) => (
        <div className="checkbox" key={key}>
          <input type="checkbox" id={`n-${key}`} name={key} defaultChecked={s.notifications[key]} />
          <label htmlFor={`n-${key}`}>{t(NOTIFICATION_LABELS[key])}</label>
        </div>
      ))}
      <SubmitButton pendingLabel={t("account.button.saving")}>{t("account.settings.saveNotifications")}</SubmitButton>
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
  const { t } = useT();
  return (
    <>
      <Form method="post" action="/settings?tab=security" className="form-card" {...getFormProps(form)}>
        <h3>{t("account.settings.changePassword")}</h3>
        <ErrorList id={form.errorId} errors={form.errors} />
        <PasswordField field={fields.currentPassword} label={t("account.field.currentPassword")} autoComplete="current-password" />
        <PasswordField field={fields.password} label={t("account.field.newPassword")} autoComplete="new-password" />
        <PasswordField field={fields.confirmPassword} label={t("account.field.confirmNewPassword")} autoComplete="new-password" />
        <SubmitButton pendingLabel={t("account.button.saving")}>{t("account.settings.changePassword")}</SubmitButton>
      </Form>
      <PhoneSettingsLink />
      <SessionList sessions={sessions} action="/settings?tab=security" error={sessionError} />
      <Form method="post" action="/settings?tab=security" className="form-card session-card">
        <h3>{t("account.settings.otherSessions")}</h3>
        <p>{t("account.settings.otherSessionsIntro")}</p>
        <SubmitButton name="intent" value="sign-out-others" pendingLabel={t("account.sessions.signingOut")}>
          {t("account.settings.signOutOthers")}
        </SubmitButton>
      </Form>
    </>
  );
}

function BillingTab({ s, constraint, reply }: { s: LoadedSettings; constraint: FormConstraint; reply?: Reply }) {
  const { dateTime } = usePreferences();
  const { t } = useT();
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
        label={t("account.settings.mobileMoney")}
        type="tel"
        autoComplete="tel"
        hint={t("account.settings.mobileMoneyHint")}
      />
      {s.mobileMoneyNumber && !s.payoutNumberVerifiedAt ? (
        <p className="notice" role="note">
          {t("account.settings.numberUnproven", { number: maskMsisdn(s.mobileMoneyNumber) })}
        </p>
      ) : null}
      {s.mobileMoneyNumber && s.payoutHoldUntil ? (
        <p className="notice" role="note">
          {t("account.settings.withdrawalsOpen", { number: maskMsisdn(s.mobileMoneyNumber), date: dateTime(s.payoutHoldUntil) })}
        </p>
      ) : null}
      <p className="field-hint">{t("account.settings.payoutCodeHint")}</p>
      <p className="field-hint">{t("account.settings.billingPasswordHint")}</p>
      <PasswordField field={fields.currentPassword} label={t("account.field.currentPassword")} autoComplete="current-password" />
      <SubmitButton pendingLabel={t("account.button.saving")}>{t("account.settings.saveNumber")}</SubmitButton>
    </Form>
  );
}

function PreferencesTab({ s, constraint, reply }: { s: LoadedSettings; constraint: FormConstraint; reply?: Reply }) {
  const [form, fields] = useSchemaForm({ id: "settings-preferences", lastResult: reply, constraint, schema: schemas.preferences });
  const { t } = useT();
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
      {select("language", "pref-language", t("account.settings.language"), s.language, LANGUAGES, fields.language.errors)}
      {select(
        "preferredCurrency",
        "pref-currency",
        t("account.settings.currency"),
        s.preferredCurrency,
        { UGX: t("account.settings.currencyUgx"), USD: t("account.settings.currencyUsd") },
        fields.preferredCurrency.errors,
      )}
      {select(
        "timeZone",
        "pref-timezone",
        t("account.settings.timeZone"),
        s.timeZone,
        { EAT: t("account.settings.zoneEat"), UTC: "UTC" },
        fields.timeZone.errors,
      )}
      <SubmitButton pendingLabel={t("account.button.saving")}>{t("account.settings.savePreferences")}</SubmitButton>
    </Form>
  );
}

/** The analytics choice lives in a cookie, not the account: this form posts to /consent and comes back. */
function AnalyticsChoice() {
  const consent = useRouteLoaderData<typeof rootLoader>("root")?.consent ?? null;
  const { t } = useT();
  return (
    <Form method="post" action="/consent" className="form-card" key={consent ?? "none"}>
      <input type="hidden" name="redirectTo" value="/settings?tab=preferences&saved=1" />
      <fieldset className="field">
        <legend>{t("account.settings.analytics")}</legend>
        <p className="field-hint">
          <T id="account.settings.analyticsHint" components={{ 0: <Link to="/consent" /> }} />
        </p>
        <div className="checkbox">
          <input type="radio" id="consent-granted" name="consent" value="granted" defaultChecked={consent === "granted"} required />
          <label htmlFor="consent-granted">{t("account.settings.analyticsAllow")}</label>
        </div>
        <div className="checkbox">
          <input type="radio" id="consent-denied" name="consent" value="denied" defaultChecked={consent === "denied"} />
          <label htmlFor="consent-denied">{t("account.settings.analyticsDeny")}</label>
        </div>
      </fieldset>
      <SubmitButton pendingLabel={t("account.button.saving")}>{t("account.settings.saveAnalytics")}</SubmitButton>
    </Form>
  );
}

/** The member's own photo above its field: behind "Show image" in data-saver mode (ADR 054), like every image. */
function MemberPhoto({ src, alt }: { src: string; alt: string }) {
  const saver = useDataSaver();
  return saver ? (
    <ShowImage src={src} alt={alt} width={96} height={96} className="avatar" />
  ) : (
    <img src={src} alt={alt} width={96} height={96} className="avatar" />
  );
}
