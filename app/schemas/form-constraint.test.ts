import { getZodConstraint } from "@conform-to/zod";
import { describe, expect, it } from "vitest";
import { BillingSchema, FreelancerRegisterSchema, LoginSchema, ProfileSchema, RegisterSchema } from "./account";
import { getFormConstraint } from "./form-constraint";

describe("the browser's checks from a form's schema", () => {
  it("asks for what is required, within its lengths", () => {
    const c = getFormConstraint(RegisterSchema);
    expect(c.name).toEqual({ required: true, minLength: 2, maxLength: 100 });
    expect(c.email).toEqual({ required: true, maxLength: 254 });
    expect(c.password).toEqual({ required: true, minLength: 8, maxLength: 200 });
    expect(c.confirmPassword).toEqual({ required: true });
    expect(c.role).toMatchObject({ required: false });
    expect(getFormConstraint(LoginSchema).remember).toMatchObject({ required: false });
  });

  it("reads a field that is tidied before it is checked by what the person types", () => {
    // Conform's own reading would refuse "+256 772 123456" in the browser, which the server takes.
    expect(getZodConstraint(BillingSchema).mobileMoneyNumber?.pattern).toBeDefined();
    expect(getFormConstraint(BillingSchema).mobileMoneyNumber).toEqual({ required: true, maxLength: 30 });
    const seller = getFormConstraint(FreelancerRegisterSchema);
    expect(seller.skills).toEqual({ required: true, maxLength: 600 });
    expect(seller.terms).toEqual({ required: true });
    expect(seller.yearsExperience).toEqual({ required: false, min: 0, max: 60 });
    expect(seller.portfolioUrl).toEqual({ required: false, maxLength: 300 });
    expect(getFormConstraint(ProfileSchema).skills).toEqual({ required: false, maxLength: 20 * 42 });
  });
});
