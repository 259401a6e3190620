package collections

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/collections"
)

// ShowListPage shows one list, 20 a page, newest first.
func (h *Handler) ShowListPage(l List) echo.HandlerFunc {
	return func(c *echo.Context) error {
		b, err := h.Base(c, l.Title)
		if err != nil {
			return err
		}
		page := web.PageParam(c) - 1
		list, total, err := h.Store.Requests(c.Request().Context(), store.RequestFilter{RequesterID: web.CurrentUser(c).BuyerID,
			Bucket: l.Bucket, Page: page, Size: PageSize})
		if err != nil {
			return err
		}
		v := pages.ListView{Heading: l.Title, Empty: l.Empty, Tabs: tabs(b, l.Path), Total: total}
		for _, r := range list {
			v.Rows = append(v.Rows, pages.RequestRow{Href: l.ItemPath(r.ID), Number: pay.InvoiceNumber(r.ID),
				Customer: r.CustomerName, Amount: pay.Yen(r.Amount), Deadline: pay.JapaneseDate(r.Deadline),
				Status: r.Status().Label(), Sent: pay.JapaneseDate(r.CreatedAt)})
		}
		n := pay.PageCount(total, PageSize)
		v.Pagination = views.Pagination{Current: page + 1, Total: n, Items: pay.PageItems(page+1, n),
			Href: func(p int) string { return l.Path + "?page=" + strconv.Itoa(p) }}
		v.Base = b
		return web.Render(c, http.StatusOK, pages.ListPage(v))
	}
}

// request loads the request of the path's :id for the signed-in requester; one that
// belongs to another list is redirected there (redirect != "").
func (h *Handler) request(c *echo.Context, l List) (r store.Request, redirect string, err error) {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return r, "", err
	}
	r, err = h.Store.Request(c.Request().Context(), web.CurrentUser(c).BuyerID, id)
	if err != nil {
		return r, "", err
	}
	if own := listOf(r.ExaminationStatus); own.Path != l.Path {
		return r, strings.Replace(c.Request().URL.Path, l.Path, own.Path, 1), nil
	}
	return r, "", nil
}

// ShowRequestPage is one request: its status and timeline, the customer, the amounts and
// who bears the fee, the receiving account, the dates, the file, and キャンセル while it
// is open. Another buyer's request is 404.
func (h *Handler) ShowRequestPage(l List) echo.HandlerFunc {
	return func(c *echo.Context) error {
		r, redirect, err := h.request(c, l)
		if err != nil {
			return err
		}
		if redirect != "" {
			return c.Redirect(http.StatusSeeOther, redirect)
		}
		u := web.CurrentUser(c)
		events, err := h.Store.PaymentEvents(c.Request().Context(), u.BuyerID, r.ID)
		if err != nil {
			return err
		}
		orNone := func(s string) string {
			if s == "" {
				return "―"
			}
			return s
		}
		v := pages.RequestView{ListHref: l.Path, ListLabel: l.Title, Number: pay.InvoiceNumber(r.ID), Status: r.Status().Label(),
			Message: r.Message,
			Customer: []views.ConfirmRow{
				{Label: "会社名", Value: r.CustomerName}, {Label: "ご担当者名", Value: orNone(r.CustomerContactName)},
				{Label: "メールアドレス", Value: r.CustomerEmail}, {Label: "法人番号", Value: orNone(r.CustomerCorporateNumber)},
			},
			Money: []views.ConfirmRow{
				{Label: "請求金額", Value: pay.Yen(r.Amount)},
				{Label: "手数料（" + pay.FeeRateLabel(r.FeeBasisPoints) + "）", Value: pay.Yen(r.Fee) + "（" + r.FeeBearer.Label() + "）"},
				{Label: "お客さまのカードへのご請求額", Value: pay.Yen(r.CustomerCharge())},
				{Label: "入金額", Value: pay.Yen(r.Transfer())},
			},
			Account: []views.ConfirmRow{
				{Label: "金融機関", Value: r.BankName + "（" + r.BankCode + "）"}, {Label: "支店", Value: r.BranchName + "（" + r.BranchCode + "）"},
				{Label: "口座種別", Value: r.AccountType.Label()}, {Label: "口座番号", Value: r.AccountNumber}, {Label: "口座名義", Value: r.HolderName},
			},
		}
		invoiceDate, paid, transfer := "―", "―", "―"
		if r.InvoiceDate != nil {
			invoiceDate = pay.JapaneseDate(*r.InvoiceDate)
		}
		if r.PaidAt != nil {
			paid = pay.JapaneseDateTime(*r.PaidAt)
		}
		if r.TransferDate != nil {
			transfer = pay.JapaneseDate(*r.TransferDate)
		}
		v.Dates = []views.ConfirmRow{
			{Label: "請求書番号", Value: orNone(r.InvoiceNumber)}, {Label: "請求日", Value: invoiceDate},
			{Label: "送信日時", Value: pay.JapaneseDateTime(r.CreatedAt)}, {Label: "お支払い期限", Value: pay.JapaneseDate(r.Deadline)},
			{Label: "お客さまのお支払い日時", Value: paid}, {Label: "入金予定日", Value: transfer},
		}
		if r.FileID != nil {
			if f, err := h.Store.InvoiceFile(c.Request().Context(), u.BuyerID, *r.FileID); err == nil {
				v.FileName = web.FileName(f.OriginalName)
				v.FileHref, _ = h.InvoiceFiles.DownloadURL(u.BuyerID, f.ID)
			}
		}
		for _, e := range events {
			v.Timeline = append(v.Timeline, pages.TimelineItem{Label: eventLabel(e), At: pay.JapaneseDateTime(e.CreatedAt)})
		}
		switch r.Status() {
		case pay.CollectionNotRegistered:
			v.Next = "お客さまがメールのリンクを開き、ログインまたは新規登録すると「支払待ち」になります。"
		case pay.CollectionWaitingPayment:
			v.Next = "お客さまのカードでのお支払いを待っています。お支払い期限は" + pay.JapaneseDate(r.Deadline) + "です。"
		case pay.CollectionInProgress:
			v.Next = "お客さまのお支払いを審査しています。"
		case pay.CollectionReviewCompleted:
			v.Next = "審査が完了しました。入金予定日にお振り込みします。"
		}
		if pay.RequestOpen(r.ExaminationStatus) {
			v.CancelHref = l.CancelPath(r.ID)
		}
		return web.Show(h.App, c, "カード払い依頼 "+pay.InvoiceNumber(r.ID), nil, v, pages.RequestPage)
	}
}

func eventLabel(e store.PaymentEvent) string {
	switch e.Action {
	case pay.ActRequest:
		return "依頼を送信"
	case pay.ActLink:
		return "お客さまが依頼を受け取り"
	case pay.ActSubmit, pay.ActResubmit:
		return "お客さまがカードで支払い"
	case pay.ActComplete:
		return "審査完了（支払確定）"
	case pay.ActTransfer:
		return "入金完了"
	}
	return e.Action.Label()
}

// ShowCancelPage asks whether to cancel (はい / いいえ, SPEC.md §8).
func (h *Handler) ShowCancelPage(l List) echo.HandlerFunc {
	return func(c *echo.Context) error {
		r, redirect, err := h.request(c, l)
		if err != nil {
			return err
		}
		if !pay.RequestOpen(r.ExaminationStatus) {
			return c.Redirect(http.StatusSeeOther, listOf(r.ExaminationStatus).Path+"/"+idString(r.ID))
		}
		if redirect != "" {
			return c.Redirect(http.StatusSeeOther, redirect)
		}
		return h.renderCancel(c, l, r, nil)
	}
}

func (h *Handler) renderCancel(c *echo.Context, l List, r store.Request, errs pay.FieldErrors) error {
	href := listOf(r.ExaminationStatus).ItemPath(r.ID)
	v := pages.CancelView{Number: pay.InvoiceNumber(r.ID), Customer: r.CustomerName, Amount: pay.Yen(r.Amount),
		Action: listOf(r.ExaminationStatus).CancelPath(r.ID), BackHref: href, Refused: len(errs) > 0}
	return web.Show(h.App, c, "カード払い依頼のキャンセル", errs, v, pages.CancelPage)
}

// CancelRequest cancels the request: its key stops working at once.
func (h *Handler) CancelRequest(l List) echo.HandlerFunc {
	return func(c *echo.Context) error {
		r, _, err := h.request(c, l)
		if err != nil {
			return err
		}
		u := web.CurrentUser(c)
		r2, err := h.Requests.CancelRequest(c.Request().Context(), u.BuyerID, r.ID, u.ID)
		var fe pay.FieldErrors
		if errors.As(err, &fe) {
			return h.renderCancel(c, l, r, pay.FieldErrors{{Field: "status", Message: fe[0].Message}})
		}
		if err != nil {
			return err
		}
		h.SetFlash(c, views.Flash{Color: "success", Title: "カード払い依頼をキャンセルしました", Text: "お客さまにお送りしたリンクは使えなくなりました。"})
		return c.Redirect(http.StatusSeeOther, listOf(r2.ExaminationStatus).Path+"/"+idString(r2.ID))
	}
}
