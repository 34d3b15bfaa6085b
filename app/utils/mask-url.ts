/**
 * Log lines name the servers a process talks to (REDIS_URL, DATABASE_URL, SMTP_URL…), and those URLs may
 * carry a password. Everything that logs a URL, or an error message that may quote one, passes it through
 * here first: `scheme://user:password@host` becomes `scheme://user:***@host`. Shared by the web process,
 * the worker and the scripts (no server-only imports).
 */

// scheme:// then the user (no ":" "@" "/" or space), then ":" and the password up to the LAST "@" before the
// host (a URL parser reads userinfo up to its last "@" too), stopping at "/", "?", "#" or whitespace.
const CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*):[^\s/?#]*@/gi;

/** `text` with the password of every URL in it replaced by `***` (a single URL or a whole message). */
export function maskUrlCredentials(text: string): string {
  return text.replace(CREDENTIALS, "$1:***@");
}
