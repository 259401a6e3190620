package signin

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/signin"
)

// OnetimePasswordPage asks for the second factor after the password.
var OnetimePasswordPage = web.Page{Path: "/onetime-password", Title: "ワンタイムパスワードの入力", Access: web.Public}

// Session keys of a sign-in that passed the password and waits for its second factor.
const (
	sessionPendingUserID   = "pending_user_id"
	sessionPendingBuyerID  = "pending_buyer_id"
	sessionPendingRedirect = "pending_redirect"
)

// startSecondFactor keeps the half-signed-in user in the session (not signed in yet)
// and sends them to /onetime-password.
func (h *Handler) startSecondFactor(c *echo.Context, u store.User, redirect string) error {
	ctx := c.Request().Context()
	if err := h.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	h.Sessions.Put(ctx, sessionPendingUserID, u.ID)
	h.Sessions.Put(ctx, sessionPendingBuyerID, u.BuyerID)
	h.Sessions.Put(ctx, sessionPendingRedirect, redirect)
	return c.Redirect(http.StatusSeeOther, OnetimePasswordPage.Path)
}

// pendingUser is the user waiting for the second factor, or ErrNotFound.
func (h *Handler) pendingUser(c *echo.Context) (store.User, error) {
	ctx := c.Request().Context()
	uid := h.Sessions.GetInt64(ctx, sessionPendingUserID)
	bid := h.Sessions.GetInt64(ctx, sessionPendingBuyerID)
	if uid == 0 || bid == 0 {
		return store.User{}, store.ErrNotFound
	}
	return h.Store.User(ctx, bid, uid)
}

// ShowOnetimePasswordPage asks for the code; without a pending sign-in it goes back to
// the sign-in form.
func (h *Handler) ShowOnetimePasswordPage(c *echo.Context) error {
	u, err := h.pendingUser(c)
	if errors.Is(err, store.ErrNotFound) {
		return c.Redirect(http.StatusSeeOther, SignInPage.Path)
	}
	if err != nil {
		return err
	}
	return h.renderOnetimePassword(c, u, nil)
}

func (h *Handler) renderOnetimePassword(c *echo.Context, u store.User, errs pay.FieldErrors) error {
	return web.Show(h.App, c, OnetimePasswordPage.Title, errs, pages.OnetimePasswordView{
		Method: u.TwoFactorMethod, EmailAddress: u.EmailAddress,
	}, pages.OnetimePasswordPage)
}

// VerifyOnetimePassword completes the sign-in: the session token is renewed again
// because the privilege changed.
func (h *Handler) VerifyOnetimePassword(c *echo.Context) error {
	ctx := c.Request().Context()
	u, err := h.pendingUser(c)
	if errors.Is(err, store.ErrNotFound) {
		return c.Redirect(http.StatusSeeOther, SignInPage.Path)
	}
	if err != nil {
		return err
	}
	var errs pay.FieldErrors
	code := c.FormValue("code")
	if code == "" {
		errs.Add("code", "確認コードを入力してください")
		return h.renderOnetimePassword(c, u, errs)
	}
	res, err := h.Account.VerifySecondFactor(ctx, u, code, web.ClientOf(c))
	if web.Refused(c, &errs, "code", err) {
		return h.renderOnetimePassword(c, u, errs)
	}
	if err != nil {
		return err
	}
	redirect, ok := web.SafeRedirect(h.Sessions.GetString(ctx, sessionPendingRedirect))
	if !ok {
		redirect = links.TopPage
	}
	for _, k := range []string{sessionPendingUserID, sessionPendingBuyerID, sessionPendingRedirect} {
		h.Sessions.Remove(ctx, k)
	}
	if err := h.StartSession(c, res); err != nil {
		return err
	}
	h.SetFlash(c, views.Flash{Color: "success", Title: "ログインしました", Text: u.DisplayName() + " さま、ようこそ。"})
	return c.Redirect(http.StatusSeeOther, redirect)
}

// ResendOnetimePasswordPath is where the one-time password page asks for a new code.
const ResendOnetimePasswordPath = "/onetime-password/resend"

// ResendOnetimePassword mails a new code (mail method only).
func (h *Handler) ResendOnetimePassword(c *echo.Context) error {
	u, err := h.pendingUser(c)
	if errors.Is(err, store.ErrNotFound) {
		return c.Redirect(http.StatusSeeOther, SignInPage.Path)
	}
	if err != nil {
		return err
	}
	if u.TwoFactorMethod == account.SecondFactorEmail {
		err := h.Account.SendSignInCode(c.Request().Context(), u)
		var errs pay.FieldErrors
		if web.Refused(c, &errs, "code", err) {
			return h.renderOnetimePassword(c, u, errs)
		}
		if err != nil {
			return err
		}
		h.SetFlash(c, views.Flash{Color: "info", Title: "確認コードを再送信しました"})
	}
	return c.Redirect(http.StatusSeeOther, OnetimePasswordPage.Path)
}
