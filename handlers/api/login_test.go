package api_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/auth"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

func TestLoginAnswersTokensThatWork(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.client(t)
	r := c.login(u.EmailAddress)
	assert.Equal(t, "Bearer", r.str("token_type"))
	assert.Equal(t, float64(15*60), r.num("expires_in"))
	assert.Equal(t, float64(30*24*60*60), r.num("refresh_expires_in"))

	// The id_token is a readable JWT naming the user.
	parts := strings.Split(c.tokens.IDToken, ".")
	require.Len(t, parts, 3)
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var claims map[string]any
	require.NoError(t, json.Unmarshal(payload, &claims))
	assert.Equal(t, strconv.FormatInt(u.ID, 10), claims["sub"])
	assert.Equal(t, float64(u.BuyerID), claims["buyer_id"])
	assert.Equal(t, u.EmailAddress, claims["email"])
	assert.InDelta(t, env.clock.Now().Add(15*time.Minute).Unix(), claims["exp"], 1)

	info := c.get("/users/information")
	require.Equal(t, http.StatusOK, info.Status, info.String())
	assert.Equal(t, u.EmailAddress, info.str("email_address"))

	ev, err := webtest.Store().SignInEvents(context.Background(), u.BuyerID, u.ID, 5)
	require.NoError(t, err)
	require.NotEmpty(t, ev)
	assert.True(t, ev[0].Succeeded, "an API sign-in is in the sign-in history")
}

func TestLoginDoesNotTellWhichAddressesExist(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.client(t)
	wrong := c.post("/login", map[string]any{"email_address": u.EmailAddress, "password": "wrong password 1"})
	unknown := c.post("/login", map[string]any{"email_address": "nobody-" + u.EmailAddress, "password": "wrong password 1"})
	assert.Equal(t, http.StatusUnauthorized, wrong.Status)
	assert.Equal(t, wrong.Status, unknown.Status)
	assert.Equal(t, wrong.Raw, unknown.Raw, "the same body for a wrong password and an unknown address")
	assert.Equal(t, "invalid_credentials", wrong.str("status"))
	assert.Equal(t, "メールアドレスまたはパスワードが正しくありません", wrong.str("message"))
}

func TestLoginValidatesItsInput(t *testing.T) {
	c := newEnv(t).client(t)
	r := c.post("/login", map[string]any{})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, "validation_error", r.str("status"))
	assert.Equal(t, map[string]string{"email_address": "メールアドレスを入力してください", "password": "パスワードを入力してください"}, r.fieldErrors())

	r = c.post("/login", map[string]any{"email_address": 12, "password": "x"})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.Contains(t, r.fieldErrors()["email_address"], "文字列")
}

func TestLoginThrottleAndLockThroughTheAPI(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.client(t)
	bad := map[string]any{"email_address": u.EmailAddress, "password": "wrong password 1"}
	for i := range 3 {
		r := c.post("/login", bad)
		require.Equal(t, http.StatusUnauthorized, r.Status, "failure %d: %s", i+1, r)
	}
	// From the 3rd failure on, the next attempt must wait.
	r := c.post("/login", map[string]any{"email_address": u.EmailAddress, "password": webtest.Password})
	require.Equal(t, http.StatusTooManyRequests, r.Status, "even the right password waits: %s", r)
	assert.Equal(t, "too_many_attempts", r.str("status"))
	assert.Contains(t, r.str("message"), "秒ほど待って")

	// Keep failing, waiting out each delay, until the 10th failure locks.
	for i := 3; i < 10; i++ {
		env.clock.Add(31 * time.Second)
		r = c.post("/login", bad)
		if i < 9 {
			require.Equal(t, http.StatusUnauthorized, r.Status, "failure %d: %s", i+1, r)
		}
	}
	require.Equal(t, http.StatusTooManyRequests, r.Status, "the 10th failure locks: %s", r)
	assert.Contains(t, r.str("message"), "ロック")
	env.Mail.WaitFor(t, u.EmailAddress, 10*time.Second) // the owner is told

	env.clock.Add(time.Minute)
	r = c.post("/login", map[string]any{"email_address": u.EmailAddress, "password": webtest.Password})
	require.Equal(t, http.StatusTooManyRequests, r.Status, "locked: %s", r)
	env.clock.Add(15 * time.Minute)
	r = c.post("/login", map[string]any{"email_address": u.EmailAddress, "password": webtest.Password})
	require.Equal(t, http.StatusOK, r.Status, "the lock ends: %s", r)
}

func TestThrottleMessagesAreRecognised(t *testing.T) {
	// login.go tells throttle refusals from wrong passwords by their common start.
	for _, m := range []string{auth.LockedMessage(time.Now()), auth.SlowDownMessage(3 * time.Second)} {
		assert.True(t, strings.HasPrefix(m, "ログインの失敗が続"), m)
	}
}

func TestTwoFactorByMailThroughTheAPI(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	require.NoError(t, webtest.Store().SetTwoFactor(ctx, u.BuyerID, u.ID, "email", ""))
	c := env.client(t)
	r := c.post("/login", map[string]any{"email_address": u.EmailAddress, "password": webtest.Password})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "two_factor_required", r.str("status"))
	assert.Equal(t, "email", r.str("method"))
	assert.Empty(t, r.str("access_token"), "no tokens before the second factor")
	session := r.str("session_token")
	require.NotEmpty(t, session)
	code := env.WaitCode(t, u.EmailAddress)

	wrong := "000000"
	if code == wrong {
		wrong = "111111"
	}
	r = c.post("/login_2auth", map[string]any{"session_token": session, "code": wrong})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.NotEmpty(t, r.fieldErrors()["code"])

	r = c.post("/login_2auth", map[string]any{"session_token": "forged", "code": code})
	require.Equal(t, http.StatusUnauthorized, r.Status)
	assert.Equal(t, "invalid_session_token", r.str("status"))

	r = c.post("/login_2auth", map[string]any{"session_token": session, "code": code})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	c.setTokens(r)
	require.Equal(t, http.StatusOK, c.get("/users/information").Status)

	r = c.post("/login_2auth", map[string]any{"session_token": session, "code": code})
	assert.Equal(t, http.StatusUnauthorized, r.Status, "a session_token signs in once")

	r = c.post("/login_2auth", map[string]any{})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Len(t, r.fieldErrors(), 2)
}

func TestTwoFactorSessionTokenExpires(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	require.NoError(t, webtest.Store().SetTwoFactor(context.Background(), u.BuyerID, u.ID, "email", ""))
	c := env.client(t)
	r := c.post("/login", map[string]any{"email_address": u.EmailAddress, "password": webtest.Password})
	code := env.WaitCode(t, u.EmailAddress)
	env.clock.Add(11 * time.Minute)
	r = c.post("/login_2auth", map[string]any{"session_token": r.str("session_token"), "code": code})
	assert.Equal(t, http.StatusUnauthorized, r.Status, r.String())
}

func TestTwoFactorByAuthenticatorThroughTheAPI(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	u := webtest.NewBuyer(t, pay.SoleProprietor, "")
	key, err := auth.NewTOTP("請求書カード払い", u.EmailAddress)
	require.NoError(t, err)
	sealed, err := auth.NewSealer(webtest.SecretKey).Seal(key.Secret)
	require.NoError(t, err)
	require.NoError(t, webtest.Store().SetTwoFactor(ctx, u.BuyerID, u.ID, "totp", sealed))

	c := env.client(t)
	r := c.post("/login", map[string]any{"email_address": u.EmailAddress, "password": webtest.Password})
	require.Equal(t, "totp", r.str("method"), r.String())
	code, err := totp.GenerateCode(key.Secret, env.clock.Now())
	require.NoError(t, err)
	r = c.post("/login_2auth", map[string]any{"session_token": r.str("session_token"), "code": code})
	require.Equal(t, http.StatusOK, r.Status, r.String())
}

func TestRefreshRotatesAndReuseRevokesTheFamily(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.client(t)
	c.login(u.EmailAddress)
	first := c.tokens

	env.clock.Add(16 * time.Minute)
	r := c.get("/users/information")
	require.Equal(t, http.StatusUnauthorized, r.Status)
	assert.Equal(t, "expired_access_token", r.str("status"), "an out-of-date access token says so: %s", r)

	anon := env.client(t) // users/token is sent without auth headers
	r = anon.post("/users/token", map[string]any{"refresh_token": first.RefreshToken})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	c.setTokens(r)
	second := c.tokens
	assert.NotEqual(t, first.RefreshToken, second.RefreshToken, "the refresh token rotates")
	assert.NotEqual(t, first.AccessToken, second.AccessToken)
	require.Equal(t, http.StatusOK, c.get("/users/information").Status, "the new tokens work")

	// The old pair does not come back to life.
	old := env.client(t)
	old.tokens = first
	assert.Equal(t, "expired_access_token", old.get("/users/information").str("status"))

	// Presenting the used refresh token again revokes the whole family.
	r = anon.post("/users/token", map[string]any{"refresh_token": first.RefreshToken})
	require.Equal(t, http.StatusUnauthorized, r.Status)
	assert.Equal(t, "invalid_refresh_token", r.str("status"))
	r = c.get("/users/information")
	require.Equal(t, http.StatusUnauthorized, r.Status, "the family's access tokens stop working")
	assert.Equal(t, "unauthorized", r.str("status"))
	r = anon.post("/users/token", map[string]any{"refresh_token": second.RefreshToken})
	assert.Equal(t, "invalid_refresh_token", r.str("status"), "and so do its refresh tokens")

	// Another sign-in of the same user is not affected.
	other := env.client(t)
	other.login(u.EmailAddress)
	assert.Equal(t, http.StatusOK, other.get("/users/information").Status)
}

func TestConcurrentRefreshOfOneTokenSucceedsOnce(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.client(t)
	c.login(u.EmailAddress)
	var wg sync.WaitGroup
	statuses := make([]int, 5)
	for i := range statuses {
		wg.Go(func() {
			statuses[i] = env.client(t).post("/users/token", map[string]any{"refresh_token": c.tokens.RefreshToken}).Status
		})
	}
	wg.Wait()
	ok := 0
	for _, s := range statuses {
		if s == http.StatusOK {
			ok++
		}
	}
	assert.LessOrEqual(t, ok, 1, "one refresh token is exchanged at most once: %v", statuses)
}

func TestRefreshTokenExpiresAfter30Days(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.client(t)
	c.login(u.EmailAddress)
	env.clock.Add(30*24*time.Hour + time.Second)
	r := env.client(t).post("/users/token", map[string]any{"refresh_token": c.tokens.RefreshToken})
	assert.Equal(t, "invalid_refresh_token", r.str("status"), r.String())
	r = env.client(t).post("/users/token", map[string]any{"refresh_token": "not a token"})
	assert.Equal(t, "invalid_refresh_token", r.str("status"))
	r = env.client(t).post("/users/token", map[string]any{})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
}

func TestLogoutRevokesTheFamily(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.client(t)
	c.login(u.EmailAddress)
	tok := c.tokens
	other := env.client(t)
	other.login(u.EmailAddress)

	env.clock.Add(20 * time.Minute) // logging out works with an out-of-date access token
	r := c.post("/logout", nil)
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "logged_out", r.str("status"))
	r = env.client(t).post("/users/token", map[string]any{"refresh_token": tok.RefreshToken})
	assert.Equal(t, "invalid_refresh_token", r.str("status"), "the refresh token is revoked")
	assert.Equal(t, "unauthorized", c.get("/users/information").str("status"))
	assert.Equal(t, http.StatusUnauthorized, c.post("/logout", nil).Status, "twice is unauthorized")

	r = env.client(t).post("/users/token", map[string]any{"refresh_token": other.tokens.RefreshToken})
	assert.Equal(t, http.StatusOK, r.Status, "other sign-ins stay: %s", r)
	assert.Equal(t, http.StatusUnauthorized, env.client(t).post("/logout", nil).Status)
}

func TestAuthNeedsBothHeadersOfTheSameSignIn(t *testing.T) {
	env := newEnv(t)
	a, b := webtest.NewBuyer(t, pay.Corporation, ""), webtest.NewBuyer(t, pay.Corporation, "")
	ca, cb := env.client(t), env.client(t)
	ca.login(a.EmailAddress)
	cb.login(b.EmailAddress)
	ca2 := env.client(t)
	ca2.login(a.EmailAddress)

	cases := map[string]tokens{
		"no tokens":                           {},
		"id token only":                       {IDToken: ca.tokens.IDToken},
		"another user's access token":         {IDToken: ca.tokens.IDToken, AccessToken: cb.tokens.AccessToken},
		"another sign-in's access token":      {IDToken: ca.tokens.IDToken, AccessToken: ca2.tokens.AccessToken},
		"a refresh token as access token":     {IDToken: ca.tokens.IDToken, AccessToken: ca.tokens.RefreshToken},
		"a forged id token":                   {IDToken: forge(ca.tokens.IDToken, b), AccessToken: cb.tokens.AccessToken},
		"an id token signed with another key": {IDToken: otherKeyToken(t, b), AccessToken: cb.tokens.AccessToken},
		"garbage":                             {IDToken: "a.b.c", AccessToken: "x"},
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			c := env.client(t)
			c.tokens = tok
			if tok.AccessToken == "" && tok.IDToken != "" {
				c.headers["Authorization"] = "Bearer " + tok.IDToken
			}
			r := c.get("/users/information")
			require.Equal(t, http.StatusUnauthorized, r.Status, r.String())
			assert.Equal(t, "unauthorized", r.str("status"))
		})
	}
	c := env.client(t)
	c.tokens = ca.tokens
	c.headers["Authorization"] = "bearer " + ca.tokens.IDToken
	assert.Equal(t, http.StatusOK, c.get("/users/information").Status, "the scheme is case-insensitive")
}

// forge swaps the JWT's claims for another user's, keeping the signature.
func forge(idToken string, as store.User) string {
	parts := strings.Split(idToken, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims map[string]any
	_ = json.Unmarshal(payload, &claims)
	claims["sub"] = strconv.FormatInt(as.ID, 10)
	claims["buyer_id"] = as.BuyerID
	b, _ := json.Marshal(claims)
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(b) + "." + parts[2]
}

// otherKeyToken is a well-formed id_token for u signed with a key that is not ours.
func otherKeyToken(t *testing.T, u store.User) string {
	t.Helper()
	header := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	b, err := json.Marshal(map[string]any{"iss": "cardpay", "sub": strconv.FormatInt(u.ID, 10), "buyer_id": u.BuyerID,
		"email": u.EmailAddress, "sid": "1", "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()})
	require.NoError(t, err)
	signing := header + "." + base64.RawURLEncoding.EncodeToString(b)
	h := hmac.New(sha256.New, []byte("not our key"))
	h.Write([]byte(signing))
	return signing + "." + base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}
