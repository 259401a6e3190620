package api

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/pay"
	"cardpay/store"
)

// Sign-up through the API, the same steps as the pages (account.StartSignup …
// account.Register):
//
//	POST users               {email_address, password, consent}  → {signup_token}  (a code is mailed)
//	POST users/certification {signup_token, code}                → the address is confirmed
//	POST users/validation    {registration fields}               → problems, nothing saved
//	POST users/corporation | users/sole_proprietor {signup_token, registration fields} → the buyer exists
//	POST users/resignup      {email_address}                     → {signup_token} (a new code)
//
// The signup_token is the API's handle on the sign-up (stored hashed, 24 hours). None of
// the answers tells whether an address already has an account: an address that has one
// gets a mail saying so instead of a code, and the token simply never verifies.

type signupRequest struct {
	EmailAddress string `json:"email_address"`
	Password     string `json:"password"`
	Consent      bool   `json:"consent"`
}

type signupAnswer struct {
	SignupToken string `json:"signup_token"`
	ExpiresIn   int    `json:"expires_in"`
	Message     string `json:"message"`
}

const msgCodeSent = "確認コードをメールで送信しました。メールに記載の6桁のコードを入力してください。"

func (s *server) startSignup(c *echo.Context) error {
	var req signupRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	id, errs, err := s.Account.StartSignup(ctx, req.EmailAddress, req.Password, req.Consent)
	if err := asError(errs, err); err != nil {
		return err
	}
	token, err := s.signupToken(ctx, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, signupAnswer{SignupToken: token, ExpiresIn: int(signupTokenTTL.Seconds()), Message: msgCodeSent})
}

// signupToken hands out a token for the sign-up; for id 0 (no such sign-up) a token that
// was never stored, so that the answer looks the same.
func (s *server) signupToken(ctx context.Context, signupID int64) (string, error) {
	token, hash, err := auth.NewToken()
	if err != nil || signupID == 0 {
		return token, err
	}
	return token, s.Store.CreateAPISignupToken(ctx, signupID, hash, s.Now().Add(signupTokenTTL))
}

// signupByToken finds the live sign-up token, or ErrNotFound when it does not exist or
// expired. Callers answer a missing token exactly like the next problem a real one could
// have (a wrong code, an unconfirmed address), so that a token resignup made up for an
// address without a sign-up cannot be told from a real one.
func (s *server) signupByToken(ctx context.Context, token string) (store.APISignupToken, error) {
	t, err := s.Store.APISignupTokenByHash(ctx, auth.HashToken(token))
	if err == nil && !s.Now().Before(t.ExpiresAt) {
		return store.APISignupToken{}, store.ErrNotFound
	}
	return t, err
}

type certificationRequest struct {
	SignupToken string `json:"signup_token"`
	Code        string `json:"code"`
}

func (r *certificationRequest) check() pay.FieldErrors {
	return checkTokenAndCode("signup_token", r.SignupToken, r.Code)
}

func (s *server) certifySignup(c *echo.Context) error {
	var req certificationRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	code := strings.TrimSpace(req.Code)
	t, err := s.signupByToken(ctx, req.SignupToken)
	if errors.Is(err, store.ErrNotFound) {
		return fieldError("code", auth.CodeWrong.Message())
	}
	if err != nil {
		return err
	}
	err = s.Account.VerifySignupCode(ctx, t.SignupID, code)
	if r, ok := account.AsRefusal(err); ok {
		return fieldError("code", r.Message)
	}
	if errors.Is(err, store.ErrNotFound) {
		// The sign-up was completed meanwhile.
		return fieldError("signup_token", "この登録は既に完了しています。ログインしてください。")
	}
	if err != nil {
		return err
	}
	if err := s.Store.VerifyAPISignupToken(ctx, t.ID); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, statusAnswer{Status: "verified", Message: "メールアドレスを確認しました。続けて利用者情報を登録してください。"})
}

type resignupRequest struct {
	EmailAddress string `json:"email_address"`
}

// resignup restarts an unfinished sign-up with a new code; the answer is the same
// whether or not the address has one.
func (s *server) resignup(c *echo.Context) error {
	var req resignupRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	id, errs, err := s.Account.Resignup(ctx, req.EmailAddress)
	if err := asError(errs, err); err != nil {
		return err
	}
	token, err := s.signupToken(ctx, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, signupAnswer{
		SignupToken: token, ExpiresIn: int(signupTokenTTL.Seconds()),
		Message: "登録手続き中のメールアドレスであれば、確認コードをメールで送信しました。",
	})
}

// registrationCheck is the answer of users/validation.
type registrationCheck struct {
	Valid  bool            `json:"valid"`
	Errors pay.FieldErrors `json:"errors"`
	// Registration is the input as it would be stored (kana in full-width katakana,
	// codes without hyphens, the birthday as YYYY-MM-DD), for a check-answers screen.
	Registration account.Registration `json:"registration"`
}

// validateRegistration checks a registration form without saving anything. Problems are
// the answer here, not a failure: 200 with valid false.
func (s *server) validateRegistration(c *echo.Context) error {
	var r account.Registration
	if err := decode(c, &r); err != nil {
		return err
	}
	r.Normalise()
	errs := r.Validate(s.Now())
	if errs == nil {
		errs = pay.FieldErrors{}
	}
	return c.JSON(http.StatusOK, registrationCheck{Valid: len(errs) == 0, Errors: errs, Registration: r})
}

type registrationRequest struct {
	SignupToken string `json:"signup_token"`
	account.Registration
}

// check asks only for the token: the registration's own fields are the account
// service's to judge, together with the sign-up.
func (r *registrationRequest) check() (errs pay.FieldErrors) {
	if r.SignupToken == "" {
		errs.Add("signup_token", msgMissing("signup_token"))
	}
	return errs
}

func (s *server) registerCorporation(c *echo.Context) error {
	return s.register(c, pay.Corporation)
}

func (s *server) registerSoleProprietor(c *echo.Context) error {
	return s.register(c, pay.SoleProprietor)
}

type registeredAnswer struct {
	Status  string      `json:"status"`
	Message string      `json:"message"`
	User    information `json:"user"`
}

// register creates the buyer from a sign-up whose code this token's holder entered.
// The business form is the path's; a different business_form in the body is ignored.
func (s *server) register(c *echo.Context, form pay.BusinessForm) error {
	var req registrationRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	t, err := s.signupByToken(ctx, req.SignupToken)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err != nil || t.VerifiedAt == nil {
		return fieldError("signup_token", "メールアドレスの確認が済んでいないか、登録手続きの有効期限が切れています。確認コードを入力するか、最初からやり直してください。")
	}
	r := req.Registration
	r.BusinessForm = form
	u, errs, err := s.Account.Register(ctx, t.SignupID, r)
	if ref, ok := account.AsRefusal(err); ok {
		return newError(http.StatusConflict, "conflict", ref.Message)
	}
	if err := asError(errs, err); err != nil {
		return err
	}
	info, err := s.informationOf(ctx, u)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, registeredAnswer{Status: "registered", Message: "登録が完了しました。ログインしてご利用ください。", User: info})
}

// simpleCheckRequest uses pointers to tell a field that was sent from one that was not.
type simpleCheckRequest struct {
	EmailAddress *string `json:"email_address"`
	Password     *string `json:"password"`
}

func (r *simpleCheckRequest) check() (errs pay.FieldErrors) {
	if r.EmailAddress == nil && r.Password == nil {
		errs.Add("email_address", "email_address または password を指定してください")
	}
	return errs
}

type simpleCheckAnswer struct {
	Valid        bool            `json:"valid"`
	EmailAddress string          `json:"email_address,omitempty"`
	Errors       pay.FieldErrors `json:"errors"`
}

// simpleCheck is POST /api/v1/user_simple_check: the sign-up form's own rules, for
// checking a field as it changes. It checks the fields that are sent: the address's
// format (answering it normalised, as it would be stored) and the password's strength
// (length, letters and digits, not the address, not a common password). It does not
// say whether the address has an account: that would let anyone test addresses.
// Problems are the answer here: 200 with valid false.
func (s *server) simpleCheck(c *echo.Context) error {
	var req simpleCheckRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	errs := pay.FieldErrors{}
	var email string
	if req.EmailAddress != nil {
		var msg string
		email, msg = pay.ValidateEmail(*req.EmailAddress)
		errs.Add("email_address", msg)
		if msg != "" {
			email = ""
		}
	}
	if req.Password != nil {
		errs.Add("password", account.ValidatePassword(*req.Password, email))
	}
	return c.JSON(http.StatusOK, simpleCheckAnswer{Valid: len(errs) == 0, EmailAddress: email, Errors: errs})
}

type categoriesAnswer struct {
	BusinessCategories []pay.BusinessCategory `json:"business_categories"`
}

func (s *server) businessCategories(c *echo.Context) error {
	return c.JSON(http.StatusOK, categoriesAnswer{BusinessCategories: pay.BusinessCategories})
}
