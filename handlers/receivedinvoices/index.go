package receivedinvoices

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
)

// SearchCSVPath downloads the index of the search's hits (the same query as SearchPage).
const SearchCSVPath = "/receipt-invoices/search.csv"

// maxIndexRows bounds one download; a search with more hits says so in its last row.
const maxIndexRows = 10000

// indexHeader are the index's columns: the law's search keys first, then what
// identifies the kept file (its name, SHA-256 and how long it is kept).
var indexHeader = []string{"受取日時", "取引年月日", "取引金額", "取引先", "登録番号", "請求書番号", "支払期日",
	"状態", "受取方法", "送信元", "ファイル名", "SHA-256", "保存期限"}

// DownloadIndex sends the search's hits as a CSV index (UTF-8 with a BOM, so that
// spreadsheet software reads the Japanese), newest first; a bad query value is ignored,
// as the search page shows it.
func (h *Handler) DownloadIndex(c *echo.Context) error {
	u := web.CurrentUser(c)
	f, _, _, _ := searchFilter(c)
	f.BuyerID, f.Size = u.BuyerID, 500
	var buf bytes.Buffer
	buf.WriteString("\ufeff")
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	if err := w.Write(indexHeader); err != nil {
		return err
	}
	rows := 0
	for ; rows < maxIndexRows; f.Page++ {
		list, total, err := h.Store.ReceivedInvoices(c.Request().Context(), f)
		if err != nil {
			return err
		}
		for _, r := range list {
			if err := w.Write(indexRow(r)); err != nil {
				return err
			}
			rows++
		}
		if len(list) == 0 || (f.Page+1)*f.Size >= total {
			break
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	name := "受取請求書_" + time.Now().In(pay.Tokyo()).Format("20060102") + ".csv"
	hdr := c.Response().Header()
	hdr.Set("Content-Disposition", web.ContentDisposition(name))
	hdr.Set("Cache-Control", "private, no-store")
	return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
}

func indexRow(r store.ReceivedInvoice) []string {
	date, due, amount := "", "", ""
	if r.KeyDate != nil {
		date = r.KeyDate.Format(time.DateOnly)
	}
	if r.KeyDueDate != nil {
		due = r.KeyDueDate.Format(time.DateOnly)
	}
	if r.KeyAmount != nil {
		amount = strconv.FormatInt(*r.KeyAmount, 10)
	}
	return []string{
		r.ReceivedAt.In(pay.Tokyo()).Format("2006-01-02 15:04:05"), date, amount, pay.SpreadsheetCell(r.KeyCounterparty),
		r.KeyRegistrationNumber, pay.SpreadsheetCell(r.InvoiceNumber), due, r.State.Label(), sourceLabel(r.Source),
		pay.SpreadsheetCell(r.Sender), pay.SpreadsheetCell(r.OriginalName), r.SHA256, r.RetainUntil.Format(time.DateOnly),
	}
}
