import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { showSnackbar } from "../lib/snackbar-events";
import exampleProps from "./example-props.json";
import Snackbar, {
  CLOSE_LABEL,
  DEFAULT_DURATION_MS,
  HIDE_DELAY_MS,
  SHOW_DELAY_MS,
  type SnackbarProps,
} from "./Snackbar";

// Written by the Go side's test too, so the server's props struct and this island agree.
const props = exampleProps as SnackbarProps;

const notice = () => document.querySelector<HTMLElement>(".snackbar");
// One transition per call: React applies the state change (and arms the next timer) when act ends.
const advance = (ms: number) => act(() => vi.advanceTimersByTime(ms));

function expectShown(shown: boolean) {
  const el = notice();
  expect(el).not.toBeNull();
  expect(el!.dataset.state).toBe(shown ? "shown" : "hidden");
  expect(el!.classList.contains("snackbar--hidden")).toBe(!shown);
  expect(el!.hasAttribute("inert")).toBe(!shown);
}

beforeEach(() => {
  vi.useFakeTimers();
});

describe("Snackbar", () => {
  it("renders the example props with the fallback's classes", () => {
    render(<Snackbar {...props} />);
    const el = notice()!;
    expect(el.classList.contains("snackbar--success")).toBe(true);
    expect(el.querySelector(".snackbar__title")!.textContent).toBe("ログインしました");
    expect(el.querySelector(".snackbar__text")!.textContent).toBe("ようこそ、デモ株式会社さん");
    const svg = el.querySelector("svg.icon")!;
    expect(svg.getAttribute("aria-hidden")).toBe("true");
    expect(svg.querySelector("use")!.getAttribute("href")).toBe("/static/icons.svg#check_circle");
    const button = screen.getByRole("button", { name: CLOSE_LABEL });
    expect(button.getAttribute("type")).toBe("button");
    expect(button.classList.contains("snackbar__close")).toBe(true);
  });

  it("shows after 100 ms, auto-closes after duration, clears 400 ms later", () => {
    expect(SHOW_DELAY_MS).toBe(100);
    expect(HIDE_DELAY_MS).toBe(400);
    render(<Snackbar {...props} duration={3000} />);
    const region = screen.getByRole("status");
    expectShown(false); // 0 ms

    advance(SHOW_DELAY_MS - 1);
    expectShown(false);
    advance(1);
    expectShown(true); // 100 ms

    advance(3000 - 1);
    expectShown(true); // just before the duration
    advance(1);
    expectShown(false); // 100 + duration

    advance(HIDE_DELAY_MS - 1);
    expectShown(false);
    advance(1);
    expect(notice()).toBeNull(); // cleared
    // The live region stays for the next notice.
    expect(screen.getByRole("status")).toBe(region);
    expect(region.textContent).toBe("");
  });

  it("keeps role=status on a region present from mount", () => {
    render(<Snackbar {...props} />);
    const region = screen.getByRole("status");
    expect(region.contains(notice())).toBe(true);
    expect(notice()!.getAttribute("role")).toBeNull(); // no nested live region
  });

  it("closes early with the 閉じる button", () => {
    render(<Snackbar {...props} />);
    advance(SHOW_DELAY_MS + 1000);
    expectShown(true);
    fireEvent.click(screen.getByRole("button", { name: "閉じる" }));
    expectShown(false);
    advance(HIDE_DELAY_MS - 1);
    expectShown(false);
    advance(1);
    expect(notice()).toBeNull();
  });

  it.each([
    ["success", "check_circle"],
    ["error", "warning"],
    ["info", "info"],
  ] as const)("shows the %s icon %s", (color, icon) => {
    render(<Snackbar {...props} color={color} />);
    expect(notice()!.classList.contains(`snackbar--${color}`)).toBe(true);
    expect(notice()!.querySelector("use")!.getAttribute("href")).toBe(`/static/icons.svg#${icon}`);
  });

  it("treats an unknown colour as info", () => {
    render(<Snackbar {...props} color={"purple" as never} />);
    expect(notice()!.classList.contains("snackbar--info")).toBe(true);
    expect(notice()!.querySelector("use")!.getAttribute("href")).toBe("/static/icons.svg#info");
  });

  it.each([undefined, 0, -1, Number.NaN])("uses %s ms as the default 5000 ms", (duration) => {
    expect(DEFAULT_DURATION_MS).toBe(5000);
    const { iconHref, color, title, text } = props;
    render(<Snackbar {...{ iconHref, color, title, text }} {...(duration === undefined ? {} : { duration })} />);
    advance(SHOW_DELAY_MS);
    advance(5000 - 1);
    expectShown(true);
    advance(1);
    expectShown(false);
  });

  it("waits while the pointer is on the notice, then restarts the duration", () => {
    render(<Snackbar {...props} duration={1000} />);
    advance(SHOW_DELAY_MS);
    fireEvent.mouseEnter(notice()!);
    advance(5000);
    expectShown(true);
    fireEvent.mouseLeave(notice()!);
    advance(999);
    expectShown(true);
    advance(1);
    expectShown(false);
  });

  it("a new notice hides the current one, then shows it after 100 ms", () => {
    render(<Snackbar {...props} />);
    advance(SHOW_DELAY_MS);
    expectShown(true);
    act(() => showSnackbar({ color: "error", title: "保存できませんでした", text: "", duration: 2000 }));
    expectShown(false);
    expect(notice()!.classList.contains("snackbar--error")).toBe(true);
    expect(notice()!.querySelector(".snackbar__title")!.textContent).toBe("保存できませんでした");
    expect(notice()!.querySelector(".snackbar__text")).toBeNull();
    advance(SHOW_DELAY_MS);
    expectShown(true);
    advance(2000);
    expectShown(false);
  });

  it("shows a new notice after the previous one was cleared", () => {
    render(<Snackbar {...props} />);
    fireEvent.click(screen.getByRole("button", { name: "閉じる" }));
    advance(HIDE_DELAY_MS);
    expect(notice()).toBeNull();
    act(() => showSnackbar({ color: "info", title: "お知らせ", text: "" }));
    expectShown(false);
    advance(SHOW_DELAY_MS);
    expectShown(true);
  });

  it("starts empty on a page without a notice, and shows what an island raises (SPEC.md §2)", () => {
    render(<Snackbar color="info" title="" text="" iconHref="/static/icons.svg" />);
    expect(notice()).toBeNull();
    expect(document.querySelector(".snackbar-live")!.getAttribute("role")).toBe("status");
    advance(SHOW_DELAY_MS + DEFAULT_DURATION_MS);
    expect(notice()).toBeNull();
    act(() => showSnackbar({ color: "error", title: "アップロードできませんでした", text: "" }));
    advance(SHOW_DELAY_MS);
    expectShown(true);
    expect(notice()!.classList.contains("snackbar--error")).toBe(true);
    expect(screen.getByText("アップロードできませんでした")).toBeTruthy();
  });
});
