package account

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"unicode/utf8"

	"cardpay/auth"
	"cardpay/pay"
	"cardpay/store"
)

// Operators sign in to the console (/ops) with an address, a password and an
// authenticator code, always all three: there is no operator without TOTP. Their
// failures count towards the same throttle as the buyers' (auth.DefaultThrottle).

// NewOperatorInput is an operator to create from the command line (the `server
// create-operator` command: the first administrator; the development demo operators).
// The console never creates one: administrators invite (operator_invites.go).
type NewOperatorInput struct {
	EmailAddress string
	Name         string
	Password     string
	Roles        []string
	// TOTPSecret, when set, is the authenticator's secret (base32) instead of a new one:
	// the development demo operators and the tests only, whose codes must be computable.
	TOTPSecret string
}

// CreatedOperator is the new operator with its authenticator's secret, shown once, on
// the terminal of whoever runs the command, to be entered in the operator's app.
type CreatedOperator struct {
	Operator   store.Operator
	TOTPSecret string
	TOTPURL    string
}

// MsgOperatorExists: the address already signs in to the console.
const MsgOperatorExists = "このメールアドレスの担当者はすでに登録されています"

// CreateOperator checks the input, hashes the password, makes the authenticator's
// secret (sealed) and stores the operator. Field errors for bad input.
func (s *Service) CreateOperator(ctx context.Context, in NewOperatorInput) (CreatedOperator, error) {
	in.EmailAddress = strings.TrimSpace(in.EmailAddress)
	in.Name = strings.TrimSpace(in.Name)
	errs := checkOperatorFields(in.EmailAddress, in.Name, in.Roles)
	if utf8.RuneCountInString(in.Password) < 12 {
		errs.Add("password", "パスワードは12文字以上にしてください")
	}
	if len(errs) > 0 {
		return CreatedOperator{}, errs
	}
	hash, err := auth.HashPassword(in.Password)
	if err != nil {
		return CreatedOperator{}, err
	}
	key, err := auth.NewTOTP(s.ServiceName+" 運用", in.EmailAddress)
	if err != nil {
		return CreatedOperator{}, err
	}
	if in.TOTPSecret != "" {
		key = auth.TOTPKey{Secret: in.TOTPSecret, URL: totpURL(s.ServiceName+" 運用", in.EmailAddress, in.TOTPSecret)}
	}
	sealed, err := s.Sealer.Seal(key.Secret)
	if err != nil {
		return CreatedOperator{}, err
	}
	o, err := s.Store.CreateOperator(ctx, store.NewOperator{EmailAddress: in.EmailAddress, Name: in.Name,
		PasswordHash: hash, TOTPSecretSealed: sealed, Roles: in.Roles})
	if errors.Is(err, store.ErrOperatorExists) {
		return CreatedOperator{}, pay.FieldErrors{{Field: "email_address", Message: MsgOperatorExists}}
	}
	if err != nil {
		return CreatedOperator{}, err
	}
	return CreatedOperator{Operator: o, TOTPSecret: key.Secret, TOTPURL: key.URL}, nil
}

// totpURL is the otpauth URI of an existing secret, for an authenticator app.
func totpURL(issuer, account, secret string) string {
	return (&url.URL{Scheme: "otpauth", Host: "totp", Path: "/" + issuer + ":" + account,
		RawQuery: url.Values{"secret": {secret}, "issuer": {issuer}}.Encode()}).String()
}

// checkOperatorFields checks an operator's address, name and roles (trimmed already).
func checkOperatorFields(email, name string, roles []string) pay.FieldErrors {
	var errs pay.FieldErrors
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email {
		errs.Add("email_address", "メールアドレスを正しく入力してください")
	}
	if name == "" || utf8.RuneCountInString(name) > 50 {
		errs.Add("name", "氏名を50文字以内で入力してください")
	}
	if len(roles) == 0 {
		errs.Add("roles", "権限を1つ以上選んでください")
	}
	for _, r := range roles {
		if pay.RoleLabel(r) == "不明" {
			errs.Add("roles", "権限を選び直してください")
			break
		}
	}
	return errs
}

// badOperatorCredentials is the one answer for an unknown address, a wrong password
// and a wrong code, so the answer tells nothing about which was wrong.
var badOperatorCredentials = &Refusal{Field: "email_address", Message: "メールアドレス、パスワードまたは確認コードが正しくありません"}

// SignInOperator checks the address, the password and the authenticator code under
// the throttle; a code is used once.
func (s *Service) SignInOperator(ctx context.Context, email, password, code string) (store.Operator, error) {
	if err := s.LimitCaller(ctx, ActSignIn, "ops:"+email); err != nil {
		return store.Operator{}, err
	}
	// An address that is no text (invalid UTF-8, NUL) belongs to nobody; PostgreSQL would
	// refuse to compare it.
	if !utf8.ValidString(email) || strings.ContainsRune(email, 0) {
		auth.CheckNothing(password)
		return store.Operator{}, badOperatorCredentials
	}
	o, err := s.Store.OperatorByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		auth.CheckNothing(password)
		return store.Operator{}, badOperatorCredentials
	}
	if err != nil {
		return store.Operator{}, err
	}
	var last = s.now()
	if o.LastFailedAt != nil {
		last = *o.LastFailedAt
	}
	d := s.Throttle.Decide(o.FailedSignIns, last, o.LockedUntil, s.now())
	switch {
	case d.Locked:
		return store.Operator{}, &Refusal{Field: "email_address", Message: auth.LockedMessage(d.Until)}
	case !d.Allowed:
		return store.Operator{}, &Refusal{Field: "email_address", Message: auth.SlowDownMessage(d.RetryAfter)}
	}
	fail := func() (store.Operator, error) {
		n, lock := s.Throttle.AfterFailure(o.FailedSignIns, s.now())
		if err := s.Store.RecordOperatorFailure(ctx, o.ID, n, s.now(), lock); err != nil {
			return store.Operator{}, err
		}
		if lock != nil {
			return store.Operator{}, &Refusal{Field: "email_address", Message: auth.LockedMessage(*lock)}
		}
		return store.Operator{}, badOperatorCredentials
	}
	if auth.CheckPassword(o.PasswordHash, password) != nil {
		return fail()
	}
	secret, err := s.Sealer.Open(o.TOTPSecretSealed)
	if err != nil {
		return store.Operator{}, fmt.Errorf("account: open TOTP secret of operator %d: %w", o.ID, err)
	}
	ok, step := auth.ValidateTOTP(secret, code, s.now(), o.TOTPLastStep)
	if !ok {
		return fail()
	}
	if err := s.Store.UseOperatorTOTPStep(ctx, o.ID, step); errors.Is(err, store.ErrNotFound) {
		return fail()
	} else if err != nil {
		return store.Operator{}, err
	}
	if err := s.Store.ResetOperatorFailures(ctx, o.ID); err != nil {
		return store.Operator{}, err
	}
	return o, nil
}
