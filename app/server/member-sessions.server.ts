/**
 * The member's sessions as Settings › Security lists them (ADR 041): each browser named by its browser and OS
 * (read from the User-Agent it signed in with), each app by its platform and the device name it gave, with
 * the one this request came with marked and listed first. Worded when read, in the reader's language (ADR 047):
 * the browser's and OS's own names as they are, the words around them (and "a browser", for one not known) from
 * the `ops.sessions.*` keys.
 */
import { describeAgent } from "~/analytics/ingest-agent.server";
import { sayIn } from "~/content/operation-messages";
import type { Locale } from "~/i18n/locales";
import { listMemberSessions, type AppPlatform, type MemberSession } from "~/models/session.server";
import type { Db } from "~/server/db.server";

export type SessionRow = {
  id: string;
  kind: MemberSession["kind"];
  /** "Chrome on Android", "Android app", in the reader's language. */
  label: string;
  /** An app's device name, when it gave one. */
  device: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  current: boolean;
};

const APP_LABELS: Record<AppPlatform, string> = { android: "ops.sessions.androidApp", ios: "ops.sessions.iphoneApp", api: "ops.sessions.apiProgram" };

/** A session's name in a language: an app's platform, or a browser and its OS (either may be unknown). */
export function sessionLabel(session: Pick<MemberSession, "kind" | "platform" | "userAgent">, locale: Locale): string {
  const say = sayIn(locale);
  if (session.kind === "app") return say(APP_LABELS[session.platform ?? "api"]);
  const { browser, os } = describeAgent(session.userAgent ?? "");
  if (browser === "Unknown") return os === "Unknown" ? say("ops.sessions.aBrowser") : say("ops.sessions.aBrowserOnOs", { os });
  return os === "Unknown" ? browser : say("ops.sessions.browserOnOs", { browser, os });
}

export async function memberSessionRows(db: Db, user: { id: number; sessionId: string }, locale: Locale): Promise<SessionRow[]> {
  const sessions = await listMemberSessions(db, user.id);
  const rows = sessions.map((s) => ({
    id: s.id,
    kind: s.kind,
    label: sessionLabel(s, locale),
    device: s.kind === "app" ? s.deviceName : null,
    createdAt: s.createdAt,
    lastUsedAt: s.lastUsedAt,
    current: s.id === user.sessionId,
  }));
  // This device first, then the others by their last use.
  return rows.sort((a, b) => Number(b.current) - Number(a.current));
}
