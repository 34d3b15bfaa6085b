/** The chat's statements name their parameters (`:name`); runStatement numbers them for Postgres (app/server/db.server.ts). */
import { describe, expect, it } from "vitest";
import { numberParameters } from "~/server/db.server";

describe("numberParameters", () => {
  it("numbers each name once, in order of first use, and leaves casts and quoted colons alone", () => {
    const sql = "SELECT :a::text, :b, 'kind:' || :a, x::int, now() + :delay::interval WHERE y = :b";
    expect(numberParameters(sql)).toEqual({
      text: "SELECT $1::text, $2, 'kind:' || $1, x::int, now() + $3::interval WHERE y = $2",
      names: ["a", "b", "delay"],
    });
  });

  it("leaves a statement without parameters as it is", () => {
    expect(numberParameters("SELECT 1 AS one")).toEqual({ text: "SELECT 1 AS one", names: [] });
  });
});
