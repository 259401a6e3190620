package web

import (
	"github.com/labstack/echo/v5"
)

// The sign-up in progress lives in the session. Two areas start it: /signup (signup) and
// /password/reregistration (password), and both continue at /signup/code, so its state
// is kept here rather than in either.

// Session keys of a sign-up in progress. The session holds only what this visitor did:
// the sign-up's id, the address to show, whether this session proved the address with
// the code, and the registration answers (JSON of account.Registration) until they are
// committed.
const (
	SessionSignupID       = "signup_id"
	SessionSignupEmail    = "signup_email"
	SessionSignupResignup = "signup_resignup"
	SessionSignupVerified = "signup_verified_id"
	// When no code was mailed (an unknown address at re-registration, an address that
	// already has an account), the code page still answers as if one had been: this
	// gives that answer the real code's expiry, and (with the address) keys its attempt
	// count (account.CountDecoyAttempt).
	SessionSignupSentAt = "signup_code_sent_at"
	SessionRegistration = "registration"
	SessionRegistered   = "registration_done"
	// SessionRegisteredHeld: the registered account waits for the operators' review.
	SessionRegisteredHeld = "registration_held"
)

var signupSessionKeys = []string{
	SessionSignupID, SessionSignupEmail, SessionSignupResignup, SessionSignupVerified,
	SessionSignupSentAt, SessionRegistration, SessionRegistered, SessionRegisteredHeld,
}

// SignupInSession is the sign-up this visitor started: ID is 0 when re-registration
// found none, which the pages never reveal.
type SignupInSession struct {
	ID       int64
	Email    string
	Resignup bool
}

// SignupFromSession is the sign-up waiting for its code, if any.
func (a *App) SignupFromSession(c *echo.Context) (SignupInSession, bool) {
	ctx := c.Request().Context()
	s := SignupInSession{
		ID:       a.Sessions.GetInt64(ctx, SessionSignupID),
		Email:    a.Sessions.GetString(ctx, SessionSignupEmail),
		Resignup: a.Sessions.GetBool(ctx, SessionSignupResignup),
	}
	return s, s.Email != ""
}

// ClearSignup forgets the sign-up and the registration answers: entering /signup again
// leaves the create workflow (SPEC.md §2). /signin destroys the whole session anyway.
func (a *App) ClearSignup(c *echo.Context) {
	ctx := c.Request().Context()
	for _, k := range signupSessionKeys {
		a.Sessions.Remove(ctx, k)
	}
}

// StartSignupCode puts a sign-up waiting for its code in a fresh session token. id is 0
// when re-registration found no unfinished sign-up: the visitor is not told.
func (a *App) StartSignupCode(c *echo.Context, id int64, email string, resignup bool) error {
	ctx := c.Request().Context()
	if err := a.Sessions.RenewToken(ctx); err != nil {
		return err
	}
	a.ClearSignup(c)
	a.Sessions.Put(ctx, SessionSignupID, id)
	a.Sessions.Put(ctx, SessionSignupEmail, email)
	a.Sessions.Put(ctx, SessionSignupResignup, resignup)
	a.SignupCodeSent(c)
	return nil
}

// SignupCodeSent starts the stand-in expiry and attempt count for a code just (or
// seemingly) mailed.
func (a *App) SignupCodeSent(c *echo.Context) {
	ctx := c.Request().Context()
	a.Sessions.Put(ctx, SessionSignupSentAt, a.Now().Unix())
}
