package ops

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/ops"
)

// ShowSuppliersPage lists the suppliers waiting for a review (未承認, 確認中).
func (h *Handler) ShowSuppliersPage(c *echo.Context) error {
	list, err := h.Store.SupplierReviews(c.Request().Context(), []pay.SupplierStatus{pay.SupplierUnapproved, pay.SupplierEscalation})
	if err != nil {
		return err
	}
	var v pages.SuppliersView
	for _, s := range list {
		v.Rows = append(v.Rows, pages.ReviewRow{Href: fmt.Sprintf("%s/%d", SuppliersPage.Path, s.ID), Name: s.Name,
			Buyer: s.BuyerName, Status: s.Status.Label(), Created: dateTime(s.CreatedAt), Payments: s.Payments})
	}
	return show(h, c, SuppliersPage.Title, nil, v, pages.SuppliersPage)
}

// SupplierPattern is one supplier to review, and where the review posts.
const SupplierPattern = "/ops/suppliers/:id"

// ShowSupplierPage is one supplier's review.
func (h *Handler) ShowSupplierPage(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	return h.renderSupplier(c, id, nil, "", "")
}

func (h *Handler) renderSupplier(c *echo.Context, id int64, errs pay.FieldErrors, outcome, reason string) error {
	s, err := h.Store.SupplierReview(c.Request().Context(), id)
	if err != nil {
		return err
	}
	v := pages.SupplierView{ID: s.ID, Name: s.Name, Buyer: s.BuyerName, Form: s.BusinessForm.Label(), Number: s.CorporateNumber,
		Status: s.Status.Label(), ReviewReason: s.ReviewReason, Created: dateTime(s.CreatedAt), Payments: s.Payments,
		CanReview: (s.Status == pay.SupplierUnapproved || s.Status == pay.SupplierEscalation) && CurrentOperator(c).Has(pay.RoleScreening),
		Outcome:   outcome, Reason: reason}
	for _, st := range []pay.SupplierStatus{pay.SupplierApproved, pay.SupplierEscalation, pay.SupplierRejected} {
		if st != s.Status {
			v.Outcomes = append(v.Outcomes, views.FieldOption{Value: strconv.Itoa(int(st)), Label: st.Label()})
		}
	}
	return show(h, c, s.Name+"の確認", errs, v, pages.SupplierPage)
}

// ReviewSupplier records the review: approve, escalate or reject with a reason.
func (h *Handler) ReviewSupplier(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	outcome, reason := c.FormValue("status"), c.FormValue("reason")
	n, _ := strconv.Atoi(outcome)
	err = h.Screening.ReviewSupplier(c.Request().Context(), *CurrentOperator(c), id, pay.SupplierStatus(n), reason)
	var errs pay.FieldErrors
	if errors.As(err, &errs) {
		return h.renderSupplier(c, id, errs, outcome, reason)
	}
	if err != nil {
		return err
	}
	h.setFlash(c, views.Flash{Color: "success", Title: "確認の結果を登録しました", Text: pay.SupplierStatus(n).Label()})
	return c.Redirect(http.StatusSeeOther, SuppliersPage.Path)
}
