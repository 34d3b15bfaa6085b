import { prepareTemplate } from "./databases";

/** Once per test run: a freshly migrated template database that test files copy. */
export default async function setup() {
  await prepareTemplate();
}
