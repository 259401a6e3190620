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
	Mail     mail.Sender
	Codes    auth.Codes
	Sealer   auth.Sealer
	Throttle auth.Throttle
	// Limits are the rate limiter's rules (nil: DefaultLimits).
	Limits Limits
	// DeviceKey signs the device tokens (auth.DeriveKey of SECRET_KEY).
	DeviceKey   []byte
	ServiceName string
	// BaseURL is the service's public origin, for the links in notification mails.
	BaseURL string
	Now     func() time.Time
	// Corporations confirms a registering corporation's number in the 法人番号
	// registry (nil: the corporations table only).
	Corporations *Corporations
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
	// RetryAfter is set when the refusal is a throttle's (a lock, a wait): the answer is
	// 429 with Retry-After.
	RetryAfter time.Duration
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
	// DeviceToken is the device token to hand to the client once fully signed in (the
	// one it presented, or a new one for an unknown device); DeviceID is its row.
	DeviceToken string
	DeviceID    int64
	// FactorGiven: the sign-in passed its second factor just now, which counts for a
	// step-up (StepUpWindow) once the session exists (MarkFactor).
	FactorGiven bool
}

// SignIn checks the password under the rate limiter and the throttle (auth.Throttle: a
// growing delay after 3 failures, a 15-minute lock after 10), counted for the client's
// known device, or for every unknown device of the address together. An unknown address
// is counted, limited and answered exactly like a known one. With two-factor on, it
// mails a code (or expects an authenticator code) and the caller must call
// VerifySecondFactor.
func (s *Service) SignIn(ctx context.Context, email, password string, cl Client) (SignInResult, error) {
	u, err := s.Store.UserByEmail(ctx, email)
	found := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return SignInResult{}, err
	}
	var deviceID int64
	if found {
		if deviceID, err = s.knownDevice(ctx, u.ID, cl.DeviceToken); err != nil {
			return SignInResult{}, err
		}
	}
	// The per-address limit is for unknown devices only: the owner's own browser is
	// never kept out by what others send.
	target := email
	if deviceID != 0 {
		target = ""
	}
	if err := s.Limit(ctx, ActSignIn, cl.IP, target); err != nil {
		return SignInResult{}, err
	}
	key := throttleKey(email, deviceID)
	if err := s.allowed(ctx, key, "email_address"); err != nil {
		return SignInResult{}, err
	}
	if !found {
		auth.CheckNothing(password)
		return SignInResult{}, s.failed(ctx, nil, key, cl, badCredentials)
	}
	if auth.CheckPassword(u.PasswordHash, password) != nil {
		return SignInResult{}, s.failed(ctx, &u, key, cl, badCredentials)
	}
	if u.TwoFactorMethod == SecondFactorEmail {
		if err := s.SendSignInCode(ctx, u); err != nil {
			return SignInResult{}, err
		}
	}
	if u.TwoFactorMethod != SecondFactorNone {
		return SignInResult{User: u, SecondFactor: u.TwoFactorMethod, DeviceID: deviceID}, nil
	}
	return s.succeeded(ctx, u, key, deviceID, cl)
}

// succeeded clears key's failures, makes the device known and records the sign-in.
func (s *Service) succeeded(ctx context.Context, u store.User, key string, deviceID int64, cl Client) (SignInResult, error) {
	if err := s.Store.ClearSignInFailures(ctx, key); err != nil {
		return SignInResult{}, err
	}
	token, id, err := s.rememberDevice(ctx, u.ID, deviceID, cl.DeviceToken)
	if err != nil {
		return SignInResult{}, err
	}
	if err := s.Store.AddSignInEvent(ctx, u.ID, true, cl.IP, cl.UserAgent); err != nil {
		return SignInResult{}, err
	}
	return SignInResult{User: u, DeviceToken: token, DeviceID: id}, nil
}

// SendSignInCode mails a fresh sign-in code; the previous one stops working.
func (s *Service) SendSignInCode(ctx context.Context, u store.User) error {
	if err := s.LimitCaller(ctx, ActTwoFactor, strconv.FormatInt(u.ID, 10)); err != nil {
		return err
	}
	return s.sendCode(ctx, store.PurposeSignIn, strconv.FormatInt(u.ID, 10), "", mailAlways, func(code string) mail.Message {
		return mail.SignInCode(u.EmailAddress, s.ServiceName, code, auth.CodeTTL)
	})
}

// VerifySecondFactor checks the mailed code, or the authenticator code (or one of the
// recovery codes) for TOTP users, under the rate limiter. Wrong codes count towards the
// sign-in throttle of the same device (or of the address's unknown devices).
func (s *Service) VerifySecondFactor(ctx context.Context, u store.User, input string, cl Client) (SignInResult, error) {
	if err := s.Limit(ctx, ActTwoFactor, cl.IP, strconv.FormatInt(u.ID, 10)); err != nil {
		return SignInResult{}, err
	}
	deviceID, err := s.knownDevice(ctx, u.ID, cl.DeviceToken)
	if err != nil {
		return SignInResult{}, err
	}
	key := throttleKey(u.EmailAddress, deviceID)
	if err := s.allowed(ctx, key, "code"); err != nil {
		return SignInResult{}, err
	}
	switch u.TwoFactorMethod {
	case SecondFactorEmail:
		err = s.checkCode(ctx, store.PurposeSignIn, strconv.FormatInt(u.ID, 10), input, "code")
	case SecondFactorTOTP:
		err = s.checkTOTP(ctx, u, input)
	default:
		return SignInResult{}, errors.New("account: no second factor to verify")
	}
	if r, ok := AsRefusal(err); ok {
		return SignInResult{}, s.failed(ctx, &u, key, cl, r)
	}
	if err != nil {
		return SignInResult{}, err
	}
	res, err := s.succeeded(ctx, u, key, deviceID, cl)
	res.FactorGiven = err == nil
	return res, err
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

// checkCode applies auth.CheckCode to the newest code for (purpose, subject), counting
// the attempt and using the code up on success (useLatestCode).
func (s *Service) checkCode(ctx context.Context, purpose, subject, input, field string) error {
	_, err := s.useLatestCode(ctx, purpose, subject, input, field)
	return err
}
