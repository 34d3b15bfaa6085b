/**
 * Cover images for demo gigs, drawn at seed time: the category's colour (the same pair the catalog's
 * placeholders use, app/styles/app.css) behind the gig's title, as an SVG that sharp renders to a PNG. The
 * PNG then goes in as any seller's upload does (the gigs operation's attachImage), so it is checked and
 * re-encoded into the same sizes as a photo.
 */
import sharp from "sharp";

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

/** Words into lines of at most `width` characters (a word longer than a line keeps a line of its own). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** The cover's SVG: the category's name small at the top, the title large, centred in what is left. */
export function coverSvg({ title, categorySlug, categoryName }: { title: string; categorySlug: string; categoryName: string }): string {
  const { background, tint } = COLOURS[categorySlug] ?? FALLBACK;
  // Bold sans at 72 px is about 40 px a character: 26 characters fill the 1,088 px between the margins.
  let size = 72;
  let lines = wrap(title, 26);
  if (lines.length > 4) {
    size = 56;
    lines = wrap(title, 34);
  }
  const lineHeight = Math.round(size * 1.2);
  const top = 150 + (CANVAS_HEIGHT - 150 - 90 - lines.length * lineHeight) / 2 + size;
  const text = lines
    .map((line, i) => `<text x="96" y="${Math.round(top + i * lineHeight)}" font-size="${size}" font-weight="700">${escapeXml(line)}</text>`)
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${COVER_WIDTH}" height="${COVER_HEIGHT}" viewBox="0 0 ${CANVAS_WIDTH} ${CANVAS_HEIGHT}">
<rect width="${CANVAS_WIDTH}" height="${CANVAS_HEIGHT}" fill="${background}"/>
<rect x="96" y="96" width="120" height="8" fill="${tint}"/>
<g font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif">
<text x="96" y="160" font-size="34" letter-spacing="2" fill="${tint}">${escapeXml(categoryName.toUpperCase())}</text>
<g fill="#ffffff">${text}</g>
<text x="96" y="${CANVAS_HEIGHT - 72}" font-size="30" fill="${tint}" fill-opacity="0.8">Soko</text>
</g>
</svg>`;
}

/** The cover as a PNG of COVER_WIDTH x COVER_HEIGHT (fast, light compression: it is re-encoded on upload). */
export async function renderCover(gig: { title: string; categorySlug: string; categoryName: string }): Promise<Buffer> {
  return sharp(Buffer.from(coverSvg(gig)))
    .png({ compressionLevel: 1 })
    .toBuffer();
}
