// Vitest setup (islands/vitest.config.ts): testing-library only cleans up by itself when
// test globals are on; they are off here.
import { cleanup } from "@testing-library/react";
import { afterEach, vi } from "vitest";

afterEach(() => {
  cleanup();
  vi.useRealTimers();
  document.body.replaceChildren();
  sessionStorage.clear();
});
