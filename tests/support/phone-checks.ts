/**
 * The phone-first checks of a page (tests/e2e/phone-guards.e2e.test.ts runs them over every page): its width,
 * its targets' size (WCAG 2.2), where its main action is, and axe. Each returns what it found wrong, one line
 * an element.
 */
import axe from "axe-core";
import type { Locator, Page } from "playwright-core";

export const PHONE = { width: 360, height: 740 };
export const MIN_TARGET = 24;

/**
 * The layout checks, in the page (one function: what Playwright sends must carry its helpers inside it).
 * `overflow`: when the document is wider than the window, the outermost elements sticking out.
 * `small`: WCAG 2.2 target size (minimum). The targets are visible links, buttons, form controls, summaries and
 * ARIA widgets; a checkbox or radio counts with the label on its line (a tap on either works), and a visually
 * hidden one is reached through its label. A link inside a sentence is exempt. An undersized target passes if
 * a 24 px circle centred on it meets no other target and no other undersized target's circle.
 */
export function layoutInPage(min: number) {
  type Box = { left: number; top: number; right: number; bottom: number };
  const describe = (el: Element) => {
    const tag = el.tagName.toLowerCase();
    const id = el.id ? `#${el.id}` : "";
    const cls = !id && typeof el.className === "string" && el.className.trim() ? `.${el.className.trim().split(/\s+/).join(".")}` : "";
    const type = el.getAttribute("type") ? `[type=${el.getAttribute("type")}]` : "";
    const text = (el.getAttribute("aria-label") ?? (el as HTMLElement).innerText ?? el.getAttribute("name") ?? "").trim().replace(/\s+/g, " ").slice(0, 40);
    return `${tag}${id}${cls}${type}${text ? ` "${text}"` : ""}`;
  };

  const overflow: string[] = [];
  const width = window.innerWidth;
  const scrollWidth = document.documentElement.scrollWidth;
  if (scrollWidth > width) {
    const wide = [...document.body.querySelectorAll("*")].filter((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.right > width + 0.5;
    });
    const outermost = wide.filter((el) => !wide.some((other) => other !== el && other.contains(el)));
    overflow.push(
      `document ${scrollWidth} px wide in a ${width} px window`,
      ...outermost.slice(0, 6).map((el) => `${describe(el)} reaches ${Math.round(el.getBoundingClientRect().right)} px`),
    );
  }

  const shown = (el: Element) => {
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") return false;
    if (el.closest("[inert], [aria-hidden=true]")) return false;
    const r = el.getBoundingClientRect();
    return r.width > 1 && r.height > 1;
  };
  const boxOf = (el: Element): Box => {
    const r = el.getBoundingClientRect();
    return { left: r.left + scrollX, top: r.top + scrollY, right: r.right + scrollX, bottom: r.bottom + scrollY };
  };
  const union = (a: Box, b: Box): Box => ({
    left: Math.min(a.left, b.left),
    top: Math.min(a.top, b.top),
    right: Math.max(a.right, b.right),
    bottom: Math.max(a.bottom, b.bottom),
  });
  const selector =
    "a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=link], [role=tab], [role=checkbox], [role=radio], [tabindex]:not([tabindex='-1'])";
  // A link in a sentence: an inline link with words that are not a control's on one of its lines.
  const inSentence = (link: Element) => {
    let block = link.parentElement;
    while (block && getComputedStyle(block).display.startsWith("inline")) block = block.parentElement;
    if (!block) return false;
    const lines = [...link.getClientRects()];
    const walker = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!/[\p{L}\p{N}]/u.test(node.textContent ?? "") || node.parentElement?.closest("a, button, summary, select")) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) {
        if (lines.some((line) => r.top < line.bottom - 2 && r.bottom > line.top + 2)) return true;
      }
    }
    return false;
  };
  const targets: { el: Element; box: Box }[] = [];
  const seen = new Set<Element>();
  for (const el of document.querySelectorAll(selector)) {
    if (seen.has(el)) continue;
    const input = el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio") ? el : null;
    const labels = input ? [...(input.labels ?? [])].filter(shown) : [];
    if (!shown(el)) {
      // A visually hidden checkbox or radio (tabs, toggles): its label is the target.
      for (const label of labels) {
        if (seen.has(label)) continue;
        seen.add(label);
        targets.push({ el: label, box: boxOf(label) });
      }
      continue;
    }
    seen.add(el);
    let box = boxOf(el);
    for (const label of labels) {
      const lb = boxOf(label);
      if (Math.abs((lb.top + lb.bottom) / 2 - (box.top + box.bottom) / 2) < min) box = union(box, lb);
      seen.add(label);
    }
    if (el.tagName === "A" && getComputedStyle(el).display === "inline" && inSentence(el)) continue;
    targets.push({ el, box });
  }
  const isSmall = (b: Box) => b.right - b.left < min - 0.5 || b.bottom - b.top < min - 0.5;
  const centre = (b: Box) => ({ x: (b.left + b.right) / 2, y: (b.top + b.bottom) / 2 });
  const distanceToBox = (p: { x: number; y: number }, b: Box) => Math.hypot(Math.max(b.left - p.x, 0, p.x - b.right), Math.max(b.top - p.y, 0, p.y - b.bottom));
  const small: string[] = [];
  for (const t of targets) {
    if (!isSmall(t.box)) continue;
    const c = centre(t.box);
    const near = targets.find(
      (o) =>
        o !== t &&
        !o.el.contains(t.el) &&
        !t.el.contains(o.el) &&
        (distanceToBox(c, o.box) < min / 2 || (isSmall(o.box) && Math.hypot(centre(o.box).x - c.x, centre(o.box).y - c.y) < min)),
    );
    if (near) {
      const w = Math.round(t.box.right - t.box.left);
      const h = Math.round(t.box.bottom - t.box.top);
      small.push(`${describe(t.el)} is ${w}×${h} px, too close to ${describe(near.el)}`);
    }
  }
  return { overflow, small };
}

/** Where the main action starts on the first screen: nothing when its top is above the fold. */
export async function mainActionPlacement(page: Page, locate: (page: Page) => Locator): Promise<string[]> {
  const action = locate(page);
  if (!(await action.count())) return ["the main action is not on the page"];
  const box = await action.boundingBox();
  if (!box) return ["the main action is not shown"];
  return box.y < PHONE.height ? [] : [`the main action starts at y=${Math.round(box.y)}, below the first screen (${PHONE.height} px)`];
}

/**
 * axe's violations, each with the elements it names. axe runs in the page itself (`axe.run` on the document,
 * violations only): our pages have no frames, and this is several times faster than the frame-by-frame
 * runner of @axe-core/playwright (6 s against 30 s on the API reference).
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const violations: { id: string; impact: string | null; targets: string[] }[] = await page.evaluate(
    `axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(" ")) })))`,
  );
  return violations.map((v) => `${v.id} (${v.impact}): ${v.targets.slice(0, 6).join(", ")}`);
}

/**
 * Runs layoutInPage in the page. Sent as source with a stand-in for the `__name` helper that esbuild (tsx,
 * vitest) wraps named functions in, which the page does not have.
 */
export function checkLayout(page: Page): Promise<ReturnType<typeof layoutInPage>> {
  return page.evaluate(`(() => { const __name = (f) => f; return (${layoutInPage.toString()})(${MIN_TARGET}); })()`);
}
