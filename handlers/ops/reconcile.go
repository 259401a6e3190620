package ops

import (
	"fmt"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/invoices"
	"cardpay/pay"
	pages "cardpay/views/ops"
)

// ReconcilePage checks a range of transfer dates against the PSP and the files.
var ReconcilePage = web.Page{Path: "/ops/reconciliation", Title: "照合", Access: web.Operator}

// maxReconcileDays keeps one check to a quarter: each payment asks the PSP.
const maxReconcileDays = 92

// ShowReconcilePage shows the form, and the result when a range is given.
func (h *Handler) ShowReconcilePage(c *echo.Context) error {
	v := pages.ReconcileView{From: c.QueryParam("from"), To: c.QueryParam("to")}
	daily, at, ok, err := h.Transfers.LastDailyReconciliation(c.Request().Context())
	if err != nil {
		return err
	}
	if ok {
		v.Daily = fmt.Sprintf("%s に振込日 %s〜%s を照合しました：お支払い%d件・振込ファイル%d件、不一致%d件。", dateTime(at),
			pay.JapaneseDate(daily.From), pay.JapaneseDate(daily.To), daily.Payments, daily.Files, len(daily.Mismatches))
		if daily.Totals.Agree() && len(daily.Mismatches) == 0 {
			v.Daily += "カード会社・振込ファイル・会計記録の三者は一致しています。"
		}
		v.DailyRows = mismatchRows(daily.Mismatches)
	}
	if v.From == "" && v.To == "" {
		today := h.transferDay("")
		v.From, v.To = pay.ISODate(today.AddDate(0, 0, -7)), pay.ISODate(today)
		return show(h, c, ReconcilePage.Title, nil, v, pages.ReconcilePage)
	}
	var errs pay.FieldErrors
	from, okFrom := pay.ParseDate(v.From)
	to, okTo := pay.ParseDate(v.To)
	switch {
	case !okFrom:
		errs.Add("from", "開始日を選んでください")
	case !okTo:
		errs.Add("to", "終了日を選んでください")
	case to.Before(from):
		errs.Add("to", "終了日は開始日以降にしてください")
	case to.Sub(from).Hours()/24 > maxReconcileDays:
		errs.Add("to", fmt.Sprintf("一度に照合できるのは%d日までです", maxReconcileDays))
	}
	if len(errs) > 0 {
		return show(h, c, ReconcilePage.Title, errs, v, pages.ReconcilePage)
	}
	r, err := h.Transfers.Reconcile(c.Request().Context(), from, to)
	if err != nil {
		return err
	}
	v.Ran, v.Payments, v.Files = true, r.Payments, r.Files
	v.Rows = mismatchRows(r.Mismatches)
	v.Totals = totalRows(r.Totals)
	return show(h, c, ReconcilePage.Title, nil, v, pages.ReconcilePage)
}

func mismatchRows(list []invoices.Mismatch) []pages.MismatchRow {
	var rows []pages.MismatchRow
	for _, m := range list {
		row := pages.MismatchRow{Kind: m.Kind, Detail: m.Detail}
		if m.PaymentID != 0 {
			row.Payment, row.PaymentHref = pay.InvoiceNumber(m.PaymentID), fmt.Sprintf("%s/%d", QueuePage.Path, m.PaymentID)
		}
		if m.FileID != 0 {
			row.File = fmt.Sprintf("#%d", m.FileID)
		}
		rows = append(rows, row)
	}
	return rows
}

// totalRows lines up the three-way totals: the PSP's and the files' figures beside the
// ledger's.
func totalRows(t invoices.ThreeWay) []pages.TotalRow {
	row := func(what string, outside, ledger int64) pages.TotalRow {
		return pages.TotalRow{What: what, Outside: pay.Yen(outside), Ledger: pay.Yen(ledger), Agree: outside == ledger}
	}
	return []pages.TotalRow{
		row("カードの売上（カード会社）と売上確定の仕訳", t.PSPCaptured, t.LedgerCaptured),
		row("カードへの返金（カード会社）と返金の仕訳", t.PSPRefunded, t.LedgerRefunded),
		row("作成した振込ファイルの合計と振込に回した仕訳", t.FilesMade, t.LedgerFiled),
		row("銀行へ送信した振込ファイルの合計と、その仕訳", t.FilesSent, t.LedgerFiledSent),
		{What: "銀行の結果（会計記録）", Outside: "―", Ledger: "振込完了 " + pay.Yen(t.LedgerDone) + "・振込不能 " + pay.Yen(t.LedgerFailed),
			Agree: t.LedgerDone+t.LedgerFailed <= t.LedgerFiledSent},
	}
}
