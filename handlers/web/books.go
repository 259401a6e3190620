package web

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/store"
)

// BooksList is the format of the accountant's list of payments, BooksRequests that of
// the card-payment requests the buyer was paid for (the other formats are
// pay.BookFormat's journals): the history's export page and the API's share them.
const (
	BooksList     = "list"
	BooksRequests = "requests"
)

// SendRequestBooks answers the requests paid in a period as the accountant's list.
func SendRequestBooks(c *echo.Context, rows []store.RequestBookRow, from, to time.Time) error {
	body, err := requestList(rows)
	if err != nil {
		return err
	}
	hdr := c.Response().Header()
	hdr.Set("Content-Disposition", ContentDisposition("カード払い依頼_入金一覧_"+from.Format("20060102")+"-"+to.Format("20060102")+".csv"))
	hdr.Set("Cache-Control", "private, no-store")
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", body)
}

// requestListHeader: which request, whose and for which invoice, the amounts (the fee
// and who bore it, what was transferred) and the day it was transferred.
var requestListHeader = []string{"依頼番号", "お客さま", "お客さまの法人番号", "請求書番号", "請求日", "支払期限", "依頼金額",
	"手数料（税込）", "手数料の消費税（10%）", "手数料の負担", "入金額", "振込完了日"}

func requestList(rows []store.RequestBookRow) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("\ufeff")
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	if err := w.Write(requestListHeader); err != nil {
		return nil, err
	}
	for _, r := range rows {
		invoiceDate := ""
		if r.InvoiceDate != nil {
			invoiceDate = pay.ISODate(r.InvoiceDate.In(pay.Tokyo()))
		}
		if err := w.Write([]string{pay.InvoiceNumber(r.ID), pay.SpreadsheetCell(r.CustomerName), r.CustomerCorporateNumber,
			pay.SpreadsheetCell(r.InvoiceNumber), invoiceDate, pay.ISODate(r.Deadline.In(pay.Tokyo())),
			strconv.FormatInt(r.Amount, 10), strconv.FormatInt(r.Fee, 10), strconv.FormatInt(pay.FeeTax(r.Fee), 10),
			r.FeeBearer.Label(), strconv.FormatInt(r.Transfer(), 10), pay.ISODate(r.TransferredAt.In(pay.Tokyo()))}); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// SendBooks answers the transferred payments of a period (rows) as a download: the
// accountant's list, or journal entries in format with the accounts a.
func SendBooks(c *echo.Context, rows []store.BookRow, format string, a pay.BookAccounts, from, to time.Time) error {
	period := from.Format("20060102") + "-" + to.Format("20060102")
	name, ct := "支払一覧_"+period+".csv", "text/csv; charset=utf-8"
	var body []byte
	var err error
	if format == BooksList {
		body, err = paymentList(rows)
	} else {
		f := pay.BookFormat(format)
		var entries []pay.JournalEntry
		for _, r := range rows {
			entries = append(entries, pay.JournalOf(r.Payment(), a)...)
		}
		body, err = f.Journal(entries)
		name = "仕訳_" + format + "_" + period + ".csv"
		if f.ShiftJIS() {
			ct = "text/csv; charset=Shift_JIS"
		}
	}
	if err != nil {
		return err
	}
	hdr := c.Response().Header()
	hdr.Set("Content-Disposition", ContentDisposition(name))
	hdr.Set("Cache-Control", "private, no-store")
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
			pay.SpreadsheetCell(r.InvoiceNumber), date(r.InvoiceDate), date(r.DueDate), date(&submitted), date(r.CapturedAt),
			date(&transferred), strconv.FormatInt(r.Amount, 10), strconv.FormatInt(r.Fee, 10),
			strconv.FormatInt(pay.FeeTax(r.Fee), 10), strconv.FormatInt(r.Amount+r.Fee, 10), card}); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}
