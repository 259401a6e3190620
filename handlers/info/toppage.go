package info

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
)

// TopPagePath sends a signed-in buyer on to where they start.
const TopPagePath = links.TopPage

// ShowTopPage applies the landing rules (SPEC.md §2) to the buyer's stats. It keeps the
// flash in the session, so the notice appears on the page it lands on.
func (h *Handler) ShowTopPage(c *echo.Context) error {
	st, err := h.Store.Stats(c.Request().Context(), web.CurrentUser(c).BuyerID)
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, pay.PaymentLanding(st.Payments))
}
