package receivedinvoices

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/receivedinvoices"
)

// ShowInvoicePage is one received invoice: its state and what can be done with it (pay
// by card, mark, correct), its values, where it came from, the kept file and its
// history.
func (h *Handler) ShowInvoicePage(c *echo.Context) error {
	return h.renderInvoice(c, nil, nil)
}

// invoiceForm is a form sent back with its errors: the values typed.
type invoiceForm struct {
	mark    *markInput
	correct *pages.CorrectForm
}

type markInput struct{ choice, reason string }

func (h *Handler) renderInvoice(c *echo.Context, errs pay.FieldErrors, typed *invoiceForm) error {
	u := web.CurrentUser(c)
	ctx := c.Request().Context()
	r, err := h.fromPath(c)
	if err != nil {
		return err
	}
	events, err := h.Store.ReceivedInvoiceEvents(ctx, u.BuyerID, r.ID)
	if err != nil {
		return err
	}
	dups, err := h.Store.ReceivedInvoiceDuplicates(ctx, r)
	if err != nil {
		return err
	}
	paid, err := h.Store.ReceivedInvoicePaymentDuplicates(ctx, r)
	if err != nil {
		return err
	}
	title := "受取請求書"
	if r.KeyCounterparty != "" {
		title = r.KeyCounterparty + "からの請求書"
	}
	v := pages.InvoiceView{
		Heading: title, State: r.State.Label(), FileHref: filePath(r.ID),
		MarkAction: markPath(r.ID), CorrectAction: correctPath(r.ID), Disposition: string(r.Disposition),
		Keys: keyRows(r), Reading: readingNote(r.OCRStatus),
		Origin: []views.ConfirmRow{
			{Label: "受取日時", Value: pay.JapaneseDateTime(r.ReceivedAt)},
			{Label: "受取方法", Value: sourceLabel(r.Source)},
			{Label: "送信元", Value: orDash(r.Sender)},
		},
		File: []views.ConfirmRow{
			{Label: "ファイル名", Value: r.OriginalName},
			{Label: "大きさ", Value: strconv.FormatInt(r.Size, 10) + "バイト（" + strconv.Itoa(r.Pages) + "ページ）"},
			{Label: "SHA-256（ハッシュ値）", Value: r.SHA256},
			{Label: "保存期限", Value: pay.JapaneseDate(r.RetainUntil) + "まで（削除できません）"},
		},
	}
	if r.Source == store.ReceivedByMail {
		v.Origin = append(v.Origin, views.ConfirmRow{Label: "件名", Value: orDash(r.Subject)},
			views.ConfirmRow{Label: "送信元の認証", Value: "SPF " + verdictLabel(r.AuthSPF) + "／DKIM " + verdictLabel(r.AuthDKIM) + "／DMARC " + verdictLabel(r.AuthDMARC)})
		v.Caution = senderCaution(r)
	}
	if v.Match, v.MatchCaution, err = h.matchRows(ctx, r); err != nil {
		return err
	}
	if r.State == pay.ReceivedNew {
		v.PayHref = links.PaymentInvoiceInfoStep + "?file=" + strconv.FormatInt(r.FileID, 10)
	}
	if r.PaymentID != nil && r.PaymentStatus != nil {
		v.PaymentHref = paymentHref(*r.PaymentID, *r.PaymentStatus)
		v.PaymentLabel = "カード払いのお支払い（" + pay.InvoiceNumber(*r.PaymentID) + "・" + r.PaymentStatus.Label() + "）を見る"
	}
	for _, d := range dups {
		label := pay.JapaneseDate(d.ReceivedAt) + "に受け取った" + orDash(d.KeyCounterparty) + "の請求書（" + d.State.Label() + "）"
		v.Duplicates = append(v.Duplicates, pages.Duplicate{Href: invoicePath(d.ID), Label: label})
	}
	for _, p := range paid {
		label := pay.JapaneseDate(p.SubmittedAt) + "に申請したカード払い（" + pay.InvoiceNumber(p.ID) + "・" + p.SupplierName +
			"・" + pay.Yen(p.Amount) + "・" + p.Status.Label() + "）"
		v.Duplicates = append(v.Duplicates, pages.Duplicate{Href: paymentHref(p.ID, p.Status), Label: label})
	}
	v.CanMark = !r.ByPayment
	v.MarkOptions = []views.FieldOption{
		{Value: string(pay.DispositionPaidElsewhere), Label: "他の方法で支払済にする", Hint: "銀行振込や現金など、このサービス以外で支払ったとき"},
		{Value: string(pay.DispositionNotToPay), Label: "支払不要にする", Hint: "重複して届いた、宛先違い、内容に誤りがあるなど"},
	}
	if r.Disposition != pay.DispositionOpen {
		v.MarkOptions = append(v.MarkOptions, views.FieldOption{Value: string(pay.DispositionOpen), Label: "新着に戻す"})
	}
	v.Correct = correctForm(r)
	if typed != nil && typed.mark != nil {
		v.MarkChoice, v.Reason = typed.mark.choice, typed.mark.reason
	}
	if typed != nil && typed.correct != nil {
		saw := v.Correct.Saw
		v.Correct = *typed.correct
		v.Correct.Saw = saw
	}
	for _, e := range events {
		v.Events = append(v.Events, event(e))
	}
	return web.Show(h.App, c, title, errs, v, pages.InvoicePage)
}

// ServeFile sends the received invoice's file as it was received.
func (h *Handler) ServeFile(c *echo.Context) error {
	r, err := h.fromPath(c)
	if err != nil {
		return err
	}
	f, err := h.Store.InvoiceFile(c.Request().Context(), r.BuyerID, r.FileID)
	if err != nil {
		return err
	}
	return h.ServeInvoiceFile(c, f)
}

// paymentHref is the page of the payment made from the invoice, under its list.
func paymentHref(id int64, s pay.ExaminationStatus) string {
	list := links.PaymentsHistory
	if b, _ := pay.PaymentBucketOf(s, pay.InvoicePayment, false); b == pay.BucketReview {
		list = links.PaymentsReview
	} else if b == pay.BucketReserved {
		list = links.PaymentsReserved
	}
	return list + "/" + strconv.FormatInt(id, 10)
}

func filePath(id int64) string    { return invoicePath(id) + "/file" }
func markPath(id int64) string    { return invoicePath(id) + "/mark" }
func correctPath(id int64) string { return invoicePath(id) + "/correct" }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func readingNote(status string) string {
	switch status {
	case store.OCRPending, store.OCRRunning:
		return "請求書の内容を読み取っています。しばらくしてからページを再読み込みしてください。"
	case store.OCRDone:
		return "請求書から読み取った値です（訂正した項目は訂正後の値）。支払う前にファイルとご確認ください。"
	}
	return "請求書の内容を読み取れませんでした。ファイルをご確認のうえ、下の「内容の訂正」から入力してください。"
}

func dateOr(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return pay.JapaneseDate(*t)
}

func keyRows(r store.ReceivedInvoice) []views.ConfirmRow {
	amount := "—"
	if r.KeyAmount != nil {
		amount = pay.Yen(*r.KeyAmount)
	}
	return []views.ConfirmRow{
		{Label: "取引先", Value: orDash(r.KeyCounterparty)},
		{Label: "請求金額（税込）", Value: amount},
		{Label: "請求日", Value: dateOr(r.KeyDate)},
		{Label: "支払期日", Value: dateOr(r.KeyDueDate)},
		{Label: "登録番号", Value: orDash(r.KeyRegistrationNumber)},
		{Label: "請求書番号", Value: orDash(r.InvoiceNumber)},
	}
}

// correctForm is the correction form filled with the stored corrections (blank: the
// reading's value stands) and what the buyer saw.
func correctForm(r store.ReceivedInvoice) pages.CorrectForm {
	k := r.Keys()
	saw, _ := json.Marshal(k)
	f := pages.CorrectForm{Counterparty: k.Counterparty, RegistrationNumber: k.RegistrationNumber,
		InvoiceNumber: k.InvoiceNumber, Saw: string(saw)}
	if k.TransactionDate != nil {
		f.Date = k.TransactionDate.Format(time.DateOnly)
	}
	if k.DueDate != nil {
		f.DueDate = k.DueDate.Format(time.DateOnly)
	}
	if k.Amount != nil {
		f.Amount = strconv.FormatInt(*k.Amount, 10)
	}
	return f
}

var keyLabels = []struct{ key, label string }{
	{"transaction_date", "請求日"}, {"due_date", "支払期日"}, {"amount", "請求金額"},
	{"counterparty", "取引先"}, {"registration_number", "登録番号"}, {"invoice_number", "請求書番号"},
}

func event(e store.ReceivedInvoiceEvent) pages.Event {
	out := pages.Event{When: pay.JapaneseDateTime(e.CreatedAt), Who: orDash(e.Actor)}
	var before, after map[string]any
	_ = json.Unmarshal(e.Before, &before)
	_ = json.Unmarshal(e.After, &after)
	switch e.Kind {
	case "received":
		out.What = "受け取りました"
		if s, _ := after["source"].(string); s != "" {
			out.What = sourceLabel(s) + "で受け取りました"
		}
	case "marked":
		d, _ := after["disposition"].(string)
		out.What = "「" + pay.Disposition(d).Label() + "」にしました"
		if reason, _ := after["reason"].(string); reason != "" {
			out.What += "（理由：" + reason + "）"
		}
	case "corrected":
		out.What = "内容を訂正しました"
		for _, k := range keyLabels {
			b, a := shown(before[k.key]), shown(after[k.key])
			if b != a {
				out.Changes = append(out.Changes, pages.Change{Field: k.label, Before: b, After: a})
			}
		}
	}
	return out
}

// shown is a corrected value as the history writes it: 読取値 for none (the reading's
// value stood), a date as a date.
func shown(v any) string {
	switch x := v.(type) {
	case nil:
		return "（読取値）"
	case string:
		if x == "" {
			return "（読取値）"
		}
		if t, err := time.Parse(time.RFC3339, x); err == nil {
			return pay.JapaneseDate(t)
		}
		return x
	case float64:
		return pay.Yen(int64(x))
	}
	return "—"
}

// verdictLabel names a receiving server's verdict on the sender.
func verdictLabel(v string) string {
	switch v {
	case "pass":
		return "成功"
	case "fail":
		return "失敗"
	}
	return "未確認"
}

// senderCaution warns before paying an invoice whose mail came from a sender not seen
// before or failed a check: a changed bank account in such a mail is how invoice
// fraud works.
func senderCaution(r store.ReceivedInvoice) string {
	failed := r.AuthSPF == "fail" || r.AuthDKIM == "fail"
	switch {
	case failed && r.NewSender:
		return "初めての送信元からのメールで、送信元の認証にも失敗しています。取引先に電話などメール以外の方法で確認してから支払ってください。"
	case failed:
		return "送信元の認証に失敗したメールです。なりすましの可能性があります。振込先などを取引先に確認してから支払ってください。"
	case r.NewSender:
		return "初めての送信元からのメールです。取引先からの請求書か、振込先が以前と同じかを確認してから支払ってください。"
	}
	return ""
}

// matchRows is the reading matched with the buyer's suppliers, as the payment journey
// matches it: the supplier and account found, and a warning when the invoice names a
// registered supplier but an account the buyer has not paid it to (how a forged invoice
// redirects a payment). Nothing before the reading is done.
func (h *Handler) matchRows(ctx context.Context, r store.ReceivedInvoice) ([]views.ConfirmRow, string, error) {
	f, err := h.Store.InvoiceFile(ctx, r.BuyerID, r.FileID)
	if err != nil {
		return nil, "", err
	}
	m, ok, err := h.InvoiceFiles.FileMatch(ctx, r.BuyerID, f)
	if err != nil || !ok {
		return nil, "", err
	}
	rows := []views.ConfirmRow{{Label: "登録取引先", Value: "一致する登録取引先はありません（支払うときに新しい取引先として登録できます）"}}
	if m.Supplier != nil {
		rows[0].Value = m.Supplier.Name + "（" + m.SupplierReason + "）"
	}
	read := strings.TrimSpace(m.BankName + " " + m.BranchName)
	if m.Read.AccountNumber.Found {
		read = strings.TrimSpace(read + " " + m.Read.AccountNumber.Value)
	}
	caution := ""
	switch {
	case m.Account != nil:
		rows = append(rows, views.ConfirmRow{Label: "振込先口座", Value: m.Account.BankName + " " + m.Account.BranchName + " " +
			m.Account.AccountNumber + "（登録済みの口座）"})
	case read != "":
		rows = append(rows, views.ConfirmRow{Label: "振込先口座", Value: read + "（読み取り）"})
		if m.Supplier != nil && m.Read.AccountNumber.Found {
			caution = "請求書の振込先口座が、" + m.Supplier.Name + "の登録済みの口座と異なります。口座の変更を取引先に電話などメール以外の方法で確認してから支払ってください。"
		}
	}
	return rows, caution, nil
}
