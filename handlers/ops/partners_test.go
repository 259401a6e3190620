package ops_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// Partner applications in the console: administrators only; a bad form is refused at
// its fields; a registered application shows its secret once (only its hash is kept)
// and is audited; stopping it ends its tokens and is audited.
func TestPartnersConsole(t *testing.T) {
	env := webtest.New(t)
	admin := signIn(t, env, newOperator(t, env, pay.RoleAdmin))
	screener := signIn(t, env, newOperator(t, env, pay.RoleScreening))
	assert.Equal(t, http.StatusForbidden, screener.Get("/ops/partners").StatusCode)
	assert.Equal(t, http.StatusForbidden, screener.Post("/ops/partners", url.Values{"name": {"x"}}).StatusCode)

	page := admin.Get("/ops/partners")
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.Contains(t, page.Body, "登録済みのアプリケーションはありません")

	res := admin.Post("/ops/partners", url.Values{"name": {""}, "redirect_uris": {"http://app.example.jp/cb"}})
	webtest.AssertFieldError(t, res, "name", "アプリケーション名を入力してください")
	assert.Contains(t, res.Body, "https:// で始まる")

	res = admin.Post("/ops/partners", url.Values{"name": {"会計クラウド"}, "logo_text": {"会"},
		"redirect_uris": {"https://app.example.jp/callback"}, "scopes": {"payments:read", "payments:draft"}})
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	m := regexp.MustCompile(`クライアントID：<code>(app-[a-z0-9]{16})</code>`).FindStringSubmatch(res.Body)
	require.NotNil(t, m, res.Body)
	secret := regexp.MustCompile(`<pre>([A-Z2-7]{52})</pre>`).FindStringSubmatch(res.Body)
	require.NotNil(t, secret, "the secret, shown once")
	c, err := webtest.Store().OAuthClient(context.Background(), m[1])
	require.NoError(t, err)
	assert.NoError(t, bcrypt.CompareHashAndPassword(c.SecretHash, []byte(secret[1])))
	assert.NotContains(t, admin.Get("/ops/partners").Body, secret[1], "never shown again")

	res = admin.Post("/ops/partners/"+m[1]+"/disable", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	_, err = webtest.Store().OAuthClient(context.Background(), m[1])
	assert.ErrorIs(t, err, store.ErrNotFound, "stopped")
	assert.Equal(t, http.StatusNotFound, admin.Post("/ops/partners/"+m[1]+"/disable", nil).StatusCode)

	audit, _, err := webtest.Store().AuditLog(context.Background(), store.AuditFilter{ObjectType: store.AuditPartner, Limit: 10})
	require.NoError(t, err)
	require.Len(t, audit, 2)
	assert.Equal(t, "disable", audit[0].Action)
	assert.Equal(t, "register", audit[1].Action)
	assert.Contains(t, admin.Get("/ops/audit?object=partner").Body, "連携アプリの登録")
}
