package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
)

type loginRequest struct {
	EmailAddress string `json:"email_address"`
	Password     string `json:"password"`
	// DeviceToken is the device_token an earlier login of this client answered: with it
	// this client is a known device, which others' failed attempts never lock out.
	DeviceToken string `json:"device_token"`
}

func (r *loginRequest) check() (errs pay.FieldErrors) {
	if strings.TrimSpace(r.EmailAddress) == "" {
		errs.Add("email_address", "メールアドレスを入力してください")
	}
	if r.Password == "" {
		errs.Add("password", "パスワードを入力してください")
	}
	return errs
}

// twoFactorChallenge answers a password that was right for a user with two-factor on.
type twoFactorChallenge struct {
	Status       string `json:"status"` // two_factor_required
	Method       string `json:"method"` // email or totp
	SessionToken string `json:"session_token"`
	ExpiresIn    int    `json:"expires_in"`
	Message      string `json:"message"`
}

// headerDeviceToken may carry the device token instead of the body's device_token.
const headerDeviceToken = "X-Device-Token"

// apiClient is web.ClientOf with the API's device token.
func apiClient(c *echo.Context, bodyToken string) account.Client {
	cl := web.ClientOf(c)
	cl.DeviceToken = bodyToken
	if cl.DeviceToken == "" {
		cl.DeviceToken = c.Request().Header.Get(headerDeviceToken)
	}
	return cl
}

// login is POST /api/v1/login. The throttle and the lock are account.SignIn's; an
// unknown address and a wrong password get the same 401.
func (s *server) login(c *echo.Context) error {
	var req loginRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	res, err := s.Account.SignIn(ctx, strings.TrimSpace(req.EmailAddress), req.Password, apiClient(c, req.DeviceToken))
	if r, ok := account.AsRefusal(err); ok && r.RetryAfter == 0 {
		return errBadCredentials
	}
	if err != nil {
		return err
	}
	if res.SecondFactor != account.SecondFactorNone {
		token, hash, err := auth.NewToken()
		if err != nil {
			return err
		}
		if err := s.Store.CreateAPILoginChallenge(ctx, res.User.BuyerID, res.User.ID, hash, s.Now().Add(auth.CodeTTL)); err != nil {
			return err
		}
		msg := "認証アプリに表示されている確認コードを入力してください。"
		if res.SecondFactor == account.SecondFactorEmail {
			msg = "ご登録のメールアドレスに確認コードを送信しました。"
		}
		return c.JSON(http.StatusOK, twoFactorChallenge{
			Status: "two_factor_required", Method: res.SecondFactor, SessionToken: token,
			ExpiresIn: int(auth.CodeTTL.Seconds()), Message: msg,
		})
	}
	ts, err := s.signIn(c, res)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ts)
}

type secondFactorRequest struct {
	SessionToken string `json:"session_token"`
	Code         string `json:"code"`
	DeviceToken  string `json:"device_token"`
}

func (r *secondFactorRequest) check() pay.FieldErrors {
	return checkTokenAndCode("session_token", r.SessionToken, r.Code)
}

// loginSecondFactor is POST /api/v1/login_2auth: the mailed or authenticator code for
// the session_token that login answered. Wrong codes count towards the sign-in
// throttle; a session_token works once and for 10 minutes.
func (s *server) loginSecondFactor(c *echo.Context) error {
	var req secondFactorRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	code := strings.TrimSpace(req.Code)
	ctx := c.Request().Context()
	ch, err := s.Store.APILoginChallengeByHash(ctx, auth.HashToken(req.SessionToken))
	if errors.Is(err, store.ErrNotFound) {
		return errBadSessionToken
	}
	if err != nil {
		return err
	}
	if ch.UsedAt != nil || !s.Now().Before(ch.ExpiresAt) {
		return errBadSessionToken
	}
	u, err := s.Store.User(ctx, ch.BuyerID, ch.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return errBadSessionToken
	}
	if err != nil {
		return err
	}
	if u.TwoFactorMethod == account.SecondFactorNone {
		// Two-factor was switched off meanwhile: start again with the password.
		return errBadSessionToken
	}
	res, err := s.Account.VerifySecondFactor(ctx, u, code, apiClient(c, req.DeviceToken))
	if r, ok := account.AsRefusal(err); ok && r.RetryAfter == 0 {
		return fieldError("code", r.Message)
	}
	if err != nil {
		return err
	}
	if err := s.Store.UseAPILoginChallenge(ctx, ch.ID); errors.Is(err, store.ErrNotFound) {
		return errBadSessionToken
	} else if err != nil {
		return err
	}
	ts, err := s.signIn(c, res)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ts)
}

type refreshRequest struct {
	RefreshToken string `json:"refresh_token"`
}

func (r *refreshRequest) check() (errs pay.FieldErrors) {
	if r.RefreshToken == "" {
		errs.Add("refresh_token", msgMissing("refresh_token"))
	}
	return errs
}

// refreshTokens is POST /api/v1/users/token, sent without auth headers: a refresh token
// for a new triple. The old refresh token is used up; presenting it again revokes the
// whole sign-in, since either the client or a thief holds a copy.
func (s *server) refreshTokens(c *echo.Context) error {
	var req refreshRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	if len(req.RefreshToken) > maxJWTLen {
		return errBadRefreshToken
	}
	ctx := c.Request().Context()
	// Counted per client IP: the account is known only once the token has been rotated,
	// and refusing then would leave the client with a used-up token.
	if err := s.Account.LimitCaller(ctx, account.ActToken, ""); err != nil {
		return err
	}
	access, refresh, na, nr, err := s.newTokens()
	if err != nil {
		return err
	}
	f, err := s.Store.RotateAPIRefreshToken(ctx, auth.HashToken(req.RefreshToken), s.Now(), na, nr)
	switch {
	case errors.Is(err, store.ErrAPITokenReused):
		s.Logger.Warn("api: refresh token reused; sign-in revoked", "user_id", f.UserID, "ip", c.RealIP())
		return errBadRefreshToken
	case errors.Is(err, store.ErrAPITokenInvalid):
		return errBadRefreshToken
	case err != nil:
		return err
	}
	u, err := s.Store.User(ctx, f.BuyerID, f.UserID)
	if errors.Is(err, store.ErrNotFound) {
		return errBadRefreshToken
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s.tokenSetFor(u, f, access, refresh, na.ExpiresAt))
}

type statusAnswer struct {
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
}

// logout is POST /api/v1/logout. In token mode it revokes the sign-in of the presented
// tokens, even when the access token is out of date (a client logs out with whatever
// it holds). In cookie mode it ends the server session.
func (s *server) logout(c *echo.Context) error {
	ctx := c.Request().Context()
	p, err := s.authenticate(c, true)
	if err != nil {
		return err
	}
	if p.Mode == partnerMode {
		// A partner ends its access at the authorisation server (/oauth/revoke).
		return allowPartner(c, "POST /logout", p)
	}
	if p.Mode == cookieMode {
		if err := s.Sessions.Destroy(ctx); err != nil {
			return err
		}
	} else if err := s.Store.RevokeAPITokenFamily(ctx, p.User.BuyerID, p.User.ID, p.FamilyID, s.Now()); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, statusAnswer{Status: "logged_out", Message: "ログアウトしました"})
}
