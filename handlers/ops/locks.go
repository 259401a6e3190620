package ops

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"cardpay/cards"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/ops"
)

// LocksPage lists the buyers for whom adding cards is locked today (Japan time) after
// declined card checks, each with the unlock form. It is the screening operators'
// (pay.RoleScreening): whether a run of declines was a buyer's typing or someone trying
// stolen cards is the same judgement about a buyer that screening makes on payments,
// and an unlock lets that buyer reach the card network again; administrators manage
// operators, not buyers.
var LocksPage = web.Page{Path: "/ops/locks", Title: "カード追加の停止", Access: web.Operator}

// maxUnlockReason bounds the reason an operator gives for an unlock.
const maxUnlockReason = 200

// ShowLocksPage is LocksPage.
func (h *Handler) ShowLocksPage(c *echo.Context) error {
	return h.renderLocks(c, 0, "", nil)
}

// renderLocks shows the locked buyers; failed is the buyer whose unlock form was
// refused, shown again with its reason and errs.
func (h *Handler) renderLocks(c *echo.Context, failed int64, reason string, errs pay.FieldErrors) error {
	list, err := h.Store.CardCheckLocks(c.Request().Context(), cards.Day(h.Now()))
	if err != nil {
		return err
	}
	v := pages.LocksView{Limit: h.Cards.DeclineLimitOrDefault()}
	for _, l := range list {
		r := pages.LockRow{BuyerID: l.BuyerID, Buyer: l.BuyerName, Declines: l.Declines, LastDeclined: dateTime(l.LastDeclinedAt),
			Action: fmt.Sprintf("%s/%d/unlock", LocksPage.Path, l.BuyerID), Field: unlockField(l.BuyerID)}
		if l.LockedAt != nil {
			r.Locked = dateTime(*l.LockedAt)
		}
		if l.BuyerID == failed {
			r.Reason = reason
		}
		v.Rows = append(v.Rows, r)
	}
	return show(h, c, LocksPage.Title, errs, v, pages.LocksPage)
}

func unlockField(buyerID int64) string { return fmt.Sprintf("reason-%d", buyerID) }

// UnlockPattern lifts a buyer's card-check lock.
const UnlockPattern = "/ops/locks/:id/unlock"

// UnlockCardChecks lifts a buyer's lock of today with the operator's reason (the
// conditional update and its audit row are one transaction in the store).
func (h *Handler) UnlockCardChecks(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	reason := strings.TrimSpace(c.FormValue("reason"))
	var errs pay.FieldErrors
	switch {
	case reason == "":
		errs.Add(unlockField(id), "解除の理由を入力してください")
	case utf8.RuneCountInString(reason) > maxUnlockReason:
		errs.Add(unlockField(id), fmt.Sprintf("解除の理由は%d文字以内で入力してください", maxUnlockReason))
	}
	if errs != nil {
		return h.renderLocks(c, id, reason, errs)
	}
	err = h.Cards.Unlock(c.Request().Context(), id, CurrentOperator(c).ID, reason)
	if errors.Is(err, store.ErrStateChanged) {
		// Unlocked by another operator, the day is over, or never locked: nothing to do.
		h.setFlash(c, views.Flash{Color: "info", Title: "この購入者のカード追加は停止されていません", Text: "他の担当者が解除したか、日付が変わって停止が終わっています。"})
		return c.Redirect(http.StatusSeeOther, LocksPage.Path)
	}
	if err != nil {
		return err
	}
	h.setFlash(c, views.Flash{Color: "success", Title: "カード追加の停止を解除しました", Text: "この購入者は再びカードを追加できます。"})
	return c.Redirect(http.StatusSeeOther, LocksPage.Path)
}
