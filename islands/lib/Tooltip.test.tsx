import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { resetTooltipSkip, Tooltip, TOOLTIP_DELAY_MS, TOOLTIP_SKIP_DELAY_MS } from "./Tooltip";

const tip = (name: string) =>
  Array.from(document.querySelectorAll<HTMLElement>("[role=tooltip]")).find((t) => t.textContent === name)!;
const shown = (name: string) => !tip(name).hidden;

function twoButtons() {
  render(
    <>
      <Tooltip content="受付メールアドレスをコピー">
        <button type="button" aria-describedby="other-hint">
          コピー
        </button>
      </Tooltip>
      <Tooltip content="次の請求書">
        <button type="button">次へ</button>
      </Tooltip>
    </>,
  );
  return [screen.getByRole("button", { name: "コピー" }), screen.getByRole("button", { name: "次へ" })];
}

beforeEach(() => {
  vi.useFakeTimers();
  resetTooltipSkip();
});
afterEach(() => vi.useRealTimers());

describe("Tooltip (SPEC.md §9: delay 700 ms, skip delay 300 ms)", () => {
  it("describes its trigger from the start, keeping the trigger's own description", () => {
    const [copy] = twoButtons();
    const ids = copy.getAttribute("aria-describedby")!.split(" ");
    expect(ids[0]).toBe("other-hint");
    expect(document.getElementById(ids[1])!.textContent).toBe("受付メールアドレスをコピー");
    expect(shown("受付メールアドレスをコピー")).toBe(false);
  });

  it("shows after 700 ms of hovering, not before, and hides when the pointer leaves", () => {
    const [copy] = twoButtons();
    fireEvent.pointerEnter(copy.parentElement!, { pointerType: "mouse" });
    act(() => vi.advanceTimersByTime(TOOLTIP_DELAY_MS - 1));
    expect(shown("受付メールアドレスをコピー")).toBe(false);
    act(() => vi.advanceTimersByTime(1));
    expect(shown("受付メールアドレスをコピー")).toBe(true);
    fireEvent.pointerLeave(copy.parentElement!, { pointerType: "mouse" });
    expect(shown("受付メールアドレスをコピー")).toBe(false);
  });

  it("skips the delay when another tooltip closed less than 300 ms ago, and not after", () => {
    const [copy, next] = twoButtons();
    fireEvent.pointerEnter(copy.parentElement!, { pointerType: "mouse" });
    act(() => vi.advanceTimersByTime(TOOLTIP_DELAY_MS));
    fireEvent.pointerLeave(copy.parentElement!, { pointerType: "mouse" });
    act(() => vi.advanceTimersByTime(TOOLTIP_SKIP_DELAY_MS - 50));
    fireEvent.pointerEnter(next.parentElement!, { pointerType: "mouse" });
    expect(shown("次の請求書")).toBe(true);
    fireEvent.pointerLeave(next.parentElement!, { pointerType: "mouse" });
    act(() => vi.advanceTimersByTime(TOOLTIP_SKIP_DELAY_MS + 1));
    fireEvent.pointerEnter(copy.parentElement!, { pointerType: "mouse" });
    expect(shown("受付メールアドレスをコピー")).toBe(false);
  });

  it("Escape hides it without moving focus (WCAG 1.4.13); a touch never shows it", () => {
    const [copy] = twoButtons();
    fireEvent.pointerEnter(copy.parentElement!, { pointerType: "touch" });
    act(() => vi.advanceTimersByTime(TOOLTIP_DELAY_MS * 2));
    expect(shown("受付メールアドレスをコピー")).toBe(false);
    fireEvent.pointerEnter(copy.parentElement!, { pointerType: "mouse" });
    act(() => vi.advanceTimersByTime(TOOLTIP_DELAY_MS));
    copy.focus();
    fireEvent.keyDown(document, { key: "Escape" });
    expect(shown("受付メールアドレスをコピー")).toBe(false);
    expect(document.activeElement).toBe(copy);
  });
});
