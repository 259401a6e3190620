package signup

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/signup"
)

// SignupCodePath is the page that asks for the code mailed at sign-up, and where it
// posts.
const SignupCodePath = links.SignupCode

// ShowSignupCodePage asks for the code mailed for the sign-up in this session.
func (h *Handler) ShowSignupCodePage(c *echo.Context) error {
	s, ok := h.SignupFromSession(c)
	if !ok {
		return c.Redirect(http.StatusSeeOther, SignupPage.Path)
	}
	return h.renderSignupCode(c, s, nil)
}

func (h *Handler) renderSignupCode(c *echo.Context, s web.SignupInSession, errs pay.FieldErrors) error {
	return web.Show(h.App, c, "認証コードの入力", errs, pages.SignupCodeView{EmailAddress: s.Email, Resignup: s.Resignup}, pages.SignupCodePage)
}

// VerifySignupCode proves the address and moves on to the registration wizard, on a
// fresh session token because this session may now register an account.
func (h *Handler) VerifySignupCode(c *echo.Context) error {
	ctx := c.Request().Context()
	s, ok := h.SignupFromSession(c)
	if !ok {
		return c.Redirect(http.StatusSeeOther, SignupPage.Path)
	}
	var errs pay.FieldErrors
	code := pay.NormalizeCode(c.FormValue("code"))
	if code == "" {
		errs.Add("code", "認証コードを入力してください")
		return h.renderSignupCode(c, s, errs)
	}
	msg, err := h.checkSignupCode(c, s, code)
	if errors.Is(err, store.ErrNotFound) {
		// The code was right but the sign-up was completed meanwhile.
		h.SetFlash(c, views.Flash{Color: "info", Title: "この登録は既に完了しています", Text: "ご登録のメールアドレスとパスワードでログインしてください。"})
		return c.Redirect(http.StatusSeeOther, links.SignIn)
	}
	if err != nil {
		return err
	}
	if msg != "" {
		errs.Add("code", msg)
		return h.renderSignupCode(c, s, errs)
	}
	if err := h.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	h.Sessions.Put(ctx, web.SessionSignupVerified, s.ID)
	h.Sessions.Remove(ctx, web.SessionSignupSentAt)
	h.SetFlash(c, views.Flash{Color: "success", Title: "メールアドレスを確認しました", Text: "続けて利用者情報を登録してください。"})
	return c.Redirect(http.StatusSeeOther, RegistrationPath)
}

// checkSignupCode answers "" when code confirms the sign-up, or the message for the
// person. Where no code was mailed, the answer is the one a wrong code gets, with the
// same expiry and attempt limit as a mailed code, so the page never tells whether the
// address has an unfinished sign-up or an account.
func (h *Handler) checkSignupCode(c *echo.Context, s web.SignupInSession, code string) (string, error) {
	ctx := c.Request().Context()
	if s.ID != 0 {
		_, err := h.Store.LatestCode(ctx, store.PurposeSignup, strconv.FormatInt(s.ID, 10))
		switch {
		case err == nil:
			err := h.Account.VerifySignupCode(ctx, s.ID, code)
			var errs pay.FieldErrors
			if web.Refused(c, &errs, "code", err) {
				return codeMessage(errs[0].Message), nil
			}
			return "", err
		case !errors.Is(err, store.ErrNotFound):
			return "", err
		}
	}
	// No sign-up behind the page: the same limit as a real one, on the typed address.
	err := h.Account.LimitCaller(ctx, account.ActCode, "signup:0:"+s.Email)
	var errs pay.FieldErrors
	if web.Refused(c, &errs, "code", err) {
		return codeMessage(errs[0].Message), nil
	} else if err != nil {
		return "", err
	}
	sent := time.Unix(h.Sessions.GetInt64(ctx, web.SessionSignupSentAt), 0)
	var res auth.CodeResult
	if !h.Now().Before(sent.Add(auth.CodeTTL)) {
		res = auth.CodeExpired
	} else {
		// Counted in the database in one statement, like a real code's entries: a
		// count in the session would let parallel entries all read the same number,
		// and the answers would then tell this page from a real one.
		counted, err := h.Account.CountDecoyAttempt(ctx, "signup:"+s.Email, sent)
		if err != nil {
			return "", err
		}
		res = auth.CodeWrong
		if !counted {
			res = auth.CodeTooManyAttempts
		}
	}
	return codeMessage(res.Message()), nil
}

// codeMessage words the code rules' messages the way the sign-up mail and page name the
// code: 認証コード.
func codeMessage(m string) string {
	return strings.ReplaceAll(m, "確認コード", "認証コード")
}

// ResendSignupCodePath is where the code page asks for a new code.
const ResendSignupCodePath = SignupCodePath + "/resend"

// ResendSignupCode mails a new code. With no sign-up behind the page (a re-registration
// of an address that had none, id 0) the account service does the same work and mails
// nobody, so that neither the answer nor its timing tells the two apart.
func (h *Handler) ResendSignupCode(c *echo.Context) error {
	s, ok := h.SignupFromSession(c)
	if !ok {
		return c.Redirect(http.StatusSeeOther, SignupPage.Path)
	}
	err := h.Account.SendSignupCode(c.Request().Context(), s.ID, s.Email)
	var errs pay.FieldErrors
	if web.Refused(c, &errs, "code", err) {
		return web.Show(h.App, c, "認証コードの入力", errs, pages.SignupCodeView{EmailAddress: s.Email, Resignup: s.Resignup}, pages.SignupCodePage)
	}
	if err != nil {
		return err
	}
	h.SignupCodeSent(c)
	h.SetFlash(c, views.Flash{Color: "info", Title: "認証コードを再送信しました", Text: "新しいコードを入力してください。以前のコードは使えません。"})
	return c.Redirect(http.StatusSeeOther, SignupCodePath)
}
