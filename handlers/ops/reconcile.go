package ops

import (
	"fmt"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
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
	if v.From == "" && v.To == "" {
		today := h.transferDay("")
		v.From, v.To = pay.ISODate(today.AddDate(0, 0, -7)), pay.ISODate(today)
		return web.ShowOps(h.App, c, ReconcilePage.Title, nil, v, pages.ReconcilePage)
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
		return web.ShowOps(h.App, c, ReconcilePage.Title, errs, v, pages.ReconcilePage)
	}
	r, err := h.Invoices.Reconcile(c.Request().Context(), from, to)
	if err != nil {
		return err
	}
	v.Ran, v.Payments, v.Files = true, r.Payments, r.Files
	for _, m := range r.Mismatches {
		row := pages.MismatchRow{Kind: m.Kind, Detail: m.Detail}
		if m.PaymentID != 0 {
			row.Payment, row.PaymentHref = pay.InvoiceNumber(m.PaymentID), fmt.Sprintf("%s/%d", QueuePage.Path, m.PaymentID)
		}
		if m.FileID != 0 {
			row.File = fmt.Sprintf("#%d", m.FileID)
		}
		v.Rows = append(v.Rows, row)
	}
	return web.ShowOps(h.App, c, ReconcilePage.Title, nil, v, pages.ReconcilePage)
}
