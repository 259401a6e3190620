package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
)

// signupInSession is the sign-up this visitor started: ID is 0 when re-registration
// found none, which the pages never reveal.
type signupInSession struct {
	ID       int64
	Email    string
	Resignup bool
}

func (a *App) signupFromSession(c *echo.Context) (signupInSession, bool) {
	ctx := c.Request().Context()
	s := signupInSession{
		ID:       a.Sessions.GetInt64(ctx, sessionSignupID),
		Email:    a.Sessions.GetString(ctx, sessionSignupEmail),
		Resignup: a.Sessions.GetBool(ctx, sessionSignupResignup),
	}
	return s, s.Email != ""
}

func (a *App) showSignupCodePage(c *echo.Context) error {
	s, ok := a.signupFromSession(c)
	if !ok {
		return c.Redirect(http.StatusSeeOther, "/signup")
	}
	return a.renderSignupCode(c, s, nil)
}

func (a *App) renderSignupCode(c *echo.Context, s signupInSession, errs views.FieldErrors) error {
	b, err := a.base(c, "認証コードの入力")
	if err != nil {
		return err
	}
	b.Errors = errs
	return render(c, statusFor(b), views.SignupCodePage(views.SignupCodeView{Base: b, EmailAddress: s.Email, Resignup: s.Resignup}))
}

// verifySignupCode proves the address and moves on to the registration wizard, on a
// fresh session token because this session may now register an account.
func (a *App) verifySignupCode(c *echo.Context) error {
	ctx := c.Request().Context()
	s, ok := a.signupFromSession(c)
	if !ok {
		return c.Redirect(http.StatusSeeOther, "/signup")
	}
	var errs views.FieldErrors
	code := pay.NormalizeCode(c.FormValue("code"))
	if code == "" {
		errs.Add("code", "認証コードを入力してください")
		return a.renderSignupCode(c, s, errs)
	}
	msg, err := a.checkSignupCode(c, s, code)
	if errors.Is(err, store.ErrNotFound) {
		// The code was right but the sign-up was completed meanwhile.
		a.setFlash(c, views.Flash{Color: "info", Title: "この登録は既に完了しています", Text: "ご登録のメールアドレスとパスワードでログインしてください。"})
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
	if err != nil {
		return err
	}
	if msg != "" {
		errs.Add("code", msg)
		return a.renderSignupCode(c, s, errs)
	}
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	a.Sessions.Put(ctx, sessionSignupVerified, s.ID)
	a.Sessions.Remove(ctx, sessionSignupSentAt)
	a.Sessions.Remove(ctx, sessionSignupAttempts)
	a.setFlash(c, views.Flash{Color: "success", Title: "メールアドレスを確認しました", Text: "続けて利用者情報を登録してください。"})
	return c.Redirect(http.StatusSeeOther, "/registration")
}

// checkSignupCode answers "" when code confirms the sign-up, or the message for the
// person. Where no code was mailed, the answer is the one a wrong code gets, with the
// same expiry and attempt limit as a mailed code, so the page never tells whether the
// address has an unfinished sign-up or an account.
func (a *App) checkSignupCode(c *echo.Context, s signupInSession, code string) (string, error) {
	ctx := c.Request().Context()
	if s.ID != 0 {
		_, err := a.Store.LatestCode(ctx, store.PurposeSignup, strconv.FormatInt(s.ID, 10))
		switch {
		case err == nil:
			err := a.Account.VerifySignupCode(ctx, s.ID, code)
			if r, ok := account.AsRefusal(err); ok {
				return codeMessage(r.Message), nil
			}
			return "", err
		case !errors.Is(err, store.ErrNotFound):
			return "", err
		}
	}
	sent := time.Unix(a.Sessions.GetInt64(ctx, sessionSignupSentAt), 0)
	attempts := a.Sessions.GetInt(ctx, sessionSignupAttempts)
	var res auth.CodeResult
	switch {
	case !a.now().Before(sent.Add(auth.CodeTTL)):
		res = auth.CodeExpired
	case attempts >= auth.CodeMaxAttempts:
		res = auth.CodeTooManyAttempts
	default:
		a.Sessions.Put(ctx, sessionSignupAttempts, attempts+1)
		res = auth.CodeWrong
	}
	return codeMessage(res.Message()), nil
}

// codeMessage words the code rules' messages the way the sign-up mail and page name the
// code: 認証コード.
func codeMessage(m string) string {
	return strings.ReplaceAll(m, "確認コード", "認証コード")
}

// codeSent starts the stand-in expiry and attempt count for a code just (or
// seemingly) mailed.
func (a *App) codeSent(c *echo.Context) {
	ctx := c.Request().Context()
	a.Sessions.Put(ctx, sessionSignupSentAt, a.now().Unix())
	a.Sessions.Put(ctx, sessionSignupAttempts, 0)
}

// resendSignupCode mails a new code; with no sign-up behind the page it only says so.
func (a *App) resendSignupCode(c *echo.Context) error {
	s, ok := a.signupFromSession(c)
	if !ok {
		return c.Redirect(http.StatusSeeOther, "/signup")
	}
	if s.ID != 0 {
		err := a.Account.SendSignupCode(c.Request().Context(), s.ID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	a.codeSent(c)
	a.setFlash(c, views.Flash{Color: "info", Title: "認証コードを再送信しました", Text: "新しいコードを入力してください。以前のコードは使えません。"})
	return c.Redirect(http.StatusSeeOther, "/signup/code")
}
