/**
 * Data-saver mode (ADR 054): pages without images until asked for, avatars as initials, and no JavaScript.
 * A signed-in member's choice is their row's `data_saver` (Settings › Preferences, or the switch while signed in);
 * a visitor's is the `soko_data_saver` cookie the switch sets (`on`, or `off` after switching it off). The page
 * cache keys visitors' pages by that cookie's valid value (app/server/page-cache.server.ts).
 */
import type { SessionUser } from "~/models/session.server";
import { readCookie } from "~/server/cookies.server";

export const DATA_SAVER_COOKIE = "soko_data_saver";

/** The cookie's value when it is one of ours (anything else is as if there were none: off). */
export function dataSaverCookieValue(header: string | null | undefined): "on" | "off" | null {
  const value = readCookie(header, DATA_SAVER_COOKIE);
  return value === "on" || value === "off" ? value : null;
}

/** Whether this request's pages are in data-saver mode: the member's stored choice, else the visitor's cookie. */
export function isDataSaver(request: Request, user: Pick<SessionUser, "dataSaver"> | null): boolean {
  if (user) return user.dataSaver === true;
  return dataSaverCookieValue(request.headers.get("Cookie")) === "on";
}

/**
 * The one script of a data-saver document (root.tsx sends it inline, with the page's nonce): a tap on "Show image"
 * puts the image in the link's place. Without it the link opens the image.
 */
export const SHOW_IMAGE_SCRIPT = `document.addEventListener("click",function(e){var a=e.target.closest&&e.target.closest("a[data-show-image]");if(!a||e.defaultPrevented||e.button||e.metaKey||e.ctrlKey||e.shiftKey||e.altKey)return;e.preventDefault();var i=new Image();i.src=a.getAttribute("href");i.alt=a.getAttribute("data-alt")||"";var c=a.getAttribute("data-class");if(c)i.className=c;a.replaceWith(i)});`;
