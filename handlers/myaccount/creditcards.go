package myaccount

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/cards"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/myaccount"
)

// CreditCardsPage is お支払い方法: the buyer's saved cards.
var CreditCardsPage = web.Page{Path: "/myaccount/creditcards", Title: "お支払い方法", Access: web.SignedIn}

// ShowCreditCardsPage lists the buyer's saved cards (brand, •••• and the last 4 digits,
// expiry, holder, the default, 期限切れ), with add, delete and choose-default.
func (h *Handler) ShowCreditCardsPage(c *echo.Context) error {
	u := web.CurrentUser(c)
	list, err := h.Cards.Cards(c.Request().Context(), u.BuyerID)
	if err != nil {
		return err
	}
	v := pages.CreditCardsView{MaxCards: pay.MaxSavedCards, CanAdd: len(list) < pay.MaxSavedCards}
	for _, cd := range list {
		v.Cards = append(v.Cards, creditCardItem(cd))
	}
	return web.Show(h.App, c, CreditCardsPage.Title, nil, v, pages.CreditCardsPage)
}

func creditCardItem(cd cards.Card) pages.CreditCardItem {
	return pages.CreditCardItem{
		ID: strconv.FormatInt(cd.ID, 10), BrandCode: string(cd.Brand), BrandLabel: cd.Brand.Label(), Last4: cd.Last4,
		Expiry: cd.Expiry(), Holder: cd.HolderName, IsDefault: cd.IsDefault, Expired: cd.Expired,
		Cycle: cycleLabel(cd.Cycle()),
	}
}

func cycleLabel(cy *pay.CardCycle) string {
	if cy == nil {
		return ""
	}
	return cy.Label()
}

// creditCardFromPath loads the :id card of the signed-in buyer; another buyer's is the
// 404 page.
func (h *Handler) creditCardFromPath(c *echo.Context) (cards.Card, error) {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return cards.Card{}, err
	}
	return h.Cards.Card(c.Request().Context(), web.CurrentUser(c).BuyerID, id)
}

// DefaultCreditCardPattern makes a saved card the default.
const DefaultCreditCardPattern = "/myaccount/creditcards/:id/default"

// SetDefaultCreditCard makes the :id card the default. An expired card cannot be
// chosen: the list offers no button for it, and a forged POST gets the reason.
func (h *Handler) SetDefaultCreditCard(c *echo.Context) error {
	cd, err := h.creditCardFromPath(c)
	if err != nil {
		return err
	}
	err = h.Cards.SetDefault(c.Request().Context(), cd.BuyerID, cd.ID)
	if r, ok := cards.AsRefusal(err); ok {
		h.SetFlash(c, views.Flash{Color: "error", Title: "既定のカードを変更できませんでした", Text: r.Message})
		return c.Redirect(http.StatusSeeOther, CreditCardsPage.Path)
	}
	if err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "既定のカードを変更しました", Text: cardName(cd) + "を既定のカードにしました。"})
	return c.Redirect(http.StatusSeeOther, CreditCardsPage.Path)
}

// cardName names a card in notices: "VISA（下4桁 1111）".
func cardName(cd cards.Card) string {
	return cd.Brand.Label() + "（下4桁 " + cd.Last4 + "）"
}

// DeleteCreditCardPattern is the delete question of a saved card and where it posts.
const DeleteCreditCardPattern = "/myaccount/creditcards/:id/delete"

// ShowDeleteCreditCardPage is the confirm dialog (はい / いいえ) as a page, so it works
// without JavaScript.
func (h *Handler) ShowDeleteCreditCardPage(c *echo.Context) error {
	cd, err := h.creditCardFromPath(c)
	if err != nil {
		return err
	}
	return web.Show(h.App, c, "カードの削除", nil, pages.DeleteCreditCardView{Card: creditCardItem(cd)}, pages.DeleteCreditCardPage)
}

// DeleteCreditCard removes the :id card; when it was the default, the newest remaining
// card becomes the default.
func (h *Handler) DeleteCreditCard(c *echo.Context) error {
	cd, err := h.creditCardFromPath(c)
	if err != nil {
		return err
	}
	if err := h.Cards.Delete(c.Request().Context(), cd.BuyerID, cd.ID); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "カードを削除しました", Text: cardName(cd) + "をお支払い方法から削除しました。"})
	return c.Redirect(http.StatusSeeOther, CreditCardsPage.Path)
}

// errNoHostedPage is shown when the PSP's hosted card page cannot be opened (the PSP
// did not answer, or answered a page outside the origins the CSP names).
var errNoHostedPage = &web.PageError{Status: http.StatusServiceUnavailable, Heading: "カード情報の入力画面を開けません",
	Message: "決済代行会社のカード情報入力画面を開けませんでした。時間をおいて、もう一度お試しください。"}
