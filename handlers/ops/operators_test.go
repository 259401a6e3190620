package ops_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

var (
	shownPassword = regexp.MustCompile(`パスワード</dt>\s*<dd class="summary-list__value">([A-Za-z0-9]{20})</dd>`)
	shownSecret   = regexp.MustCompile(`認証アプリの設定キー</dt>\s*<dd class="summary-list__value">([A-Z2-7]+)</dd>`)
)

func TestAdministratorCreatesAnOperatorWhoSignsIn(t *testing.T) {
	env := webtest.New(t)
	admin := newOperator(t, env, pay.RoleAdmin)
	c := signIn(t, env, admin)
	page := c.Get("/ops/operators")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, admin.EmailAddress)

	res := c.Post("/ops/operators", url.Values{"email_address": {"not an address"}, "name": {""}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, "email_address", "メールアドレスを正しく入力してください")
	webtest.AssertFieldError(t, res, "roles", "権限を1つ以上選んでください")

	email := "new-" + time.Now().Format("150405.000000") + "@ops.test.example"
	res = c.Post("/ops/operators", url.Values{"email_address": {email}, "name": {"新人 審査"}, "roles": {"screening", "transfers"}})
	require.Equal(t, http.StatusOK, res.StatusCode, res.Body)
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	pw, secret := shownPassword.FindStringSubmatch(res.Body), shownSecret.FindStringSubmatch(res.Body)
	require.NotNil(t, pw, "the password is shown once")
	require.NotNil(t, secret, "the authenticator secret is shown once")
	assert.Contains(t, res.Body, `src="data:image/png;base64,`)
	// The same address again is refused.
	again := c.Post("/ops/operators", url.Values{"email_address": {email}, "name": {"二人目"}, "roles": {"screening"}})
	webtest.AssertFieldError(t, again, "email_address", "このメールアドレスの担当者はすでに登録されています")

	// The new operator signs in with what was shown, and has the roles given.
	code, err := totp.GenerateCode(secret[1], time.Now())
	require.NoError(t, err)
	other := env.Client(t)
	in := other.Post("/ops/signin", url.Values{"email_address": {email}, "password": {pw[1]}, "code": {code}})
	require.Equal(t, http.StatusSeeOther, in.StatusCode, in.Body)
	assert.Equal(t, http.StatusOK, other.Get("/ops/screening").StatusCode)
	assert.Equal(t, http.StatusOK, other.Get("/ops/transfers").StatusCode)
	assert.Equal(t, http.StatusForbidden, other.Get("/ops/operators").StatusCode, "not an administrator")

	log, _, err := webtest.Store().AuditLog(context.Background(), store.AuditFilter{ObjectType: store.AuditOperator, OperatorID: admin.ID})
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, "create", log[0].Action)
}
