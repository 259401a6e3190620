package payments

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/invoices"
	"cardpay/views"
)

// A card-payment request's mailed link (OpenRequestLink) puts its key in the server
// session (SPEC.md §2 "the pending request key", web.SetPendingRequestKey); entering the
// signed-in layout links it to the account, whether the customer was signed in already,
// signed in, or signed up and registered first. The key never goes in a cookie or a URL
// of ours after that.

// requestKeyFailedTitle is the heading of a key that could not be linked (SPEC.md §8).
const requestKeyFailedTitle = invoices.MsgKeyFailedTitle

// requestPayPath is where a linked request is paid (RequestPayPattern).
func requestPayPath(invoiceID int64) string {
	return fmt.Sprintf("%s/%d/creditcard", waitingPath, invoiceID)
}

// LinkPendingRequest links the pending request key, if any, when a signed-in page is
// opened (after RequireSignIn): the customer goes to the request's creditcard page, or
// sees why it could not be linked — the server's message for a refusal of status "2",
// the default text otherwise (SPEC.md §8). The key is used once either way.
func (h *Handler) LinkPendingRequest(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		u := web.CurrentUser(c)
		if u == nil || c.Request().Method != http.MethodGet || h.Requests == nil {
			return next(c)
		}
		ctx := c.Request().Context()
		key := h.PopPendingRequestKey(c)
		if key == "" {
			return next(c)
		}
		// Every key checked is counted (account.ActRequestKey): a scanner of keys meets
		// the limit before the keys' own miss rule matters.
		if err := h.Account.LimitBuyer(ctx, account.ActRequestKey, u.BuyerID); err != nil {
			if l, ok := account.AsLimited(err); ok {
				web.TooMany(c, l.RetryAfterSeconds())
				return h.renderRequestKeyFailed(c, l.Message())
			}
			return err
		}
		b, err := h.Store.Buyer(ctx, u.BuyerID)
		if err != nil {
			return err
		}
		id, err := h.Requests.LinkRequestKey(ctx, b, key)
		var kr *invoices.KeyRefusal
		if errors.As(err, &kr) {
			msg := invoices.MsgKeyFailed
			if kr.Status == "2" {
				msg = kr.Message
			}
			return h.renderRequestKeyFailed(c, msg)
		}
		if err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, requestPayPath(id))
	}
}

// renderRequestKeyFailed is the refusal as a dialog over the signed-in layout: an open
// <dialog> reads the same with or without JavaScript.
func (h *Handler) renderRequestKeyFailed(c *echo.Context, message string) error {
	b, err := h.Base(c, requestKeyFailedTitle)
	if err != nil {
		return err
	}
	return web.Render(c, http.StatusBadRequest, views.RequestKeyFailedPage(views.RequestKeyFailedView{Base: b, Heading: requestKeyFailedTitle, Message: message}))
}
