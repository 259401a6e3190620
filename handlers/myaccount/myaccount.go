// Package myaccount is the area of /myaccount: how the signed-in user signs in (e-mail
// address, password, second factor), the buyer's registered details, the sign-in
// history, and the saved cards (お支払い方法).
package myaccount

import (
	"errors"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	pages "cardpay/views/myaccount"
)

// Handler serves the my-account pages.
type Handler struct {
	*web.App
}

// Session keys of the account flows (SPEC.md §3 keeps these in session storage: the
// pending e-mail edit, the two-factor set-up).
const (
	sessionEmailChange    = "email_change_address"
	sessionPendingTOTP    = "two_factor_totp_sealed"
	sessionPendingMail2FA = "two_factor_email_pending"
	sessionRecoveryCodes  = "two_factor_recovery_codes_sealed"
)

// reloadUser reads the signed-in user again after a change, for the renewed session
// and the next page.
func (h *Handler) reloadUser(c *echo.Context) (store.User, error) {
	u := web.CurrentUser(c)
	return h.Store.User(c.Request().Context(), u.BuyerID, u.ID)
}

// MyAccountPage is ログイン情報.
var MyAccountPage = web.Page{Path: "/myaccount", Title: "ログイン情報", Access: web.SignedIn}

// ShowMyAccountPage is ログイン情報.
func (h *Handler) ShowMyAccountPage(c *echo.Context) error {
	u := web.CurrentUser(c)
	terms := "未同意"
	if u.TermsVersion > 0 {
		terms = "第" + strconv.Itoa(u.TermsVersion) + "版に同意済み"
		// The date is known for acceptances since the record began (migration 00027).
		a, err := h.Store.TermsAcceptance(c.Request().Context(), u.BuyerID, u.ID, u.TermsVersion)
		switch {
		case err == nil:
			terms += "（" + pay.JapaneseDate(a.AcceptedAt) + "）"
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
	}
	if account.NeedsTerms(*u) {
		terms += "（最新は第" + strconv.Itoa(account.TermsVersion) + "版です）"
	}
	return web.Show(h.App, c, MyAccountPage.Title, nil, pages.MyAccountView{
		EmailAddress: u.EmailAddress, TwoFactorLabel: account.TwoFactorLabel(u.TwoFactorMethod),
		TermsAccepted: terms, TermsOutdated: account.NeedsTerms(*u),
	}, pages.MyAccountPage)
}
