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
// flash in the session, so the notice appears on the page it lands on. Without the stats
// (SPEC.md §8: a failure to read them is only logged) it opens 審査中, whose list counts
// itself and which the landing rules put first.
func (h *Handler) ShowTopPage(c *echo.Context) error {
	ctx := c.Request().Context()
	st, err := h.Store.Stats(ctx, web.CurrentUser(c).BuyerID)
	if err != nil {
		h.Logger.ErrorContext(ctx, "info: the stats could not be read; the top page opens 審査中", "error", err)
		return c.Redirect(http.StatusSeeOther, links.PaymentsReview)
	}
	return c.Redirect(http.StatusSeeOther, pay.PaymentLanding(st.Payments))
}
