import { describe, expect, it } from "vitest";
import { coverSvg } from "./covers";

describe("demo covers", () => {
  it("show the category's initials and never the gig's title", () => {
    const svg = coverSvg({ title: "I will design your shop's logo", categorySlug: "graphics-design", categoryName: "Graphics & Design" });
    expect(svg).toContain(">GD</text>");
    expect(svg).not.toMatch(/design your|logo/i);
    expect(svg).toContain('fill="#8a3a12"');
  });

  it("differ between gigs of one category", () => {
    const a = coverSvg({ title: "Logo in 24 hours", categorySlug: "graphics-design", categoryName: "Graphics & Design" });
    const b = coverSvg({ title: "Flyers for your event", categorySlug: "graphics-design", categoryName: "Graphics & Design" });
    expect(a).not.toBe(b);
  });
});
