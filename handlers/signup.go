package handlers

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/views"
)

// signupPages are the sign-up pages that render without an earlier step, for Pages().
// The others redirect to /signup until the session holds a sign-up.
func signupPages() []PageInfo {
	return []PageInfo{
		{"/signup", "新規登録", "public"},
		{"/password/reregistration", "登録のやり直し", "public"},
	}
}

// Session keys of a sign-up in progress. The session holds only what this visitor did:
// the sign-up's id, the address to show, whether this session proved the address with
// the code, and the registration answers (JSON of pay.Registration) until they are
// committed.
const (
	sessionSignupID       = "signup_id"
	sessionSignupEmail    = "signup_email"
	sessionSignupResignup = "signup_resignup"
	sessionSignupVerified = "signup_verified_id"
	// When no code was mailed (an unknown address at re-registration, an address that
	// already has an account), the code page still answers as if one had been: these
	// give that answer the real code's expiry and attempt limit.
	sessionSignupSentAt   = "signup_code_sent_at"
	sessionSignupAttempts = "signup_code_attempts"
	sessionRegistration   = "registration"
	sessionRegistered     = "registration_done"
)

var signupSessionKeys = []string{
	sessionSignupID, sessionSignupEmail, sessionSignupResignup, sessionSignupVerified,
	sessionSignupSentAt, sessionSignupAttempts, sessionRegistration, sessionRegistered,
}

// clearSignup forgets the sign-up and the registration answers: entering /signup again
// leaves the create workflow (SPEC.md §2). /signin destroys the whole session anyway.
func (a *App) clearSignup(c *echo.Context) {
	ctx := c.Request().Context()
	for _, k := range signupSessionKeys {
		a.Sessions.Remove(ctx, k)
	}
}

// startSignupCode puts a sign-up waiting for its code in a fresh session token. id is 0
// when re-registration found no unfinished sign-up: the visitor is not told.
func (a *App) startSignupCode(c *echo.Context, id int64, email string, resignup bool) error {
	ctx := c.Request().Context()
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	a.clearSignup(c)
	a.Sessions.Put(ctx, sessionSignupID, id)
	a.Sessions.Put(ctx, sessionSignupEmail, email)
	a.Sessions.Put(ctx, sessionSignupResignup, resignup)
	a.codeSent(c)
	return nil
}

func (a *App) showSignupPage(c *echo.Context) error {
	a.clearSignup(c)
	return a.renderSignup(c, views.SignupView{}, nil)
}

func (a *App) renderSignup(c *echo.Context, v views.SignupView, errs views.FieldErrors) error {
	b, err := a.base(c, "新規登録")
	if err != nil {
		return err
	}
	b.Errors = errs
	v.Base = b
	return render(c, statusFor(b), views.SignupPage(v))
}

// signUp checks the form and mails the code. An address that already has an account
// gets a mail saying so instead, and this visitor the very same next page.
func (a *App) signUp(c *echo.Context) error {
	email := c.FormValue("email_address")
	consent := c.FormValue("consent") != ""
	id, errs, err := a.Account.StartSignup(c.Request().Context(), email, c.FormValue("password"), consent)
	if err != nil {
		return err
	}
	shown, _ := pay.ValidateEmail(email)
	if len(errs) > 0 {
		return a.renderSignup(c, views.SignupView{EmailAddress: shown, Consent: consent}, signupViewErrors(errs))
	}
	if err := a.startSignupCode(c, id, shown, false); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/signup/code")
}

// signupViewErrors turns the account rules' field errors into the page's.
func signupViewErrors(errs pay.FieldErrors) views.FieldErrors {
	out := make(views.FieldErrors, 0, len(errs))
	for _, e := range errs {
		out.Add(e.Field, e.Message)
	}
	return out
}

// shownValue is a value typed into a form as it can be shown back: valid UTF-8.
func shownValue(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}
