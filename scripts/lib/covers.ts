/**
 * Cover images for demo gigs, drawn at seed time: the category's colour (the same pair the catalog's
 * placeholders use, app/styles/app.css) with its initials, as an SVG that sharp renders to a PNG. The
 * PNG then goes in as any seller's upload does (the gigs operation's attachImage), so it is checked and
 * re-encoded into the same sizes as a photo.
 */
import sharp from "sharp";
import { categoryInitials } from "~/domain/catalog-vocabulary";

/**
 * Drawn on a 1280 x 720 canvas, rendered at 960 x 540: sharp's WebP encoding is most of the seed's time, and
 * at 1280 x 720 the 66 covers took twice as long (measured: 68 ms against 138 ms a cover on a busy 2-core
 * machine). 960 pixels is more than a gig page shows it at on a phone, and the cards take the 480 thumb.
 */
const CANVAS_WIDTH = 1280;
const CANVAS_HEIGHT = 720;
export const COVER_WIDTH = 960;
export const COVER_HEIGHT = 540;

/** Background and tint per category slug: the placeholder's text colour and background, swapped. */
const COLOURS: Record<string, { background: string; tint: string }> = {
  "graphics-design": { background: "#8a3a12", tint: "#fdeee6" },
  "web-development": { background: "#1d4b8f", tint: "#e6effd" },
  "writing-translation": { background: "#5b2a86", tint: "#f3eafc" },
  "video-animation": { background: "#8c1d3f", tint: "#fde8ee" },
  "digital-marketing": { background: "#6b4f00", tint: "#fff4d6" },
  "local-services": { background: "#0f5132", tint: "#e3f4ea" },
};
const FALLBACK = { background: "#1f2937", tint: "#f3f4f6" };

const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * The cover's SVG: the category's colour with a few tinted shapes and its initials in a ring. Never the gig's
 * title: every card and page shows the title beside its cover, and a cover that repeats it says it twice.
 */
export function coverSvg({ title, categorySlug, categoryName }: { title: string; categorySlug: string; categoryName: string }): string {
  const { background, tint } = COLOURS[categorySlug] ?? FALLBACK;
  // The shapes move with the title, so the covers of one category differ.
  let h = 0;
  for (const c of title) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${COVER_WIDTH}" height="${COVER_HEIGHT}" viewBox="0 0 ${CANVAS_WIDTH} ${CANVAS_HEIGHT}">
<rect width="${CANVAS_WIDTH}" height="${CANVAS_HEIGHT}" fill="${background}"/>
<g fill="${tint}" fill-opacity="0.18"><circle cx="${960 + (h % 300)}" cy="${60 + ((h >> 8) % 160)}" r="190"/><circle cx="${40 + ((h >> 4) % 200)}" cy="700" r="300"/><circle cx="${900 + ((h >> 12) % 260)}" cy="${560 + ((h >> 16) % 120)}" r="90"/></g>
<circle cx="640" cy="360" r="150" fill="${tint}"/>
<circle cx="640" cy="360" r="150" fill="none" stroke="#ffffff" stroke-width="14"/>
<text x="640" y="395" text-anchor="middle" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif" font-size="104" font-weight="700" fill="${background}">${escapeXml(categoryInitials(categoryName))}</text>
</svg>`;
}

/** The cover as a PNG of COVER_WIDTH x COVER_HEIGHT (fast, light compression: it is re-encoded on upload). */
export async function renderCover(gig: { title: string; categorySlug: string; categoryName: string }): Promise<Buffer> {
  return sharp(Buffer.from(coverSvg(gig)))
    .png({ compressionLevel: 1 })
    .toBuffer();
}
