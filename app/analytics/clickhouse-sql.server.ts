/**
 * The one place for what differs between Debian's ClickHouse 18.16 and current ClickHouse (docs/architecture.md, "ClickHouse: what both versions accept"),
 * and for putting values into SQL text:
 *
 * - 18.16 has no query parameters (`{name:Type}`), so values go into SQL as literals through `quote`,
 *   and names through `identifier` (an allow-list pattern, never escaping).
 * - 18.16 has no DateTime64 and reads `'YYYY-MM-DD hh:mm:ss'` in UTC everywhere: `toDateTimeString`.
 * - Errors: current servers end a message with its type, `Code: 27. DB::Exception: … (CANNOT_PARSE_…)`,
 *   which @clickhouse/client turns into a ClickHouseError with `code`; 18.16 writes
 *   `Code: 27, e.displayText() = DB::Exception: …` which the client leaves a plain Error. `clickHouseErrorCode`
 *   reads both, and `insertErrorKind` decides from it whether an INSERT failed because of its data (retrying
 *   cannot help) or because of the server or the network (retry).
 */

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A database, table or column name, checked against a strict pattern (names never come from users). */
export function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`not a safe ClickHouse identifier: ${JSON.stringify(name)}`);
  return name;
}

const ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  "'": "\\'",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\0": "\\0",
  "\b": "\\b",
  "\f": "\\f",
};

/**
 * The inside of a ClickHouse string literal for `value`: backslash, quote and control characters escaped
 * (ClickHouse reads backslash escapes in literals on every version). Other characters, UTF-8 included,
 * pass unchanged.
 */
export function escapeString(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\\'\x00-\x1f\x7f]/g, (c) => ESCAPES[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

export type SqlValue = string | number | bigint | boolean | Date | null;

/**
 * A SQL literal for a value: strings quoted and escaped, numbers as written (finite only), booleans as 1/0,
 * dates as `toDateTime('…', 'UTC')`, null as NULL. Arrays become ClickHouse array literals `[a, b]`.
 */
export function quote(value: SqlValue | readonly SqlValue[]): string {
  if (Array.isArray(value)) return `[${value.map((v) => quote(v)).join(", ")}]`;
  if (value === null) return "NULL";
  switch (typeof value) {
    case "string":
      return `'${escapeString(value)}'`;
    case "number":
      if (!Number.isFinite(value)) throw new Error(`cannot put ${value} into ClickHouse SQL`);
      return String(value);
    case "bigint":
      return value.toString();
    case "boolean":
      return value ? "1" : "0";
    default: {
      const text = toDateTimeString(value as Date);
      if (text === null) throw new Error("cannot put an invalid date into ClickHouse SQL");
      return `toDateTime('${text}', 'UTC')`;
    }
  }
}

/** `(a, b, c)` for `x IN …`; an empty list becomes `(NULL)`, which matches nothing. */
export function quoteList(values: readonly SqlValue[]): string {
  return values.length ? `(${values.map((v) => quote(v)).join(", ")})` : "(NULL)";
}

/**
 * `'YYYY-MM-DD hh:mm:ss'` in UTC (seconds: DateTime has no milliseconds on 18.16) for an ISO string,
 * milliseconds since 1970 or a Date; null when the value is not a date.
 */
export function toDateTimeString(value: string | number | Date): string | null {
  const ms = value instanceof Date ? value.getTime() : typeof value === "number" ? value : Date.parse(value);
  if (!Number.isFinite(ms)) return null;
  const iso = new Date(ms).toISOString(); // throws beyond year 275760; Date.parse never yields that
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** ClickHouse's numeric error code, from a current server (ClickHouseError.code) or 18.16's message text. */
export function clickHouseErrorCode(error: unknown): number | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && /^\d+$/.test(code)) return Number(code);
  if (typeof code === "number") return code;
  const match = /^\s*Code: (\d+)[.,]/.exec(error.message);
  return match ? Number(match[1]) : null;
}

/**
 * Codes that mean "the server read the data and refused it": the same rows will fail every time, so the
 * rows at fault are set aside instead of retried. The numbers are stable across versions (ErrorCodes.cpp).
 */
export const DATA_ERROR_CODES: ReadonlyMap<number, string> = new Map([
  [6, "CANNOT_PARSE_TEXT"],
  [25, "CANNOT_PARSE_ESCAPE_SEQUENCE"],
  [26, "CANNOT_PARSE_QUOTED_STRING"],
  [27, "CANNOT_PARSE_INPUT_ASSERTION_FAILED"],
  [32, "ATTEMPT_TO_READ_AFTER_EOF"],
  [33, "CANNOT_READ_ALL_DATA"],
  [38, "CANNOT_PARSE_DATE"],
  [41, "CANNOT_PARSE_DATETIME"],
  [53, "TYPE_MISMATCH"],
  [69, "ARGUMENT_OUT_OF_BOUND"],
  [70, "CANNOT_CONVERT_TYPE"],
  [72, "CANNOT_PARSE_NUMBER"],
  [117, "INCORRECT_DATA"],
  [131, "TOO_LARGE_STRING_SIZE"],
  [321, "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE"],
  [349, "CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN"],
  [376, "CANNOT_PARSE_UUID"],
  [377, "ILLEGAL_SYNTAX_FOR_DATA_TYPE"],
  [691, "UNKNOWN_ELEMENT_OF_ENUM"],
]);

/**
 * Why an INSERT failed: `data` when ClickHouse refused the rows themselves (find and fail the rows at fault),
 * `retry` for everything else — the network (refused, reset, timed out), an overloaded or read-only server,
 * a missing table before migrations ran — where the same rows will go in once the server is back.
 * An unknown server error is retried rather than thrown away: holding jobs is safe, dropping them is not.
 */
export function insertErrorKind(error: unknown): "data" | "retry" {
  const code = clickHouseErrorCode(error);
  return code !== null && DATA_ERROR_CODES.has(code) ? "data" : "retry";
}

/** One line for logs and a failed job's reason: the server's message without 18.16's `e.what()` tail. */
export function clickHouseErrorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .replace(/\s*,?\s*e\.what\(\) = DB::Exception\s*$/, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 1000);
}
