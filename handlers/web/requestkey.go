package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/invoices"
	"cardpay/views"
)

// A card-payment request's mailed link (invoices.RequestLinkPath + key) puts its key in the
// server session (SPEC.md §2 "the pending request key"); entering the signed-in layout
// links it to the account, whether the customer was signed in already, signed in, or signed
// up and registered first. The key never goes in a cookie or a URL of ours after that.

const sessionPendingRequestKey = "pending_request_key"

// maxRequestKeyLen bounds what is kept from a link: a key is 43 characters.
const maxRequestKeyLen = 64

// SetPendingRequestKey keeps a request's key until the next signed-in page.
func (a *App) SetPendingRequestKey(c *echo.Context, key string) {
	a.Sessions.Put(c.Request().Context(), sessionPendingRequestKey, Clip(key, maxRequestKeyLen))
}

// PendingRequestKey is the key waiting to be linked ("" for none); the sign-in page,
// which starts a new session, carries it over.
func (a *App) PendingRequestKey(c *echo.Context) string {
	return a.Sessions.GetString(c.Request().Context(), sessionPendingRequestKey)
}

// RequestKeyFailedTitle is the heading of a key that could not be linked (SPEC.md §8).
const RequestKeyFailedTitle = invoices.MsgKeyFailedTitle

// RequestCreditCardPath is where a linked request is paid.
func RequestCreditCardPath(invoiceID int64) string {
	return fmt.Sprintf("/payments/waiting/%d/creditcard", invoiceID)
}

// LinkPendingRequest links the pending request key, if any, when a signed-in page is
// opened (after RequireSignIn): the customer goes to the request's creditcard page, or
// sees why it could not be linked — the server's message for a refusal of status "2",
// the default text otherwise (SPEC.md §8). The key is used once either way.
func (a *App) LinkPendingRequest(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		u := CurrentUser(c)
		if u == nil || c.Request().Method != http.MethodGet || a.Invoices == nil {
			return next(c)
		}
		ctx := c.Request().Context()
		key := a.Sessions.PopString(ctx, sessionPendingRequestKey)
		if key == "" {
			return next(c)
		}
		// Every key checked is counted (account.ActRequestKey): a scanner of keys meets
		// the limit before the keys' own miss rule matters.
		if err := a.Account.LimitBuyer(ctx, account.ActRequestKey, u.BuyerID); err != nil {
			if l, ok := account.AsLimited(err); ok {
				tooMany(c, l.RetryAfterSeconds())
				return a.renderRequestKeyFailed(c, l.Message())
			}
			return err
		}
		b, err := a.Store.Buyer(ctx, u.BuyerID)
		if err != nil {
			return err
		}
		id, err := a.Invoices.LinkRequestKey(ctx, b, key)
		var kr *invoices.KeyRefusal
		if errors.As(err, &kr) {
			msg := invoices.MsgKeyFailed
			if kr.Status == "2" {
				msg = kr.Message
			}
			return a.renderRequestKeyFailed(c, msg)
		}
		if err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, RequestCreditCardPath(id))
	}
}

// renderRequestKeyFailed is the refusal as a dialog over the signed-in layout: an open
// <dialog> reads the same with or without JavaScript.
func (a *App) renderRequestKeyFailed(c *echo.Context, message string) error {
	b, err := a.Base(c, RequestKeyFailedTitle)
	if err != nil {
		return err
	}
	return Render(c, http.StatusBadRequest, views.RequestKeyFailedPage(views.RequestKeyFailedView{Base: b, Heading: RequestKeyFailedTitle, Message: message}))
}
