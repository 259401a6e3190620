import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Toaster } from "../lib/toast";
import CopyText, { copied, COPY_FAILED, COPY_LABEL, type CopyTextProps } from "./CopyText";
import exampleProps from "./example-props.json";

// Written by the Go side's test too, so the server's props struct and this island agree.
const props = exampleProps as CopyTextProps;

afterEach(() => vi.unstubAllGlobals());

function renderWithToaster() {
  render(
    <>
      <Toaster />
      <CopyText {...props} />
    </>,
  );
  return screen.getByRole("button", { name: COPY_LABEL });
}

describe("CopyText", () => {
  it("copies the text and says so in a toast; the button is described by its tooltip", async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText } });
    const button = renderWithToaster();
    const tip = document.getElementById(button.getAttribute("aria-describedby")!)!;
    expect(tip.textContent).toBe("受付メールアドレスをコピー");
    await act(async () => fireEvent.click(button));
    expect(writeText).toHaveBeenCalledWith(props.text);
    expect(screen.getByText(copied(props.label))).toBeTruthy();
  });

  it("says to select the text when the browser refuses", async () => {
    vi.stubGlobal("navigator", { ...navigator, clipboard: { writeText: vi.fn().mockRejectedValue(new Error("denied")) } });
    const button = renderWithToaster();
    await act(async () => fireEvent.click(button));
    expect(screen.getByText(COPY_FAILED)).toBeTruthy();
  });
});
