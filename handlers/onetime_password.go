package handlers

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/store"
	"cardpay/views"
)

// Session keys of a sign-in that passed the password and waits for its second factor.
const (
	sessionPendingUserID   = "pending_user_id"
	sessionPendingBuyerID  = "pending_buyer_id"
	sessionPendingRedirect = "pending_redirect"
)

// startSecondFactor keeps the half-signed-in user in the session (not signed in yet)
// and sends them to /onetime-password.
func (a *App) startSecondFactor(c *echo.Context, u store.User, redirect string) error {
	ctx := c.Request().Context()
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	a.Sessions.Put(ctx, sessionPendingUserID, u.ID)
	a.Sessions.Put(ctx, sessionPendingBuyerID, u.BuyerID)
	a.Sessions.Put(ctx, sessionPendingRedirect, redirect)
	return c.Redirect(http.StatusSeeOther, "/onetime-password")
}

// pendingUser is the user waiting for the second factor, or ErrNotFound.
func (a *App) pendingUser(c *echo.Context) (store.User, error) {
	ctx := c.Request().Context()
	uid := a.Sessions.GetInt64(ctx, sessionPendingUserID)
	bid := a.Sessions.GetInt64(ctx, sessionPendingBuyerID)
	if uid == 0 || bid == 0 {
		return store.User{}, store.ErrNotFound
	}
	return a.Store.User(ctx, bid, uid)
}

func (a *App) showOnetimePasswordPage(c *echo.Context) error {
	u, err := a.pendingUser(c)
	if errors.Is(err, store.ErrNotFound) {
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
	if err != nil {
		return err
	}
	return a.renderOnetimePassword(c, u, nil)
}

func (a *App) renderOnetimePassword(c *echo.Context, u store.User, errs views.FieldErrors) error {
	b, err := a.base(c, "ワンタイムパスワードの入力")
	if err != nil {
		return err
	}
	b.Errors = errs
	return render(c, statusFor(b), views.OnetimePasswordPage(views.OnetimePasswordView{
		Base: b, Method: u.TwoFactorMethod, EmailAddress: u.EmailAddress,
	}))
}

// verifyOnetimePassword completes the sign-in: the session token is renewed again
// because the privilege changed.
func (a *App) verifyOnetimePassword(c *echo.Context) error {
	ctx := c.Request().Context()
	u, err := a.pendingUser(c)
	if errors.Is(err, store.ErrNotFound) {
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
	if err != nil {
		return err
	}
	var errs views.FieldErrors
	code := c.FormValue("code")
	if code == "" {
		errs.Add("code", "確認コードを入力してください")
		return a.renderOnetimePassword(c, u, errs)
	}
	err = a.Account.VerifySecondFactor(ctx, u, code, c.RealIP(), c.Request().UserAgent())
	if r, ok := account.AsRefusal(err); ok {
		errs.Add("code", r.Message)
		return a.renderOnetimePassword(c, u, errs)
	}
	if err != nil {
		return err
	}
	redirect, ok := safeRedirect(a.Sessions.GetString(ctx, sessionPendingRedirect))
	if !ok {
		redirect = "/toppage"
	}
	for _, k := range []string{sessionPendingUserID, sessionPendingBuyerID, sessionPendingRedirect} {
		a.Sessions.Remove(ctx, k)
	}
	if err := a.startSession(c, u); err != nil {
		return err
	}
	a.setFlash(c, views.Flash{Color: "success", Title: "ログインしました", Text: u.DisplayName() + " さま、ようこそ。"})
	return c.Redirect(http.StatusSeeOther, redirect)
}

// resendOnetimePassword mails a new code (mail method only).
func (a *App) resendOnetimePassword(c *echo.Context) error {
	u, err := a.pendingUser(c)
	if errors.Is(err, store.ErrNotFound) {
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
	if err != nil {
		return err
	}
	if u.TwoFactorMethod == account.SecondFactorEmail {
		if err := a.Account.SendSignInCode(c.Request().Context(), u); err != nil {
			return err
		}
		a.setFlash(c, views.Flash{Color: "info", Title: "確認コードを再送信しました"})
	}
	return c.Redirect(http.StatusSeeOther, "/onetime-password")
}
