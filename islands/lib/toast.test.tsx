import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { showToast, SWIPE_THRESHOLD_PX, TOAST_CLOSE_LABEL, TOAST_DURATION_MS, TOAST_LIMIT, Toaster } from "./toast";

const toasts = () => Array.from(document.querySelectorAll<HTMLElement>(".toaster .toast"));
const raise = (title: string, extra = {}) => act(() => showToast({ title, ...extra }));

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

describe("Toaster (SPEC.md §9: 5000 ms, at most 20, top-right, swipe 50)", () => {
  it("shows a raised toast in the body's corner and closes it after 5000 ms", () => {
    render(<Toaster />);
    raise("コピーしました", { color: "success" });
    const [t] = toasts();
    expect(t.parentElement!.parentElement).toBe(document.body);
    expect(t.tagName).toBe("LI");
    expect(t.querySelector(".toast__body")!.getAttribute("role")).toBe("status");
    expect(t.className).toContain("toast--success");
    act(() => vi.advanceTimersByTime(TOAST_DURATION_MS - 1));
    expect(toasts()).toHaveLength(1);
    act(() => vi.advanceTimersByTime(1));
    expect(toasts()).toHaveLength(0);
  });

  it("keeps at most 20, dropping the oldest, and a new toast does not restart the others' time", () => {
    render(<Toaster />);
    raise("1件目");
    act(() => vi.advanceTimersByTime(TOAST_DURATION_MS - 100));
    for (let i = 2; i <= TOAST_LIMIT + 1; i++) raise(`${i}件目`);
    expect(toasts()).toHaveLength(TOAST_LIMIT);
    expect(toasts()[0].textContent).toContain("2件目");
    act(() => vi.advanceTimersByTime(100));
    expect(toasts()).toHaveLength(TOAST_LIMIT);
    act(() => vi.advanceTimersByTime(TOAST_DURATION_MS));
    expect(toasts()).toHaveLength(0);
  });

  it("waits while the pointer is on it; 閉じる and Escape close it", () => {
    render(<Toaster />);
    raise("一つ目");
    raise("二つ目");
    fireEvent.pointerEnter(toasts()[0]);
    act(() => vi.advanceTimersByTime(TOAST_DURATION_MS * 2));
    expect(toasts().map((t) => t.querySelector(".toast__title")!.textContent)).toEqual(["一つ目"]);
    fireEvent.click(screen.getByRole("button", { name: TOAST_CLOSE_LABEL }));
    expect(toasts()).toHaveLength(0);
    raise("三つ目");
    fireEvent.keyDown(toasts()[0], { key: "Escape" });
    expect(toasts()).toHaveLength(0);
  });

  it("closes on a swipe to the right of 50 px or more; a shorter one snaps back", () => {
    render(<Toaster />);
    raise("スワイプ");
    const t = toasts()[0];
    fireEvent.pointerDown(t, { clientX: 100 });
    fireEvent.pointerMove(t, { clientX: 100 + SWIPE_THRESHOLD_PX - 1 });
    fireEvent.pointerUp(t, { clientX: 100 + SWIPE_THRESHOLD_PX - 1 });
    expect(toasts()).toHaveLength(1);
    expect(toasts()[0].style.transform).toBe("");
    fireEvent.pointerDown(t, { clientX: 100 });
    fireEvent.pointerMove(t, { clientX: 100 + SWIPE_THRESHOLD_PX });
    expect(toasts()[0].style.transform).toBe(`translateX(${SWIPE_THRESHOLD_PX}px)`);
    fireEvent.pointerUp(t, { clientX: 100 + SWIPE_THRESHOLD_PX });
    expect(toasts()).toHaveLength(0);
  });

  it("ignores a toast with neither title nor text", () => {
    render(<Toaster />);
    raise("");
    expect(toasts()).toHaveLength(0);
  });
});
