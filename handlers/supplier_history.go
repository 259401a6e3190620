package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// historyPageSize is how many payments one page of a supplier's history shows.
const historyPageSize = 20

// invoiceHref is where an invoice of a supplier's history is shown: payments and
// card-payment requests received from the supplier have routes of their own (SPEC.md §2).
func invoiceHref(supplierID string, inv store.Invoice) string {
	kind := "payment-history"
	if inv.InvoiceType == pay.InvoiceRequestBuyer {
		kind = "collection-history"
	}
	return "/suppliers/" + supplierID + "/" + kind + "/" + strconv.FormatInt(inv.ID, 10)
}

// examinationBadge gives an examination status its tone.
func examinationBadge(s pay.ExaminationStatus) views.StatusBadge {
	tone := "attention"
	switch s {
	case pay.TransferCompleted:
		tone = "success"
	case pay.Cancel, pay.Expired:
		tone = "neutral"
	}
	return views.StatusBadge{Label: s.Label(), Tone: tone}
}

// showSupplierHistoryPage lists what the buyer paid the supplier, newest first.
func (a *App) showSupplierHistoryPage(c *echo.Context) error {
	s, err := a.supplierFromPath(c)
	if err != nil {
		return err
	}
	page := pageFromQuery(c)
	list, total, err := a.Store.SupplierInvoices(c.Request().Context(), s.BuyerID, s.ID, page-1, historyPageSize)
	if err != nil {
		return err
	}
	id := strconv.FormatInt(s.ID, 10)
	pages := pay.PageCount(total, historyPageSize)
	if page > pages {
		return c.Redirect(http.StatusSeeOther, "/suppliers/"+id+"/payment-history")
	}
	b, err := a.base(c, "支払履歴："+s.Name)
	if err != nil {
		return err
	}
	v := views.SupplierHistoryView{Base: b, SupplierID: id, SupplierName: s.Name,
		Pages: views.Pagination{Current: page, Total: pages, Items: pay.PageItems(page, pages), Href: func(p int) string {
			return "/suppliers/" + id + "/payment-history?page=" + strconv.Itoa(p)
		}}}
	for _, inv := range list {
		v.Items = append(v.Items, views.HistoryItem{
			Href: invoiceHref(id, inv), Number: pay.InvoiceNumber(inv.ID), TypeLabel: inv.InvoiceType.Label(),
			Amount: pay.Yen(inv.Amount), Date: pay.JapaneseDate(inv.CreatedAt), Status: examinationBadge(inv.ExaminationStatus),
		})
	}
	return render(c, http.StatusOK, views.SupplierHistoryPage(v))
}

// showSupplierPaymentPage is one payment to the supplier.
func (a *App) showSupplierPaymentPage(c *echo.Context) error {
	return a.showSupplierInvoice(c, pay.InvoicePayment)
}

// showSupplierCollectionPage is one card-payment request received from the supplier.
func (a *App) showSupplierCollectionPage(c *echo.Context) error {
	return a.showSupplierInvoice(c, pay.InvoiceRequestBuyer)
}

func (a *App) showSupplierInvoice(c *echo.Context, t pay.InvoiceType) error {
	s, err := a.supplierFromPath(c)
	if err != nil {
		return err
	}
	invID, err := idParam(c, "paymentid")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	inv, err := a.Store.SupplierInvoice(ctx, s.BuyerID, s.ID, invID, t)
	if err != nil {
		return err
	}
	number := pay.InvoiceNumber(inv.ID)
	b, err := a.base(c, number+"："+s.Name)
	if err != nil {
		return err
	}
	rows := []views.SummaryRow{
		{Label: "請求書番号", Value: number},
		{Label: "種類", Value: inv.InvoiceType.Label()},
		{Label: "取引先", Value: s.Name},
		{Label: "状態", Value: inv.ExaminationStatus.Label()},
		{Label: "請求金額", Value: pay.Yen(inv.Amount)},
		{Label: "手数料", Value: pay.Yen(inv.Fee)},
		{Label: "カード決済額", Value: pay.Yen(inv.Amount + inv.Fee)},
	}
	if inv.TransferDate != nil {
		rows = append(rows, views.SummaryRow{Label: "振込日", Value: pay.JapaneseDate(*inv.TransferDate)})
	}
	if inv.AccountID != nil {
		acct, err := a.Store.SupplierAccount(ctx, s.BuyerID, s.ID, *inv.AccountID)
		if err != nil {
			return err
		}
		rows = append(rows, views.SummaryRow{Label: "振込先口座", Value: acct.BankName + "　" + acct.BranchName + "　" + acct.AccountType.Label() + "　" + acct.AccountNumber})
	}
	rows = append(rows, views.SummaryRow{Label: "申請日", Value: pay.JapaneseDate(inv.CreatedAt)})
	return render(c, http.StatusOK, views.SupplierPaymentPage(views.SupplierPaymentView{
		Base: b, SupplierID: strconv.FormatInt(s.ID, 10), SupplierName: s.Name, Number: number,
		Status: examinationBadge(inv.ExaminationStatus), Rows: rows}))
}
