/**
 * The generated analytics events of `npm run bench:reports` (scripts/bench-reports.ts): 10 million rows made
 * inside ClickHouse by `INSERT … SELECT … FROM numbers(N)`, each column a deterministic function of the row's
 * number (cityHash64 / intHash32 modulo, weighted arrays indexed by a hash), so loading is a few queries and
 * no row passes through Node. The SQL is accepted by the embedded ClickHouse 18.16 (and current ClickHouse).
 *
 * Shape: 30 whole days ending at `end` (a UTC midnight), 200,000 sessions. 40% of sessions bounce (one page
 * view, nothing else); the rest carry every other page view and action, the busier sessions more.
 * Sessions: mostly Android phones in Uganda (Kampala first), on Chrome and Opera Mini; some KE, TZ, RW, US,
 * GB. Pages: the marketplace's (/, /browse, /search, /gig/:id over 5,000 gigs with a few popular ones,
 * /gig/:id/order, /messages, /orders, ...). Actions: clicks with x/y (phones within 412 px), scrolls, focus,
 * time on page. Conversions: browser steps (package_selected, contact_seller) and server facts (signup,
 * order_placed with UGX values, order_paid, gig_published).
 */

export const SESSIONS = 200_000;
export const DAYS = 30;
/** Rows per table; they add up to 10,000,000. */
export const ROWS = {
  sessions: SESSIONS,
  pageviews: 3_800_000,
  actions: 5_920_000,
  conversions: 50_000,
  user_actions: 20_000,
  errors: 10_000,
} as const;
export const TOTAL_ROWS = Object.values(ROWS).reduce((a, b) => a + b, 0);
/** Bumped when the generator changes, so an old data set is rebuilt. */
export const DATA_VERSION = 1;

/** A ClickHouse array literal of `weights` (value → weight out of 100), picked by `hash % 100`. */
function weighted(weights: [string, number][], hash: string): string {
  const total = weights.reduce((n, [, w]) => n + w, 0);
  if (total !== 100) throw new Error(`weights must add up to 100, got ${total}`);
  const items = weights.flatMap(([v, w]) => Array.from({ length: w }, () => `'${v}'`));
  return `[${items.join(",")}][1 + ${hash} % 100]`;
}

const pick = (values: string[], hash: string) => `[${values.map((v) => `'${v}'`).join(",")}][1 + ${hash} % ${values.length}]`;

/** The columns every session's events share, from its number `s`. */
function sessionColumns(end: number) {
  const span = DAYS * 86_400;
  return {
    // A session starts at least 30 minutes before the end, so all its events fall in the 30 days.
    start: `(${end - span} + 1 + cityHash64(s, 11) % ${span - 1_800})`,
    sessionId: `concat(toString(1764000000000 + s * 37), '-', lower(hex(cityHash64(s, 5))))`,
    userId: `if(cityHash64(s, 3) % 10 < 3, 1 + cityHash64(s, 4) % 20000, 0)`,
    device: weighted(
      [
        ["mobile", 78],
        ["desktop", 15],
        ["tablet", 7],
      ],
      "cityHash64(s, 1)",
    ),
    browser: weighted(
      [
        ["Chrome", 52],
        ["Opera Mini", 16],
        ["Opera", 8],
        ["Samsung Internet", 7],
        ["Safari", 6],
        ["Firefox", 5],
        ["Edge", 3],
        ["UC Browser", 3],
      ],
      "cityHash64(s, 2)",
    ),
    os: weighted(
      [
        ["Android", 76],
        ["Windows", 12],
        ["iOS", 6],
        ["macOS", 3],
        ["KaiOS", 2],
        ["Linux", 1],
      ],
      "cityHash64(s, 6)",
    ),
    country: weighted(
      [
        ["UG", 80],
        ["KE", 7],
        ["TZ", 4],
        ["RW", 3],
        ["US", 3],
        ["GB", 2],
        ["Unknown", 1],
      ],
      "cityHash64(s, 7)",
    ),
  };
}

/** City of a session, given its country column `country`. */
const CITY = `multiIf(
  s_country = 'UG', ${pick(["Kampala", "Kampala", "Kampala", "Kampala", "Wakiso", "Entebbe", "Mukono", "Jinja", "Gulu", "Mbarara", "Mbale", "Lira", "Masaka", "Fort Portal"], "cityHash64(s, 8)")},
  s_country = 'KE', ${pick(["Nairobi", "Nairobi", "Mombasa", "Kisumu", "Eldoret"], "cityHash64(s, 8)")},
  s_country = 'TZ', ${pick(["Dar es Salaam", "Arusha", "Mwanza"], "cityHash64(s, 8)")},
  s_country = 'RW', ${pick(["Kigali", "Kigali", "Musanze"], "cityHash64(s, 8)")},
  s_country = 'US', ${pick(["New York", "Boston", "Seattle", "Houston"], "cityHash64(s, 8)")},
  s_country = 'GB', ${pick(["London", "London", "Manchester"], "cityHash64(s, 8)")},
  '')`;

/**
 * The session number of the n-th row: rows below `landing` are the landing page view of session n; the
 * others go to an engaged session (s % 5 >= 2: 60% of sessions), the lower-numbered ones busier.
 */
function sessionOf(landing: number, salt: number) {
  const engaged = `(toUInt32(${SESSIONS / 5} * pow((intHash32(n + ${salt}) % 1000000) / 1000000, 1.3)) * 5 + 2 + intHash32(n + ${salt + 1}) % 3)`;
  return landing > 0 ? `if(n < ${landing}, n, ${engaged})` : engaged;
}

/** A gig id, 1..5000, with a few gigs far more popular than the rest. */
const GIG = (salt: number) => `toString(1 + toUInt32(4999 * pow((intHash32(n + ${salt}) % 100000) / 100000, 3)))`;

/** A page path of the marketplace for the n-th row. */
function pageOf(salt: number, landing: boolean) {
  const templates: [string, number][] = landing
    ? [
        ["/", 35],
        ["/browse", 10],
        ["/search", 10],
        ["/gig/{id}", 35],
        ["/login", 5],
        ["/register", 5],
      ]
    : [
        ["/", 9],
        ["/browse", 10],
        ["/search", 12],
        ["/gig/{id}", 33],
        ["/gig/{id}/order", 5],
        ["/messages", 6],
        ["/messages/{id}", 6],
        ["/orders", 5],
        ["/orders/{id}", 5],
        ["/dashboard", 4],
        ["/category/design", 2],
        ["/category/writing", 2],
        ["/profile/{id}", 1],
      ];
  // 18.16's replaceOne wants a constant replacement: split the template at {id} and put the id between.
  const parts = `splitByString('{id}', ${weighted(templates, `cityHash64(n, ${salt})`)})`;
  return `concat(${parts}[1], if(length(${parts}) > 1, concat(${GIG(salt + 1)}, ${parts}[2]), ''))`;
}

const SEARCH_TERMS = [
  "logo design",
  "website",
  "cv writing",
  "translation luganda",
  "video editing",
  "photography kampala",
  "mobile app",
  "data entry",
  "social media",
  "tutoring",
];
const REFERRERS: [string, number][] = [
  ["", 45],
  ["https://www.google.com/", 30],
  ["https://www.facebook.com/", 10],
  ["https://l.instagram.com/", 5],
  ["https://t.co/", 3],
  ["https://www.linkedin.com/", 2],
  ["https://web.whatsapp.com/", 5],
];

/** The INSERT statements that fill `database`'s event tables (migrated and empty) for a window ending at `end`. */
export function generatorSql(database: string, end: number): { table: string; sql: string }[] {
  const c = sessionColumns(end);
  /** The inner SELECT: the row number n, its session s and the session's columns (s_*). */
  const rows = (count: number, landing: number, salt: number, extra: string) => `
    SELECT *, ${c.start} AS s_start, ${c.sessionId} AS s_session_id, ${c.userId} AS s_user_id, ${c.device} AS s_device,
      ${c.browser} AS s_browser, ${c.os} AS s_os, ${c.country} AS s_country
    FROM (SELECT number AS n, ${sessionOf(landing, salt)} AS s${extra} FROM system.numbers LIMIT ${count})`;
  const common = (time: string, platform = "'web'") => `
      generateUUIDv4() AS event_id, s_session_id AS session_id, s_user_id AS user_id, toDateTime(${time}) AS event_time,
      toDateTime(${time}) AS received_at, ${platform} AS platform,
      concat('41.210.', toString(144 + cityHash64(s, 9) % 16), '.', toString(1 + cityHash64(s, 10) % 250)) AS ip,
      s_country AS country, ${CITY} AS city, s_device AS device, s_browser AS browser, s_os AS os`;
  // Engaged sessions' events fall within 30 minutes of their start; a landing page view is at the start.
  const inSession = `s_start + if(n < ${SESSIONS}, 0, cityHash64(n, 12) % 1800)`;
  const inSessionNoLanding = `s_start + cityHash64(n, 12) % 1800`;
  return [
    {
      table: "sessions",
      sql: `INSERT INTO ${database}.sessions
        SELECT ${common("s_start")}, '' AS user_agent,
          if(s_device = 'mobile', '412x915', if(s_device = 'tablet', '800x1280', '1366x768')) AS screen_resolution,
          'Africa/Kampala' AS timezone
        FROM (${rows(ROWS.sessions, ROWS.sessions, 0, "")})`,
    },
    {
      table: "pageviews",
      sql: `INSERT INTO ${database}.pageviews
        SELECT ${common(inSession)}, p_page AS page, concat('Soko · ', p_page) AS title,
          concat('https://soko.ug', p_page, if(p_page = '/search', concat('?q=', replaceAll(${pick(SEARCH_TERMS, "cityHash64(n, 14)")}, ' ', '+')), '')) AS url,
          if(n < ${SESSIONS}, ${weighted(REFERRERS, "cityHash64(s, 15)")}, 'https://soko.ug/') AS referrer
        FROM (SELECT *, if(n < ${SESSIONS}, ${pageOf(20, true)}, ${pageOf(22, false)}) AS p_page FROM (${rows(ROWS.pageviews, SESSIONS, 100, "")}))`,
    },
    {
      table: "actions",
      sql: `INSERT INTO ${database}.actions
        SELECT ${common(inSessionNoLanding)}, a_type AS action_type, p_page AS page,
          if(a_type = 'click', ${pick(["order-now", "contact-seller", "search-submit", "gig-card", "nav-browse", "package-standard", "send-message", ""], "cityHash64(n, 31)")}, '') AS element_id,
          if(a_type = 'click', 'btn btn-primary', '') AS element_class,
          if(a_type = 'click', ${pick(["button", "a", "a", "div", "img"], "cityHash64(n, 32)")}, if(a_type IN ('input_focus', 'form_submit'), 'input', '')) AS element_tag,
          if(a_type = 'click', ${pick(["Order now", "Contact seller", "Search", "Continue (UGX 150,000)", "Browse", "Standard"], "cityHash64(n, 33)")}, '') AS element_text,
          if(a_type = 'click', if(s_device = 'mobile', cityHash64(n, 34) % 412, if(s_device = 'tablet', cityHash64(n, 34) % 800, cityHash64(n, 34) % 1366)), 0) AS x,
          if(a_type = 'click', toUInt32(2400 * pow((cityHash64(n, 35) % 10000) / 10000, 1.5)), 0) AS y,
          if(a_type = 'time_on_page', toFloat64(cityHash64(n, 36) % 600), 0) AS value
        FROM (SELECT *, ${weighted(
          [
            ["click", 38],
            ["scroll", 22],
            ["time_on_page", 14],
            ["page_focus", 8],
            ["page_blur", 8],
            ["input_focus", 6],
            ["form_submit", 4],
          ],
          "cityHash64(n, 30)",
        )} AS a_type,
          ${pageOf(24, false)} AS p_page FROM (${rows(ROWS.actions, 0, 200, "")}))`,
    },
    {
      table: "conversions",
      sql: `INSERT INTO ${database}.conversions
        SELECT ${common(inSessionNoLanding, "if(c_type IN ('package_selected', 'contact_seller'), 'web', 'server')")}, c_type AS conversion_type,
          if(c_type IN ('order_placed', 'order_paid'), 20000 + (cityHash64(n, 41) % 97) * 5000, 0) AS value, '{}' AS metadata
        FROM (SELECT *, ${weighted(
          [
            ["package_selected", 30],
            ["contact_seller", 30],
            ["signup", 15],
            ["order_placed", 12],
            ["order_paid", 10],
            ["gig_published", 3],
          ],
          "cityHash64(n, 40)",
        )} AS c_type
          FROM (${rows(ROWS.conversions, 0, 300, "")}))`,
    },
    {
      table: "user_actions",
      sql: `INSERT INTO ${database}.user_actions
        SELECT ${common(inSessionNoLanding, "'server'")}, ${pick(["sign_in", "sign_in", "order_placed", "message_sent", "gig_saved", "profile_updated"], "cityHash64(n, 50)")} AS action,
          '{}' AS details, ${pageOf(52, false)} AS page
        FROM (${rows(ROWS.user_actions, 0, 400, "")})`,
    },
    {
      table: "errors",
      sql: `INSERT INTO ${database}.errors
        SELECT ${common(inSessionNoLanding)}, ${pageOf(60, false)} AS page,
          ${pick(["TypeError: Cannot read properties of undefined (reading id)", "NetworkError when attempting to fetch resource.", "ChunkLoadError: Loading chunk 12 failed."], "cityHash64(n, 61)")} AS message,
          '' AS stack
        FROM (${rows(ROWS.errors, 0, 500, "")})`,
    },
  ];
}
