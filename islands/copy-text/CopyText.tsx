// The copy-text island: a コピー button beside a text a person hands on (the receiving
// address of /receipt-invoices/address). Without JavaScript there is no button and the
// text stays selectable; with it, the icon button (named コピー, described by its tooltip)
// copies the text and a toast says so, or says to select it when the browser refuses.
// Props are views/receivedinvoices CopyTextProps (example-props.json, written by a Go test).
import { Icon } from "../lib/Icon";
import { showToast } from "../lib/toast";
import { Tooltip } from "../lib/Tooltip";

export interface CopyTextProps {
  text: string;
  /** What is copied, for the tooltip and the toast, e.g. "受付メールアドレス". */
  label: string;
  iconHref: string;
}

export const COPY_LABEL = "コピー";
export const copied = (label: string) => `${label}をコピーしました`;
export const COPY_FAILED = "コピーできませんでした";
export const COPY_FAILED_TEXT = "お手数ですが、文字を選択してコピーしてください。";

export default function CopyText({ text, label, iconHref }: CopyTextProps) {
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      showToast({ color: "success", title: copied(label), text });
    } catch {
      showToast({ color: "error", title: COPY_FAILED, text: COPY_FAILED_TEXT });
    }
  }
  return (
    <Tooltip content={`${label}をコピー`}>
      <button type="button" className="btn btn--sm btn--secondary btn--icon" onClick={() => void copy()}>
        <Icon href={iconHref} name="content_copy" />
        <span className="visually-hidden">{COPY_LABEL}</span>
      </button>
    </Tooltip>
  );
}
