import { defineConfig } from "vitest/config";

export default defineConfig({
  // Paths below are relative to the repository root, wherever vitest is started from.
  // (URL.pathname rather than node:url keeps Node's types out of the islands' typecheck.)
  root: decodeURIComponent(new URL("..", import.meta.url).pathname),
  // JSX by esbuild's automatic runtime; no React plugin needed (no fast refresh in tests).
  esbuild: { jsx: "automatic" },
  test: {
    environment: "jsdom",
    include: ["islands/**/*.test.{ts,tsx}", "gateway/sandbox/assets/**/*.test.{js,ts}"],
    setupFiles: ["islands/lib/test-setup.ts"],
    restoreMocks: true,
    unstubGlobals: true,
  },
});
