// Package account holds the account rules that the pages and the JSON API share:
// signing in (with throttling and two-factor), and later sign-up, registration and
// credential changes. Handlers stay thin adapters around it.
package account

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"cardpay/auth"
	"cardpay/mail"
	"cardpay/store"
)

// Service carries the account rules' dependencies.
type Service struct {
	Store *store.Store
	// Mail sends from the mail job (DeliverMail); requests only enqueue their mails.
	Mail        mail.Sender
	Codes       auth.Codes
	Sealer      auth.Sealer
	Throttle    auth.Throttle
	ServiceName string
	// BaseURL is the service's public origin, for the links in notification mails.
	BaseURL string
	Now     func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Refusal is an expected "no" with a message for the person; handlers show it next to
// the field and change nothing.
type Refusal struct {
	Field   string
	Message string
}

func (r *Refusal) Error() string { return r.Message }

// AsRefusal unwraps a Refusal.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

// badCredentials is the one answer for an unknown address and a wrong password, so the
// answer does not tell which addresses have accounts.
var badCredentials = &Refusal{Field: "email_address", Message: "メールアドレスまたはパスワードが正しくありません"}

// Second factors.
const (
	SecondFactorNone  = ""
	SecondFactorEmail = "email"
	SecondFactorTOTP  = "totp"
)

// SignInResult says who signed in and whether a second factor is still needed.
type SignInResult struct {
	User         store.User
	SecondFactor string
}

// SignIn checks the password under the throttle (auth.DefaultThrottle: a growing delay
// after 3 failures, a 15-minute lock after 10). With two-factor on, it mails a code
// (or expects an authenticator code) and the caller must call VerifySecondFactor.
func (s *Service) SignIn(ctx context.Context, email, password, ip, userAgent string) (SignInResult, error) {
	u, err := s.Store.UserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		auth.CheckNothing(password)
		return SignInResult{}, badCredentials
	}
	if err != nil {
		return SignInResult{}, err
	}
	if err := s.allowed(u); err != nil {
		return SignInResult{}, err
	}
	if auth.CheckPassword(u.PasswordHash, password) != nil {
		return SignInResult{}, s.failed(ctx, u, ip, userAgent, badCredentials)
	}
	if u.TwoFactorMethod == SecondFactorEmail {
		if err := s.SendSignInCode(ctx, u); err != nil {
			return SignInResult{}, err
		}
	}
	if u.TwoFactorMethod != SecondFactorNone {
		return SignInResult{User: u, SecondFactor: u.TwoFactorMethod}, nil
	}
	return SignInResult{User: u}, s.succeeded(ctx, u, ip, userAgent)
}

func (s *Service) allowed(u store.User) error {
	var last time.Time
	if u.LastFailedAt != nil {
		last = *u.LastFailedAt
	}
	d := s.Throttle.Decide(u.FailedSignIns, last, u.LockedUntil, s.now())
	switch {
	case d.Locked:
		return &Refusal{Field: "email_address", Message: auth.LockedMessage(d.Until)}
	case !d.Allowed:
		return &Refusal{Field: "email_address", Message: auth.SlowDownMessage(d.RetryAfter)}
	}
	return nil
}

// failed counts a failure towards the throttle, records it, mails the owner when this
// failure locked the account, and returns the refusal to show (the lock message if it
// just locked).
func (s *Service) failed(ctx context.Context, u store.User, ip, userAgent string, r *Refusal) error {
	now := s.now()
	n, lock := s.Throttle.AfterFailure(u.FailedSignIns, now)
	var notices []store.NewJob
	if lock != nil {
		j, err := s.notice(mail.AccountLocked(u.EmailAddress, s.ServiceName, *lock))
		if err != nil {
			return err
		}
		notices = append(notices, j)
	}
	if err := s.Store.RecordSignInFailure(ctx, u.ID, n, now, lock, notices...); err != nil {
		return err
	}
	if err := s.Store.AddSignInEvent(ctx, u.ID, false, ip, userAgent); err != nil {
		return err
	}
	if lock != nil {
		return &Refusal{Field: r.Field, Message: auth.LockedMessage(*lock)}
	}
	return r
}

func (s *Service) succeeded(ctx context.Context, u store.User, ip, userAgent string) error {
	if err := s.Store.ResetSignInFailures(ctx, u.ID); err != nil {
		return err
	}
	return s.Store.AddSignInEvent(ctx, u.ID, true, ip, userAgent)
}

// SendSignInCode mails a fresh sign-in code; the previous one stops working.
func (s *Service) SendSignInCode(ctx context.Context, u store.User) error {
	return s.sendCode(ctx, store.PurposeSignIn, strconv.FormatInt(u.ID, 10), "", mailAlways, func(code string) mail.Message {
		return mail.SignInCode(u.EmailAddress, s.ServiceName, code, auth.CodeTTL)
	})
}

// VerifySecondFactor checks the mailed code, or the authenticator code (or one of the
// recovery codes) for TOTP users. Wrong codes count towards the sign-in throttle too.
func (s *Service) VerifySecondFactor(ctx context.Context, u store.User, input, ip, userAgent string) error {
	if err := s.allowed(u); err != nil {
		return err
	}
	var err error
	switch u.TwoFactorMethod {
	case SecondFactorEmail:
		err = s.checkCode(ctx, store.PurposeSignIn, strconv.FormatInt(u.ID, 10), input, "code")
	case SecondFactorTOTP:
		err = s.checkTOTP(ctx, u, input)
	default:
		return errors.New("account: no second factor to verify")
	}
	if r, ok := AsRefusal(err); ok {
		return s.failed(ctx, u, ip, userAgent, r)
	}
	if err != nil {
		return err
	}
	return s.succeeded(ctx, u, ip, userAgent)
}

func (s *Service) checkTOTP(ctx context.Context, u store.User, input string) error {
	secret, err := s.Sealer.Open(u.TOTPSecretSealed)
	if err != nil {
		return fmt.Errorf("account: open TOTP secret of user %d: %w", u.ID, err)
	}
	if ok, step := auth.ValidateTOTP(secret, input, s.now(), u.TOTPLastStep); ok {
		if err := s.Store.UseTOTPStep(ctx, u.ID, step); errors.Is(err, store.ErrNotFound) {
			return &Refusal{Field: "code", Message: "この確認コードは使用済みです。"}
		} else if err != nil {
			return err
		}
		return nil
	}
	codes, err := s.Store.UnusedRecoveryCodes(ctx, u.ID)
	if err != nil {
		return err
	}
	hashes := make([]string, len(codes))
	for i, c := range codes {
		hashes[i] = c.CodeHash
	}
	if i, ok := auth.MatchRecoveryCode(hashes, input); ok {
		if err := s.Store.UseRecoveryCode(ctx, u.ID, codes[i].ID); errors.Is(err, store.ErrNotFound) {
			return &Refusal{Field: "code", Message: "この確認コードは使用済みです。"}
		} else if err != nil {
			return err
		}
		return nil
	}
	return &Refusal{Field: "code", Message: "確認コードが正しくありません。"}
}

// checkCode applies auth.CheckCode to the newest code for (purpose, subject), counting a
// wrong attempt and using the code up on success.
func (s *Service) checkCode(ctx context.Context, purpose, subject, input, field string) error {
	c, err := s.Store.LatestCode(ctx, purpose, subject)
	if errors.Is(err, store.ErrNotFound) {
		return &Refusal{Field: field, Message: auth.CodeWrong.Message()}
	}
	if err != nil {
		return err
	}
	res := auth.CheckCode(auth.StoredCode{Hash: c.CodeHash, ExpiresAt: c.ExpiresAt, Attempts: c.Attempts, UsedAt: c.UsedAt}, input, s.now(), s.Codes)
	switch res {
	case auth.CodeOK:
		if err := s.Store.UseCode(ctx, c.ID); errors.Is(err, store.ErrNotFound) {
			return &Refusal{Field: field, Message: auth.CodeUsed.Message()}
		} else if err != nil {
			return err
		}
		return nil
	case auth.CodeWrong:
		if err := s.Store.CountCodeAttempt(ctx, c.ID); err != nil {
			return err
		}
	}
	return &Refusal{Field: field, Message: res.Message()}
}
