/**
 * The first import of each process's entry file (server.ts, worker/index.ts). ES modules are evaluated in
 * the order they are imported, so this checks the environment, and stops a process with a bad one (every
 * problem listed), before any other module's code runs.
 */
import { loadEnvOrExit } from "./process.server";

export const env = loadEnvOrExit();
