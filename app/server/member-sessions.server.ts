/**
 * The member's sessions as Settings › Security lists them (ADR 041): each browser named by its browser and OS
 * (read from the User-Agent it signed in with), each app by its platform and the device name it gave, with
 * the one this request came with marked and listed first.
 */
import { describeAgent } from "~/analytics/ingest-agent.server";
import { listMemberSessions, type AppPlatform, type MemberSession } from "~/models/session.server";
import type { Db } from "~/server/db.server";

export type SessionRow = {
  id: string;
  kind: MemberSession["kind"];
  /** "Chrome on Android", "Android app". */
  label: string;
  /** An app's device name, when it gave one. */
  device: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  current: boolean;
};

const APP_LABELS: Record<AppPlatform, string> = { android: "Android app", ios: "iPhone app", api: "Program using the API" };

export function sessionLabel(session: Pick<MemberSession, "kind" | "platform" | "userAgent">): string {
  if (session.kind === "app") return APP_LABELS[session.platform ?? "api"];
  const { browser, os } = describeAgent(session.userAgent ?? "");
  const name = browser === "Unknown" ? "A browser" : browser;
  return os === "Unknown" ? name : `${name} on ${os}`;
}

export async function memberSessionRows(db: Db, user: { id: number; sessionId: string }): Promise<SessionRow[]> {
  const sessions = await listMemberSessions(db, user.id);
  const rows = sessions.map((s) => ({
    id: s.id,
    kind: s.kind,
    label: sessionLabel(s),
    device: s.kind === "app" ? s.deviceName : null,
    createdAt: s.createdAt,
    lastUsedAt: s.lastUsedAt,
    current: s.id === user.sessionId,
  }));
  // This device first, then the others by their last use.
  return rows.sort((a, b) => Number(b.current) - Number(a.current));
}
