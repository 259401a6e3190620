package ops

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/calendar"
	"cardpay/handlers/web"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/ops"
)

// TransfersPage is one bank day's transfers: the screened payments due, the day's
// 総合振込 files and each payment's outcome.
var TransfersPage = web.Page{Path: "/ops/transfers", Title: "振込", Access: web.Operator}

// transferDay is the ?date= of the page (Japan's calendar), today's when missing.
func (h *Handler) transferDay(s string) time.Time {
	if d, ok := pay.ParseDate(s); ok {
		return d
	}
	now := h.Now().In(pay.Tokyo())
	return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, pay.Tokyo())
}

func transfersHref(day time.Time) string {
	return TransfersPage.Path + "?date=" + url.QueryEscape(pay.ISODate(day))
}

// prevBankDay is the bank day before day.
func prevBankDay(day time.Time) time.Time {
	d := day.AddDate(0, 0, -1)
	for calendar.IsBankHoliday(d) {
		d = d.AddDate(0, 0, -1)
	}
	return d
}

// ShowTransfersPage shows the day's transfers.
func (h *Handler) ShowTransfersPage(c *echo.Context) error {
	return h.renderTransfers(c, h.transferDay(c.QueryParam("date")), nil, nil)
}

// rowInput keeps what an operator typed in one row's form, shown again with its error.
type rowInput struct {
	id                              int64
	reason, retryDate, cancelReason string
}

func (h *Handler) renderTransfers(c *echo.Context, day time.Time, errs pay.FieldErrors, in *rowInput) error {
	ctx := c.Request().Context()
	items, err := h.Store.TransfersOn(ctx, day)
	if err != nil {
		return err
	}
	files, err := h.Store.TransferFilesOn(ctx, day)
	if err != nil {
		return err
	}
	op := CurrentOperator(c)
	mover := op.Has(pay.RoleTransfers)
	v := pages.TransfersView{Date: pay.ISODate(day), DateLabel: pay.JapaneseDate(day), BankDay: !calendar.IsBankHoliday(day),
		HolidayName: calendar.HolidayName(day), PrevHref: transfersHref(prevBankDay(day)), NextHref: transfersHref(calendar.AddBankDays(day, 1))}
	if v.HolidayName == "" {
		v.HolidayName = "土日・年末年始"
	}
	byFile := map[int64][]pages.TransferRow{}
	var dueTotal int64
	for _, it := range items {
		r := pages.TransferRow{ID: it.ID, Number: pay.InvoiceNumber(it.ID), Href: fmt.Sprintf("%s/%d", QueuePage.Path, it.ID),
			Buyer: it.BuyerName, Supplier: it.SupplierName, Amount: pay.Yen(it.Amount),
			Account: fmt.Sprintf("%s %s %s %s %s", it.BankName, it.BranchName, it.AccountType.Label(), it.AccountNumber, it.HolderName),
			Failure: it.TransferFailure}
		switch {
		case it.TransferState == pay.TransferFailed:
			r.State = "振込失敗"
			r.CanRetry, r.CanCancel = mover, mover
		case it.TransferState == pay.TransferSent:
			// The bank has the file: only its result moves the payment.
			r.State = "送信済み（結果待ち）"
			r.CanComplete, r.CanFail = mover, mover
		case it.TransferState.InBank():
			r.State = it.TransferState.Label()
		case it.ActionRequired:
			r.State = "差し戻し中（購入者の修正待ち）"
		case it.CardStatus != pay.CardCaptured:
			r.State = "カード売上確定待ち"
		case !it.AccountApproved:
			// A request's account the operators have not approved: no file takes it.
			r.State = "振込先口座の承認待ち"
		default:
			r.State = "振込ファイル未作成"
		}
		if in != nil && in.id == it.ID {
			r.Reason, r.RetryDate, r.CancelReason = in.reason, in.retryDate, in.cancelReason
		}
		if it.TransferFileID == nil {
			v.Due = append(v.Due, r)
			if r.State == "振込ファイル未作成" {
				dueTotal += it.Amount
				v.CanMake = mover && v.BankDay
			}
			continue
		}
		byFile[*it.TransferFileID] = append(byFile[*it.TransferFileID], r)
	}
	v.DueTotal = pay.Yen(dueTotal)
	ops, err := h.Store.Operators(ctx)
	if err != nil {
		return err
	}
	names := map[int64]string{}
	for _, o := range ops {
		names[o.ID] = o.Name
	}
	for _, f := range files {
		fr := pages.FileRow{ID: f.ID, Made: dateTime(f.CreatedAt) + "（" + names[f.CreatedBy] + "）", Records: fmt.Sprintf("%d", f.RecordCount),
			Total: pay.Yen(f.Total), Sent: "未送信", CanMarkSent: mover && f.SentAt == nil,
			DownloadHref: fmt.Sprintf("%s/files/%d/download", TransfersPage.Path, f.ID)}
		if f.SentAt != nil {
			fr.Sent = dateTime(*f.SentAt)
			if f.SentBy != nil {
				fr.Sent += "（" + names[*f.SentBy] + "）"
			}
		}
		fr.Rows = append(fr.Rows, byFile[f.ID]...)
		v.Files = append(v.Files, fr)
	}
	return show(h, c, TransfersPage.Title+"（"+v.DateLabel+"）", errs, v, pages.TransfersPage)
}

// transferDone answers an action: back to the day with a notice, or the page again
// with the refusal next to the row's form (field renamed to the row's).
func (h *Handler) transferDone(c *echo.Context, day time.Time, err error, field string, in *rowInput, notice string) error {
	var errs pay.FieldErrors
	if errors.As(err, &errs) {
		for i := range errs {
			errs[i].Field = field
		}
		return h.renderTransfers(c, day, errs, in)
	}
	if err != nil {
		return err
	}
	h.setFlash(c, views.Flash{Color: "success", Title: notice})
	return c.Redirect(http.StatusSeeOther, transfersHref(day))
}

// The transfers page's actions: make, download and mark a transfer file; settle,
// retry or cancel one transfer.
const (
	TransferFilesPath           = "/ops/transfers/files"
	TransferFileDownloadPattern = "/ops/transfers/files/:id/download"
	TransferFileSentPattern     = "/ops/transfers/files/:id/sent"
	TransferDonePattern         = "/ops/transfers/:id/done"
	TransferFailedPattern       = "/ops/transfers/:id/failed"
	TransferRetryPattern        = "/ops/transfers/:id/retry"
	TransferCancelPattern       = "/ops/transfers/:id/cancel"
)

// MakeTransferFile makes the day's 総合振込 file.
func (h *Handler) MakeTransferFile(c *echo.Context) error {
	day := h.transferDay(c.FormValue("date"))
	f, err := h.Transfers.MakeTransferFile(c.Request().Context(), *CurrentOperator(c), day, h.Remitter)
	return h.transferDone(c, day, err, "make", nil, fmt.Sprintf("振込ファイル #%d を作成しました（%d件・合計%s）", f.ID, f.RecordCount, pay.Yen(f.Total)))
}

// DownloadTransferFile serves a file as it was made.
func (h *Handler) DownloadTransferFile(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	f, b, err := h.Store.TransferFileContent(c.Request().Context(), id)
	if err != nil {
		return err
	}
	hdr := c.Response().Header()
	hdr.Set("Content-Disposition", web.ContentDisposition(invoices.ZenginFileName(f.TransferDate, f.RecordCount)))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Cache-Control", "no-store")
	return c.Blob(http.StatusOK, "text/plain; charset=Shift_JIS", b)
}

// MarkTransferFileSent records that the file went to the bank.
func (h *Handler) MarkTransferFileSent(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	f, _, err := h.Store.TransferFileContent(c.Request().Context(), id)
	if err != nil {
		return err
	}
	err = h.Transfers.MarkTransferFileSent(c.Request().Context(), *CurrentOperator(c), id)
	return h.transferDone(c, f.TransferDate, err, fmt.Sprintf("file-%d-sent", id), nil, fmt.Sprintf("振込ファイル #%d を送信済みにしました", id))
}

// transferOf reads the payment of the path for a transfer action.
func (h *Handler) transferOf(c *echo.Context) (store.TransferItem, error) {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return store.TransferItem{}, err
	}
	return h.Store.Transfer(c.Request().Context(), id)
}

// CompleteTransfer is 振込完了.
func (h *Handler) CompleteTransfer(c *echo.Context) error {
	t, err := h.transferOf(c)
	if err != nil {
		return err
	}
	_, err = h.Transfers.CompleteTransfer(c.Request().Context(), *CurrentOperator(c), t.ID)
	return h.transferDone(c, t.TransferDate, err, fmt.Sprintf("done-%d", t.ID), nil, pay.InvoiceNumber(t.ID)+"を振込完了にしました")
}

// FailTransfer records a transfer the bank returned.
func (h *Handler) FailTransfer(c *echo.Context) error {
	t, err := h.transferOf(c)
	if err != nil {
		return err
	}
	in := &rowInput{id: t.ID, reason: c.FormValue("reason")}
	err = h.Transfers.FailTransfer(c.Request().Context(), *CurrentOperator(c), t.ID, in.reason)
	return h.transferDone(c, t.TransferDate, err, fmt.Sprintf("reason-%d", t.ID), in, pay.InvoiceNumber(t.ID)+"を振込失敗にしました")
}

// RetryTransfer moves a failed transfer to a later bank day.
func (h *Handler) RetryTransfer(c *echo.Context) error {
	t, err := h.transferOf(c)
	if err != nil {
		return err
	}
	in := &rowInput{id: t.ID, retryDate: c.FormValue("retry_date")}
	day, ok := pay.ParseDate(in.retryDate)
	if !ok {
		err = pay.FieldErrors{{Field: "retry_date", Message: "再振込日を選んでください"}}
	} else {
		err = h.Transfers.RetryTransfer(c.Request().Context(), *CurrentOperator(c), t.ID, day)
	}
	return h.transferDone(c, t.TransferDate, err, fmt.Sprintf("retry_date-%d", t.ID), in,
		pay.InvoiceNumber(t.ID)+"を"+pay.JapaneseDate(day)+"に再振込します")
}

// CancelTransfer cancels a payment whose transfer failed: the card is refunded.
func (h *Handler) CancelTransfer(c *echo.Context) error {
	t, err := h.transferOf(c)
	if err != nil {
		return err
	}
	in := &rowInput{id: t.ID, cancelReason: c.FormValue("reason")}
	_, err = h.Transfers.CancelFailedTransfer(c.Request().Context(), *CurrentOperator(c), t.ID, in.cancelReason)
	return h.transferDone(c, t.TransferDate, err, fmt.Sprintf("cancel_reason-%d", t.ID), in, pay.InvoiceNumber(t.ID)+"をキャンセルしました（カードへ返金します）")
}
