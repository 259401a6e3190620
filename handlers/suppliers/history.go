package suppliers

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/suppliers"
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
func examinationBadge(s pay.ExaminationStatus) pages.StatusBadge {
	tone := "attention"
	switch s {
	case pay.TransferCompleted:
		tone = "success"
	case pay.Cancel, pay.Expired:
		tone = "neutral"
	}
	return pages.StatusBadge{Label: s.Label(), Tone: tone}
}

// The supplier's payment history, and one payment or card-payment request in it.
const (
	HistoryPattern           = "/suppliers/:id/payment-history"
	HistoryPaymentPattern    = "/suppliers/:id/payment-history/:paymentid"
	HistoryCollectionPattern = "/suppliers/:id/collection-history/:paymentid"
)

// HistoryPath is the payment history of supplier id.
func HistoryPath(id int64) string { return SupplierPath(id) + "/payment-history" }

// ShowHistoryPage lists what the buyer paid the supplier, newest first.
func (h *Handler) ShowHistoryPage(c *echo.Context) error {
	s, err := h.supplierFromPath(c)
	if err != nil {
		return err
	}
	page := web.PageParam(c)
	list, total, err := h.Store.SupplierInvoices(c.Request().Context(), s.BuyerID, s.ID, page-1, historyPageSize)
	if err != nil {
		return err
	}
	id := strconv.FormatInt(s.ID, 10)
	pageCount := pay.PageCount(total, historyPageSize)
	if page > pageCount {
		return c.Redirect(http.StatusSeeOther, HistoryPath(s.ID))
	}
	b, err := h.Base(c, "支払履歴："+s.Name)
	if err != nil {
		return err
	}
	v := pages.HistoryView{Base: b, SupplierID: id, SupplierName: s.Name,
		Pages: views.Pagination{Current: page, Total: pageCount, Items: pay.PageItems(page, pageCount), Href: func(p int) string {
			return HistoryPath(s.ID) + "?page=" + strconv.Itoa(p)
		}}}
	for _, inv := range list {
		v.Items = append(v.Items, pages.HistoryItem{
			Href: invoiceHref(id, inv), Number: pay.InvoiceNumber(inv.ID), TypeLabel: inv.InvoiceType.Label(),
			Amount: pay.Yen(inv.Amount), Date: pay.JapaneseDate(inv.CreatedAt), Status: examinationBadge(inv.ExaminationStatus),
		})
	}
	return web.Render(c, http.StatusOK, pages.HistoryPage(v))
}

// ShowHistoryPaymentPage is one payment to the supplier.
func (h *Handler) ShowHistoryPaymentPage(c *echo.Context) error {
	return h.showHistoryInvoice(c, pay.InvoicePayment)
}

// ShowHistoryCollectionPage is one card-payment request received from the supplier.
func (h *Handler) ShowHistoryCollectionPage(c *echo.Context) error {
	return h.showHistoryInvoice(c, pay.InvoiceRequestBuyer)
}

func (h *Handler) showHistoryInvoice(c *echo.Context, t pay.InvoiceType) error {
	s, err := h.supplierFromPath(c)
	if err != nil {
		return err
	}
	invID, err := web.IDParam(c, "paymentid")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	inv, err := h.Store.SupplierInvoice(ctx, s.BuyerID, s.ID, invID, t)
	if errors.Is(err, store.ErrNotFound) {
		// Opened under the other kind's path (a payment under collection-history, a
		// request under payment-history): its own path, with 303 like the lists' pages.
		other := pay.InvoiceRequestBuyer
		if t == pay.InvoiceRequestBuyer {
			other = pay.InvoicePayment
		}
		if o, oerr := h.Store.SupplierInvoice(ctx, s.BuyerID, s.ID, invID, other); oerr == nil {
			return c.Redirect(http.StatusSeeOther, invoiceHref(strconv.FormatInt(s.ID, 10), o))
		}
	}
	if err != nil {
		return err
	}
	number := pay.InvoiceNumber(inv.ID)
	b, err := h.Base(c, number+"："+s.Name)
	if err != nil {
		return err
	}
	rows := []pages.SummaryRow{
		{Label: "請求書番号", Value: number},
		{Label: "種類", Value: inv.InvoiceType.Label()},
		{Label: "取引先", Value: s.Name},
		{Label: "状態", Value: inv.ExaminationStatus.Label()},
		{Label: "請求金額", Value: pay.Yen(inv.Amount)},
		{Label: "手数料", Value: pay.Yen(inv.Fee)},
		{Label: "カード決済額", Value: pay.Yen(inv.Amount + inv.Fee)},
	}
	if inv.TransferDate != nil {
		rows = append(rows, pages.SummaryRow{Label: "振込日", Value: pay.JapaneseDate(*inv.TransferDate)})
	}
	if inv.AccountID != nil {
		acct, err := h.Store.SupplierAccount(ctx, s.BuyerID, s.ID, *inv.AccountID)
		if err != nil {
			return err
		}
		rows = append(rows, pages.SummaryRow{Label: "振込先口座", Value: acct.BankName + "　" + acct.BranchName + "　" + acct.AccountType.Label() + "　" + acct.AccountNumber})
	}
	rows = append(rows, pages.SummaryRow{Label: "申請日", Value: pay.JapaneseDate(inv.CreatedAt)})
	return web.Render(c, http.StatusOK, pages.PaymentPage(pages.PaymentView{
		Base: b, SupplierID: strconv.FormatInt(s.ID, 10), SupplierName: s.Name, Number: number,
		Status: examinationBadge(inv.ExaminationStatus), Rows: rows}))
}
