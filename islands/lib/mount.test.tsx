import { act } from "@testing-library/react";
import { useState } from "react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { boot, clearReloadFlagOnLoad, MOUNTED_ATTR, RELOAD_FLAG, type IslandModule } from "./mount";

function Greeting({ name }: { name: string }) {
  const [clicks, setClicks] = useState(0);
  return (
    <button type="button" className="greeting" onClick={() => setClicks(clicks + 1)}>
      こんにちは {name} {clicks}
    </button>
  );
}

function Broken(): never {
  throw new Error("render failed");
}

const FALLBACK = '<p class="fallback">サーバーの表示</p>';

function island(name: string, props: unknown, rawProps?: string) {
  const el = document.createElement("div");
  el.dataset.island = name;
  el.dataset.props = rawProps ?? JSON.stringify(props);
  el.innerHTML = FALLBACK;
  document.body.append(el);
  return el;
}

const module = (c: IslandModule["default"]) => async () => ({ default: c });

async function bootNow(...args: Parameters<typeof boot>) {
  await act(async () => {
    await boot(...args);
  });
  // Let restore() (scheduled with setTimeout 0 after a render error) run.
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
}

let errors: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  errors = vi.spyOn(console, "error").mockImplementation(() => {});
});

describe("boot", () => {
  it("mounts each island element once, with its data-props, over the fallback", async () => {
    const a = island("greeting", { name: "A社" });
    const b = island("greeting", { name: "B社" });
    const other = island("other", {});
    const load = vi.fn(module(Greeting));

    await bootNow("greeting", load);
    expect(load).toHaveBeenCalledTimes(1);
    expect(a.textContent).toBe("こんにちは A社 0");
    expect(b.textContent).toBe("こんにちは B社 0");
    expect(a.querySelector(".fallback")).toBeNull();
    expect(a.getAttribute(MOUNTED_ATTR)).toBe("true");
    expect(other.innerHTML).toBe(FALLBACK);
    expect(other.hasAttribute(MOUNTED_ATTR)).toBe(false);

    // State survives a second boot: nothing is mounted twice.
    await act(async () => a.querySelector("button")!.click());
    await bootNow("greeting", load);
    expect(load).toHaveBeenCalledTimes(1);
    expect(a.textContent).toBe("こんにちは A社 1");
    expect(a.querySelectorAll(".greeting")).toHaveLength(1);

    // An element added later is mounted by the next boot.
    const c = island("greeting", { name: "C社" });
    await bootNow("greeting", load);
    expect(load).toHaveBeenCalledTimes(2);
    expect(c.textContent).toBe("こんにちは C社 0");
    expect(a.textContent).toBe("こんにちは A社 1");
    expect(errors).not.toHaveBeenCalled();
  });

  it("does not load the code when the page has no such island", async () => {
    const load = vi.fn(module(Greeting));
    await bootNow("greeting", load);
    expect(load).not.toHaveBeenCalled();
  });

  it("leaves the fallback of a component that throws, and mounts the others", async () => {
    const broken = island("broken", {});
    await bootNow("broken", module(Broken));
    expect(broken.innerHTML).toBe(FALLBACK);
    expect(broken.getAttribute(MOUNTED_ATTR)).toBe("error");
    expect(errors).toHaveBeenCalledWith(expect.stringContaining("island broken"), expect.any(Error));
  });

  it("leaves the fallback of an element with bad data-props, and mounts the others", async () => {
    const bad = island("greeting", null, "{not json");
    const good = island("greeting", { name: "A社" });
    await bootNow("greeting", module(Greeting));
    expect(bad.innerHTML).toBe(FALLBACK);
    expect(bad.getAttribute(MOUNTED_ATTR)).toBe("error");
    expect(good.textContent).toBe("こんにちは A社 0");
    expect(errors).toHaveBeenCalledTimes(1);
  });

  it("reloads the page once when the code fails to load, and not twice", async () => {
    const reload = vi.fn();
    const fail = () => Promise.reject(new TypeError("Failed to fetch dynamically imported module"));

    const first = island("greeting", { name: "A社" });
    await bootNow("greeting", fail, { reload });
    expect(reload).toHaveBeenCalledTimes(1);
    expect(sessionStorage.getItem(RELOAD_FLAG)).toBe(window.location.href);
    expect(first.innerHTML).toBe(FALLBACK);

    // The reload boot() asked for keeps the flag when the page loads.
    clearReloadFlagOnLoad(sessionStorage, "reload", window.location.href);
    expect(sessionStorage.getItem(RELOAD_FLAG)).toBe(window.location.href);

    // The reloaded page fails again: log, keep the fallback, no second reload.
    document.body.replaceChildren();
    const second = island("greeting", { name: "A社" });
    errors.mockClear();
    await bootNow("greeting", fail, { reload });
    expect(reload).toHaveBeenCalledTimes(1);
    expect(second.innerHTML).toBe(FALLBACK);
    expect(second.getAttribute(MOUNTED_ATTR)).toBe("error");
    expect(errors).toHaveBeenCalledWith(expect.stringContaining("fallback stays"), expect.any(TypeError));
  });

  it("reloads with location.reload() by default", async () => {
    const reload = vi.fn();
    vi.stubGlobal("location", { ...window.location, reload });
    island("greeting", {});
    await bootNow("greeting", () => Promise.reject(new Error("offline")));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("does not reload when sessionStorage is unavailable (no way to stop a loop)", async () => {
    const reload = vi.fn();
    const el = island("greeting", {});
    await bootNow("greeting", () => Promise.reject(new Error("offline")), { reload, storage: null });
    expect(reload).not.toHaveBeenCalled();
    expect(el.innerHTML).toBe(FALLBACK);
  });

  it("keeps the fallback, without reloading, when the module has no component", async () => {
    const reload = vi.fn();
    const el = island("greeting", {});
    await bootNow("greeting", async () => ({}) as IslandModule, { reload });
    expect(reload).not.toHaveBeenCalled();
    expect(el.innerHTML).toBe(FALLBACK);
    expect(el.getAttribute(MOUNTED_ATTR)).toBe("error");
    expect(errors).toHaveBeenCalledTimes(1);
  });

  it("clears the reload flag when the code loads", async () => {
    sessionStorage.setItem(RELOAD_FLAG, "1");
    island("greeting", { name: "A社" });
    await bootNow("greeting", module(Greeting), { reload: vi.fn() });
    expect(sessionStorage.getItem(RELOAD_FLAG)).toBeNull();
  });

  it("clears the reload flag when another page loads, so a later failure reloads again (SPEC.md §2)", async () => {
    const reload = vi.fn();
    const fail = () => Promise.reject(new TypeError("Failed to fetch dynamically imported module"));
    sessionStorage.setItem(RELOAD_FLAG, "http://localhost/payments/create");
    // A link to another page, or the same page opened again by a link: not our reload.
    clearReloadFlagOnLoad(sessionStorage, "navigate", "http://localhost/suppliers");
    expect(sessionStorage.getItem(RELOAD_FLAG)).toBeNull();
    sessionStorage.setItem(RELOAD_FLAG, "http://localhost/payments/create");
    clearReloadFlagOnLoad(sessionStorage, "navigate", "http://localhost/payments/create");
    expect(sessionStorage.getItem(RELOAD_FLAG)).toBeNull();
    // The user's own reload of another page, and back/forward, clear it too.
    sessionStorage.setItem(RELOAD_FLAG, "http://localhost/payments/create");
    clearReloadFlagOnLoad(sessionStorage, "reload", "http://localhost/suppliers");
    expect(sessionStorage.getItem(RELOAD_FLAG)).toBeNull();
    sessionStorage.setItem(RELOAD_FLAG, "http://localhost/payments/create");
    clearReloadFlagOnLoad(sessionStorage, "back_forward", "http://localhost/payments/create");
    expect(sessionStorage.getItem(RELOAD_FLAG)).toBeNull();

    island("greeting", {});
    await bootNow("greeting", fail, { reload });
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("clears nothing, and never throws, without sessionStorage", () => {
    expect(() => clearReloadFlagOnLoad(null, "navigate", "http://localhost/")).not.toThrow();
    const broken = { getItem: () => { throw new Error("blocked"); }, setItem: vi.fn(), removeItem: vi.fn() };
    expect(() => clearReloadFlagOnLoad(broken, "navigate", "http://localhost/")).not.toThrow();
  });
});
