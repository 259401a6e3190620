package myaccount

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/views"
	pages "cardpay/views/myaccount"
)

const cycleTitle = "締め日・支払日の設定"

// CardCyclePattern is a saved card's billing-cycle page and where it posts.
const CardCyclePattern = "/myaccount/creditcards/:id/cycle"

// ShowCardCyclePage asks for a card's billing cycle (締め日・支払日).
func (h *Handler) ShowCardCyclePage(c *echo.Context) error {
	cd, err := h.creditCardFromPath(c)
	if err != nil {
		return err
	}
	v := cycleView(creditCardItem(cd), "", "", "")
	if cy := cd.Cycle(); cy != nil {
		v = cycleView(creditCardItem(cd), strconv.Itoa(cy.ClosingDay), strconv.Itoa(cy.PaymentDay), strconv.Itoa(cy.MonthsLater))
	}
	return web.Show(h.App, c, cycleTitle, nil, v, pages.CardCyclePage)
}

func cycleView(card pages.CreditCardItem, closing, payment, months string) pages.CardCycleView {
	v := pages.CardCycleView{Card: card, Closing: closing, Payment: payment, Months: months,
		MonthOptions: []views.FieldOption{{Value: "1", Label: "翌月"}, {Value: "2", Label: "翌々月"}}}
	for d := 1; d <= 31; d++ {
		label := strconv.Itoa(d) + "日"
		if d == 31 {
			label = "末日"
		}
		v.DayOptions = append(v.DayOptions, views.FieldOption{Value: strconv.Itoa(d), Label: label})
	}
	return v
}

// SaveCardCycle records the cycle, or clears it (設定を消す).
func (h *Handler) SaveCardCycle(c *echo.Context) error {
	cd, err := h.creditCardFromPath(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if c.FormValue("action") == "clear" {
		if err := h.Store.SetCardCycle(ctx, cd.BuyerID, cd.ID, nil); err != nil {
			return err
		}
		h.SetFlash(c, views.Flash{Color: "success", Title: "締め日・支払日の設定を消しました"})
		return c.Redirect(http.StatusSeeOther, CreditCardsPage.Path)
	}
	closing, payment, months := c.FormValue("closing_day"), c.FormValue("payment_day"), c.FormValue("months_later")
	var cy pay.CardCycle
	var errs pay.FieldErrors
	day := func(field, v, msg string) int {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 31 {
			errs.Add(field, msg)
		}
		return n
	}
	cy.ClosingDay = day("closing_day", closing, "締め日を選んでください")
	cy.MonthsLater, err = strconv.Atoi(months)
	if err != nil || cy.MonthsLater < 1 || cy.MonthsLater > 2 {
		errs.Add("months_later", "支払月（翌月・翌々月）を選んでください")
	}
	cy.PaymentDay = day("payment_day", payment, "支払日を選んでください")
	if len(errs) > 0 {
		return web.Show(h.App, c, cycleTitle, errs, cycleView(creditCardItem(cd), closing, payment, months), pages.CardCyclePage)
	}
	if err := h.Store.SetCardCycle(ctx, cd.BuyerID, cd.ID, &cy); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "締め日・支払日を保存しました", Text: cardName(cd) + "：" + cy.Label()})
	return c.Redirect(http.StatusSeeOther, CreditCardsPage.Path)
}
