/**
 * The ledger's rules now live in tests/support/order-checks.ts, one module with the checks every order test
 * uses; this name stays only until tests/e2e/order-journey.e2e.test.ts imports ledgerProblems from there.
 */
export { ledgerProblems, type Scope } from "./order-checks";
