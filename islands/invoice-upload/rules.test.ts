import { describe, expect, it } from "vitest";
import { checkFile, fileTypeFromName, formatSize, MAX_INVOICE_FILE_BYTES, MESSAGES, progressStep } from "./rules";

describe("fileTypeFromName (SPEC.md §5, pay.FileTypeFromName)", () => {
  it.each([
    ["a.jpg", "image/jpeg"],
    ["A.JPEG", "image/jpeg"],
    ["scan.png", "image/png"],
    ["請求書.PDF", "application/pdf"],
    ["C:\\Users\\taro\\請求書.pdf", "application/pdf"],
    ["dir.pdf/readme", ""],
    ["invoice.pdf.exe", ""],
    ["invoice", ""],
    ["invoice.gif", ""],
    [".pdf", "application/pdf"],
  ])("%s → %s", (name, want) => expect(fileTypeFromName(name)).toBe(want));
});

describe("checkFile", () => {
  it("refuses as the server does, in its order", () => {
    expect(checkFile({ name: "a.pdf", size: 0 })).toBe(MESSAGES.empty);
    expect(checkFile({ name: "a.gif", size: 0 })).toBe(MESSAGES.empty);
    expect(checkFile({ name: "a.pdf", size: MAX_INVOICE_FILE_BYTES + 1 })).toBe(MESSAGES.tooLarge);
    expect(checkFile({ name: "a.docx", size: 10 })).toBe(MESSAGES.wrongType);
    expect(checkFile({ name: "a.pdf", size: MAX_INVOICE_FILE_BYTES })).toBe("");
  });
});

describe("progressStep", () => {
  it("announces each quarter once", () => {
    let last = 0;
    const heard: number[] = [];
    for (const p of [3, 24, 25, 26, 49, 77, 80, 99, 100, 100]) {
      const s = progressStep(p, last);
      if (s > last) heard.push(s);
      last = s;
    }
    expect(heard).toEqual([25, 75, 100]);
    expect(progressStep(150, 0)).toBe(100);
  });
});

it("formats sizes", () => {
  expect(formatSize(512)).toBe("512 B");
  expect(formatSize(1536)).toBe("1.5 KB");
  expect(formatSize(3.2 * 1024 * 1024)).toBe("3.2 MB");
});
