package ops

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/ops"
)

// InquiryPattern is one inquiry, and where its answer posts.
const InquiryPattern = "/ops/inquiries/:id"

// CloseInquiryPattern marks an inquiry 対応終了.
const CloseInquiryPattern = "/ops/inquiries/:id/close"

// ShowInquiryPage shows one inquiry with its answers and the answer form.
func (h *Handler) ShowInquiryPage(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	return h.renderInquiry(c, id, "", nil)
}

func (h *Handler) renderInquiry(c *echo.Context, id int64, answer string, errs pay.FieldErrors) error {
	q, err := h.Store.OperatorInquiry(c.Request().Context(), id)
	if err != nil {
		return err
	}
	me := CurrentOperator(c)
	v := pages.InquiryView{Number: pay.InquiryNumber(q.ID), Status: q.Status.Label(), Category: q.Category.Label(),
		At: dateTime(q.CreatedAt), Body: q.Body, Name: q.Name, Email: q.Email, Company: q.Company, Answer: answer}
	if q.BuyerID != nil {
		v.Buyer = fmt.Sprintf("購入者 #%d", *q.BuyerID)
		// The buyer's console page is the screeners' review of a corporation
		// (ShowHeldBuyerPage); a sole proprietor has none.
		if q.BuyerForm != nil && *q.BuyerForm == pay.Corporation && me.Has(pay.RoleScreening) {
			v.BuyerHref = fmt.Sprintf("%s/%d", BuyersPage.Path, *q.BuyerID)
		}
	}
	if q.InvoiceID != nil {
		v.Payment = pay.InvoiceNumber(*q.InvoiceID)
		if q.SupplierName != nil && q.PaymentAmount != nil {
			v.Payment += "　" + *q.SupplierName + "　" + pay.Yen(*q.PaymentAmount)
		}
		if me.Has(pay.RoleScreening) {
			v.PaymentHref = fmt.Sprintf("%s/%d", QueuePage.Path, *q.InvoiceID)
		}
	}
	for _, a := range q.Answers {
		v.Answers = append(v.Answers, pages.InquiryAnswer{At: dateTime(a.CreatedAt), Operator: "担当者 " + a.OperatorName, Body: a.Body})
	}
	if q.Status != pay.InquiryClosed {
		v.Action, v.CloseAction = inquiryHref(q.ID), inquiryHref(q.ID)+"/close"
	} else if len(errs) > 0 {
		// Closed meanwhile (by another operator): the form stays, with what was typed and
		// the message at it, so that nothing typed is lost.
		v.Action = inquiryHref(q.ID)
	}
	return show(h, c, "お問い合わせ "+v.Number, errs, v, pages.InquiryPage)
}

// AnswerInquiry sends the operator's answer (account.Service.AnswerInquiry: the mail,
// the buyer's notification, the audit row).
func (h *Handler) AnswerInquiry(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	answer := c.FormValue("answer")
	err = h.Account.AnswerInquiry(c.Request().Context(), *CurrentOperator(c), id, answer)
	var errs pay.FieldErrors
	if errors.As(err, &errs) {
		return h.renderInquiry(c, id, web.ShownValue(web.Clip(answer, pay.MaxInquiryBody+1000)), errs)
	}
	if err != nil {
		return err
	}
	h.setFlash(c, views.Flash{Color: "success", Title: "回答を送信しました", Text: pay.InquiryNumber(id) + "のお問い合わせ元へメールでお送りしました。"})
	return c.Redirect(http.StatusSeeOther, inquiryHref(id))
}

// CloseInquiry marks the inquiry 対応終了, audited.
func (h *Handler) CloseInquiry(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	err = h.Account.CloseInquiry(c.Request().Context(), *CurrentOperator(c), id)
	var errs pay.FieldErrors
	if errors.As(err, &errs) {
		return h.renderInquiry(c, id, "", errs)
	}
	if err != nil {
		return err
	}
	h.setFlash(c, views.Flash{Color: "success", Title: "対応終了にしました", Text: pay.InquiryNumber(id)})
	return c.Redirect(http.StatusSeeOther, InquiriesPage.Path)
}
