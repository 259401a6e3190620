package handlers

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
)

// showTopPage applies the landing rules (SPEC.md §2) to the buyer's stats. It keeps the
// flash in the session, so the notice appears on the page it lands on.
func (a *App) showTopPage(c *echo.Context) error {
	st, err := a.Store.Stats(c.Request().Context(), currentUser(c).BuyerID)
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, pay.PaymentLanding(st.Payments))
}
