package payments

import (
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/payments"
)

// ExportPage is 会計ソフト用データのダウンロード (issue 30): the payments whose supplier
// was paid in a period, as a list for the accountant or as journal entries in the import
// format of freee, マネーフォワード クラウド会計 or 弥生会計, with the buyer's own accounts.
var ExportPage = web.Page{Path: historyListPath + "/export", Title: "会計ソフト用データのダウンロード", Access: web.SignedIn}

// exportList is the form's choice of the accountant's list rather than journal entries.
const exportList = web.BooksList

// ShowExportPage is the form: the last month, the formats, the saved accounts.
func (h *Handler) ShowExportPage(c *echo.Context) error {
	a, err := h.Store.BookAccounts(c.Request().Context(), web.CurrentUser(c).BuyerID)
	if err != nil {
		return err
	}
	now := h.Now().In(pay.Tokyo())
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, pay.Tokyo())
	v := exportView(pay.ISODate(first.AddDate(0, -1, 0)), pay.ISODate(first.AddDate(0, 0, -1)), exportList, a,
		h.CollectionsEnabled(web.CurrentUser(c)))
	return web.Show(h.App, c, ExportPage.Title, nil, v, pages.ExportPage)
}

func exportView(from, to, format string, a pay.BookAccounts, requests bool) pages.ExportView {
	v := pages.ExportView{Action: ExportPage.Path, From: from, To: to, Format: format, Accounts: a}
	v.Formats = append(v.Formats, views.FieldOption{Value: exportList, Label: "支払一覧（CSV）", Hint: "経理のご担当者・税理士の方への一覧。Excel で開けます（UTF-8）"})
	if requests {
		v.Formats = append(v.Formats, views.FieldOption{Value: web.BooksRequests, Label: "カード払い依頼の入金一覧（CSV）",
			Hint: "お客さまからカードで支払われ、振込が完了した依頼の一覧（UTF-8）"})
	}
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
	start, end, perr := pay.CheckBooksPeriod(from, to)
	errs = append(errs, perr...)
	bf := pay.BookFormat(format)
	requests := h.CollectionsEnabled(u)
	if format != exportList && !bf.Valid() && (format != web.BooksRequests || !requests) {
		errs.Add("format", "形式を選択してください")
	}
	if len(errs) > 0 {
		return web.Show(h.App, c, ExportPage.Title, errs, exportView(from, to, format, a, requests), pages.ExportPage)
	}
	if err := h.Store.SaveBookAccounts(ctx, u.BuyerID, a, h.Now()); err != nil {
		return err
	}
	if format == web.BooksRequests {
		rows, err := h.Store.RequestBookRows(ctx, u.BuyerID, start, end)
		if err != nil {
			return err
		}
		return web.SendRequestBooks(c, rows, start, end)
	}
	rows, err := h.Store.BookRows(ctx, u.BuyerID, start, end)
	if err != nil {
		return err
	}
	return web.SendBooks(c, rows, format, a, start, end)
}
