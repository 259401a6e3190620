package handlers

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/labstack/echo/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

var nonceRe = regexp.MustCompile(`nonce-[A-Za-z0-9_-]+|nonce="[A-Za-z0-9_-]+"`)

func TestHeaderTabsFollowCollectionMode(t *testing.T) {
	ta := newTestApp(t, func(o *Options) { o.CollectionExclusions = map[string]bool{"1234567890123": true} })
	corp := newBuyer(t, pay.Corporation, "7000012050002")
	sole := newBuyer(t, pay.SoleProprietor, "")
	excluded := newBuyer(t, pay.Corporation, "1234567890123")

	c := ta.client(t)
	c.signIn(corp.EmailAddress)
	res := c.get("/payments/create")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.body, "カード払い依頼", "a corporation sees the collections tab")
	assert.Contains(t, res.body, `href="/collections/history"`, "the tab goes to the collection landing")
	assert.Contains(t, res.body, `aria-current="page"`)
	assert.Equal(t, http.StatusOK, c.get("/collections/request").StatusCode)

	for _, u := range []struct {
		name  string
		email string
	}{{"sole proprietor", sole.EmailAddress}, {"excluded corporation", excluded.EmailAddress}} {
		t.Run(u.name, func(t *testing.T) {
			c := ta.client(t)
			c.signIn(u.email)
			res := c.get("/payments/create")
			assert.NotContains(t, res.body, "カード払い依頼", "no collections tab")
			res = c.get("/collections/request")
			assert.Equal(t, http.StatusForbidden, res.StatusCode)
			assert.Contains(t, res.body, "カード払い依頼はご利用いただけません")
		})
	}
}

func TestHeaderMenusAndBell(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	res := c.get("/suppliers?status=enable")
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, item := range []string{"会社情報", "ログイン情報", "お支払い方法", "セキュリティ設定", "利用規約", "お問い合わせ",
		"プライバシーポリシー", "個人情報の取り扱いについて", "取引先向けサービス", "ログアウト", "操作マニュアル", "よくあるご質問"} {
		assert.Contains(t, res.body, item)
	}
	assert.Contains(t, res.body, `<details class="drawer drawer--nav">`, "the drawer opens without JavaScript")
	assert.Contains(t, res.body, `<p class="workflow-title">`, "the mobile header names the workflow")
	assert.Contains(t, res.body, "登録取引先")
	assert.NotContains(t, res.body, "bell__dot", "no unread notifications yet")

	_, err := db.Store.CreateNotification(context.Background(), u.BuyerID, "お知らせ", "")
	require.NoError(t, err)
	res = c.get("/suppliers?status=enable")
	assert.Contains(t, res.body, "bell__dot")
	assert.Contains(t, res.body, "お知らせ（未読があります）")
}

func TestEverySignedInPageNeedsSignIn(t *testing.T) {
	ta := newTestApp(t)
	c := ta.client(t)
	for _, p := range Pages() {
		if p.Access == "public" {
			continue
		}
		res := c.get(p.Path)
		assert.Equal(t, http.StatusSeeOther, res.StatusCode, p.Path)
		assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/signin?redirect="), p.Path)
	}
}

func TestEveryPageRenders(t *testing.T) {
	ta := newTestApp(t)
	u := newBuyer(t, pay.Corporation, "")
	c := ta.client(t)
	c.signIn(u.EmailAddress)
	for _, p := range Pages() {
		if p.Access == "public" {
			continue // public pages are checked anonymously below; /signin signs out
		}
		res := c.get(p.Path)
		assert.Equal(t, http.StatusOK, res.StatusCode, p.Path)
		assert.Contains(t, res.body, "<title>"+p.Title+" | 請求書カード払い</title>", p.Path)
		assert.Equal(t, 1, strings.Count(res.body, "<h1"), p.Path)
	}
	anon := ta.client(t)
	for _, p := range Pages() {
		if p.Access != "public" {
			continue
		}
		res := anon.get(p.Path)
		want := http.StatusOK
		if p.Path == "/no-such-page" {
			want = http.StatusNotFound
		}
		assert.Equal(t, want, res.StatusCode, p.Path)
		assert.Contains(t, res.body, `<html lang="ja">`, p.Path)
		assert.Equal(t, 1, strings.Count(res.body, "<h1"), p.Path)
	}
}

func TestErrorViews(t *testing.T) {
	ta := newTestApp(t)
	c := ta.client(t)

	res := c.get("/error/%E5%87%A6%E7%90%86%E3%82%A8%E3%83%A9%E3%83%BC/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.body, "処理エラー")
	assert.NotContains(t, res.body, "<script>alert(1)</script>", "the message is text, not markup")
	assert.Contains(t, res.body, "&lt;script&gt;")

	res = c.get("/error/%FF%FE/" + strings.Repeat("あ", 500))
	assert.Equal(t, http.StatusOK, res.StatusCode, "invalid UTF-8 and long text do not break the page")
	assert.Less(t, strings.Count(res.body, "あ"), 260)

	res = c.get("/no/such/page")
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
	assert.Contains(t, res.body, "ページが見つかりません")

	res = c.post("/toppage", nil)
	assert.Contains(t, []int{http.StatusSeeOther, http.StatusNotFound, http.StatusMethodNotAllowed}, res.StatusCode)
}

func TestUnexpectedErrorsAreLoggedAndHidden(t *testing.T) {
	ta := newTestApp(t)
	ta.echo.GET("/boom", func(c *echo.Context) error { return errors.New("database exploded: secret detail") })
	ta.echo.GET("/panic", func(c *echo.Context) error { panic("kaboom") })
	c := ta.client(t)
	for _, p := range []string{"/boom", "/panic"} {
		res := c.get(p)
		assert.Equal(t, http.StatusInternalServerError, res.StatusCode, p)
		assert.Contains(t, res.body, "システムエラーが発生しました", p)
		assert.NotContains(t, res.body, "secret detail", p)
		assert.NotContains(t, res.body, "goroutine", "no stack trace")
	}
	assert.Contains(t, ta.logs.String(), "database exploded: secret detail", "the cause is logged")
}
