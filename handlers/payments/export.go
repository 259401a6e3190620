package payments

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/payments"
)

// ExportPage is 会計ソフト用データのダウンロード (issue 30): the payments whose supplier
// was paid in a period, as a list for the accountant or as journal entries in the import
// format of freee, マネーフォワード クラウド会計 or 弥生会計, with the buyer's own accounts.
var ExportPage = web.Page{Path: historyListPath + "/export", Title: "会計ソフト用データのダウンロード", Access: web.SignedIn}

// exportList is the form's choice of the accountant's list rather than journal entries.
const exportList = "list"

// maxExportDays bounds one file's period: a fiscal year and a little.
const maxExportDays = 400

// ShowExportPage is the form: the last month, the formats, the saved accounts.
func (h *Handler) ShowExportPage(c *echo.Context) error {
	a, err := h.Store.BookAccounts(c.Request().Context(), web.CurrentUser(c).BuyerID)
	if err != nil {
		return err
	}
	now := h.Now().In(pay.Tokyo())
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, pay.Tokyo())
	v := exportView(pay.ISODate(first.AddDate(0, -1, 0)), pay.ISODate(first.AddDate(0, 0, -1)), exportList, a)
	return web.Show(h.App, c, ExportPage.Title, nil, v, pages.ExportPage)
}

func exportView(from, to, format string, a pay.BookAccounts) pages.ExportView {
	v := pages.ExportView{Action: ExportPage.Path, From: from, To: to, Format: format, Accounts: a}
	v.Formats = append(v.Formats, views.FieldOption{Value: exportList, Label: "支払一覧（CSV）", Hint: "経理のご担当者・税理士の方への一覧。Excel で開けます（UTF-8）"})
	for _, f := range pay.BookFormats {
		hint := "仕訳データ（UTF-8）"
		if f.ShiftJIS() {
			hint = "仕訳データ（Shift_JIS）"
		}
		v.Formats = append(v.Formats, views.FieldOption{Value: string(f), Label: f.Label(), Hint: hint})
	}
	return v
}

// Export checks the form, keeps the accounts for the next time and sends the file; a
// problem is shown at its field (422) and nothing is sent or kept.
func (h *Handler) Export(c *echo.Context) error {
	ctx := c.Request().Context()
	u := web.CurrentUser(c)
	from, to, format := web.Clip(c.FormValue("from"), 20), web.Clip(c.FormValue("to"), 20), web.Clip(c.FormValue("format"), 20)
	a, errs := pay.BookAccounts{Payable: web.Clip(c.FormValue("payable"), 100), Fee: web.Clip(c.FormValue("fee"), 100),
		Card: web.Clip(c.FormValue("card"), 100), CardDetail: web.Clip(c.FormValue("card_detail"), 100)}.Check()
	start, okFrom := pay.ParseDate(from)
	end, okTo := pay.ParseDate(to)
	switch {
	case !okFrom:
		errs.Add("from", "日付を正しく入力してください（例：2026-11-01）")
	case !okTo:
		errs.Add("to", "日付を正しく入力してください（例：2026-11-30）")
	case end.Before(start):
		errs.Add("to", "終了日は開始日以降の日付を入力してください")
	case end.Sub(start) > maxExportDays*24*time.Hour:
		errs.Add("to", "期間は"+strconv.Itoa(maxExportDays)+"日以内にしてください")
	}
	bf := pay.BookFormat(format)
	if format != exportList && !bf.Valid() {
		errs.Add("format", "形式を選択してください")
	}
	if len(errs) > 0 {
		return web.Show(h.App, c, ExportPage.Title, errs, exportView(from, to, format, a), pages.ExportPage)
	}
	if err := h.Store.SaveBookAccounts(ctx, u.BuyerID, a, h.Now()); err != nil {
		return err
	}
	rows, err := h.Store.BookRows(ctx, u.BuyerID, start, end)
	if err != nil {
		return err
	}
	period := start.Format("20060102") + "-" + end.Format("20060102")
	var body []byte
	name := "支払一覧_" + period + ".csv"
	if format == exportList {
		if body, err = paymentList(rows); err != nil {
			return err
		}
	} else {
		var entries []pay.JournalEntry
		for _, r := range rows {
			entries = append(entries, pay.JournalOf(r.Payment(), a)...)
		}
		if body, err = bf.Journal(entries); err != nil {
			return err
		}
		name = "仕訳_" + format + "_" + period + ".csv"
	}
	hdr := c.Response().Header()
	hdr.Set("Content-Disposition", web.ContentDisposition(name))
	hdr.Set("Cache-Control", "private, no-store")
	ct := "text/csv; charset=utf-8"
	if format != exportList && bf.ShiftJIS() {
		ct = "text/csv; charset=Shift_JIS"
	}
	return c.Blob(http.StatusOK, ct, body)
}

// paymentListHeader are the accountant's columns: which payment, to whom for which
// invoice, the dates that matter to the books, and the amounts with the fee's tax.
var paymentListHeader = []string{"支払番号", "種類", "取引先", "登録番号", "請求書番号", "請求日", "支払期日", "申請日",
	"カード決済日", "振込完了日", "請求金額", "手数料（税込）", "手数料の消費税（10%）", "カード請求額", "カード"}

// paymentList is the list as CSV, UTF-8 with a BOM (spreadsheets then read the Japanese).
func paymentList(rows []store.BookRow) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("\ufeff")
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	if err := w.Write(paymentListHeader); err != nil {
		return nil, err
	}
	date := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return pay.ISODate(t.In(pay.Tokyo()))
	}
	for _, r := range rows {
		kind, card := "支払", ""
		if r.InvoiceType == pay.InvoiceRequestBuyer {
			kind = "依頼への支払"
		}
		if r.CardBrand != nil && r.CardLast4 != nil {
			card = r.CardBrand.Label() + " ****" + *r.CardLast4
		}
		submitted, transferred := r.SubmittedAt, r.TransferredAt
		if err := w.Write([]string{pay.InvoiceNumber(r.ID), kind, pay.SpreadsheetCell(r.Supplier), r.RegistrationNumber,
			pay.SpreadsheetCell(r.InvoiceNumber),
			date(r.InvoiceDate), date(r.DueDate), date(&submitted), date(r.CapturedAt), date(&transferred),
			strconv.FormatInt(r.Amount, 10), strconv.FormatInt(r.Fee, 10), strconv.FormatInt(pay.FeeTax(r.Fee), 10),
			strconv.FormatInt(r.Amount+r.Fee, 10), card}); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}
