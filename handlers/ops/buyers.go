package ops

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/ops"
)

// ShowHeldBuyersPage lists the buyers held for review: the registry could not confirm
// their corporate number, or an active buyer already holds it.
func (h *Handler) ShowHeldBuyersPage(c *echo.Context) error {
	list, err := h.Store.HeldBuyers(c.Request().Context())
	if err != nil {
		return err
	}
	var v pages.HeldBuyersView
	for _, b := range list {
		v.Rows = append(v.Rows, pages.HeldBuyerRow{Href: fmt.Sprintf("%s/%d", BuyersPage.Path, b.ID), Name: b.CorporateName,
			Number: b.CorporateNumber, Reason: pay.HoldReasonLabel(b.ReviewReason), Created: dateTime(b.CreatedAt)})
	}
	return show(h, c, BuyersPage.Title, nil, v, pages.HeldBuyersPage)
}

// HeldBuyerPattern is one held buyer to review, and where the review posts.
const HeldBuyerPattern = "/ops/buyers/:id"

// ShowHeldBuyerPage is one held buyer's review.
func (h *Handler) ShowHeldBuyerPage(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	return h.renderHeldBuyer(c, id, nil, "", "")
}

func buyerCard(b store.BuyerReviewItem) pages.BuyerCard {
	card := pages.BuyerCard{ID: b.ID, Name: b.CorporateName, Number: b.CorporateNumber,
		Address: b.AddressState + b.AddressCity + b.AddressStreet, Representative: strings.TrimSpace(b.Representative),
		Email: b.EmailAddress, Phone: b.PhoneNumber, Created: dateTime(b.CreatedAt), Status: b.ReviewStatus.Label(), Note: b.ReviewNote}
	if b.ReviewReason != "" {
		card.Reason = pay.HoldReasonLabel(b.ReviewReason)
	}
	return card
}

func (h *Handler) renderHeldBuyer(c *echo.Context, id int64, errs pay.FieldErrors, outcome, reason string) error {
	ctx := c.Request().Context()
	b, err := h.Store.BuyerForReview(ctx, id)
	if err != nil {
		return err
	}
	// Only corporations are ever held; a sole proprietor's id shows nothing here.
	if b.BusinessForm != pay.Corporation {
		return store.ErrNotFound
	}
	others, err := h.Store.BuyersWithNumber(ctx, b.CorporateNumber, b.ID)
	if err != nil {
		return err
	}
	v := pages.HeldBuyerView{Buyer: buyerCard(b), Outcome: outcome, Reason: reason,
		CanReview: b.ReviewStatus == pay.BuyerHeld && CurrentOperator(c).Has(pay.RoleScreening),
		Outcomes: []views.FieldOption{{Value: string(pay.BuyerActive), Label: "承認する（利用中にする）"},
			{Value: string(pay.BuyerRejected), Label: "否認する"}}}
	for _, o := range others {
		v.Others = append(v.Others, buyerCard(o))
	}
	if reg, err := h.Store.Corporation(ctx, b.CorporateNumber); err == nil {
		v.RegistryName, v.RegistryAddress = reg.Name, reg.Address
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return show(h, c, b.CorporateName+"の確認", errs, v, pages.HeldBuyerPage)
}

// ReviewHeldBuyer records the decision on a held buyer: approve or reject, with a reason.
func (h *Handler) ReviewHeldBuyer(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	outcome, reason := c.FormValue("status"), c.FormValue("reason")
	err = h.Account.ReviewBuyer(c.Request().Context(), *CurrentOperator(c), id, pay.BuyerReview(outcome), reason)
	var errs pay.FieldErrors
	if errors.As(err, &errs) {
		return h.renderHeldBuyer(c, id, errs, outcome, reason)
	}
	if err != nil {
		return err
	}
	h.setFlash(c, views.Flash{Color: "success", Title: "確認の結果を登録しました", Text: pay.BuyerReview(outcome).Label()})
	return c.Redirect(http.StatusSeeOther, BuyersPage.Path)
}
