package handlers_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/labstack/echo/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

var nonceRe = regexp.MustCompile(`nonce-[A-Za-z0-9_-]+|nonce="[A-Za-z0-9_-]+"`)

func TestHeaderTabsFollowCollectionMode(t *testing.T) {
	ta := webtest.New(t, func(o *web.Deps) { o.CollectionExclusions = map[string]bool{"1234567890123": true} })
	corp := webtest.NewBuyer(t, pay.Corporation, "7000012050002")
	sole := webtest.NewBuyer(t, pay.SoleProprietor, "")
	excluded := webtest.NewBuyer(t, pay.Corporation, "1234567890123")

	c := ta.Client(t)
	c.SignIn(corp.EmailAddress)
	res := c.Get("/payments/create")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "カード払い依頼", "a corporation sees the collections tab")
	assert.Contains(t, res.Body, `href="/collections/history"`, "the tab goes to the collection landing")
	assert.Contains(t, res.Body, `aria-current="page"`)
	assert.Equal(t, http.StatusOK, c.Get("/collections/request").StatusCode)

	for _, u := range []struct {
		name  string
		email string
	}{{"sole proprietor", sole.EmailAddress}, {"excluded corporation", excluded.EmailAddress}} {
		t.Run(u.name, func(t *testing.T) {
			c := ta.Client(t)
			c.SignIn(u.email)
			res := c.Get("/payments/create")
			assert.NotContains(t, res.Body, "カード払い依頼", "no collections tab")
			res = c.Get("/collections/request")
			assert.Equal(t, http.StatusForbidden, res.StatusCode)
			assert.Contains(t, res.Body, "カード払い依頼はご利用いただけません")
		})
	}
}

func TestHeaderMenusAndBell(t *testing.T) {
	ta := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := ta.Client(t)
	c.SignIn(u.EmailAddress)
	res := c.Get("/suppliers?status=enable")
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, item := range []string{"会社情報", "ログイン情報", "お支払い方法", "セキュリティ設定", "利用規約", "お問い合わせ",
		"プライバシーポリシー", "個人情報の取り扱いについて", "取引先向けサービス", "ログアウト", "操作マニュアル", "よくあるご質問", "お問い合わせ履歴"} {
		assert.Contains(t, res.Body, item)
	}
	assert.Contains(t, res.Body, `<details class="drawer drawer--nav" name="header-drawer">`, "the drawer opens without JavaScript")
	// Below 1024px the help menu is a drawer with the same items (SPEC.md §2).
	helpMenu := between(t, res.Body, `<details class="menu menu--help">`, `</details>`)
	helpDrawer := between(t, res.Body, `<details class="drawer drawer--help" name="header-drawer">`, `</details>`)
	for _, item := range []string{"操作マニュアル", "よくあるご質問", "お問い合わせ"} {
		assert.Contains(t, helpMenu, item)
		assert.Contains(t, helpDrawer, item)
	}
	assert.Equal(t, strings.Count(helpMenu, "<a "), strings.Count(helpDrawer, "<a "), "the drawer has the menu's items")
	assert.Contains(t, res.Body, `<p class="workflow-title">`, "the mobile header names the workflow")
	assert.Contains(t, res.Body, "登録取引先")
	assert.NotContains(t, res.Body, "bell__dot", "no unread notifications yet")

	_, err := webtest.Store().CreateNotification(context.Background(), u.BuyerID, "お知らせ", "")
	require.NoError(t, err)
	res = c.Get("/suppliers?status=enable")
	assert.Contains(t, res.Body, "bell__dot")
	assert.Contains(t, res.Body, "お知らせ（未読があります）")
}

func TestEverySignedInPageNeedsSignIn(t *testing.T) {
	ta := webtest.New(t)
	c := ta.Client(t)
	for _, p := range handlers.Pages() {
		if p.Access == "public" {
			continue
		}
		res := c.Get(p.Path)
		assert.Equal(t, http.StatusSeeOther, res.StatusCode, p.Path)
		assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/signin?redirect="), p.Path)
	}
}

var islandAttr = regexp.MustCompile(`data-island="([a-z-]+)"`)

func TestEveryPageRenders(t *testing.T) {
	ta := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := ta.Client(t)
	c.SignIn(u.EmailAddress)
	for _, p := range handlers.Pages() {
		if p.Access == "public" {
			continue // public pages are checked anonymously below; /signin signs out
		}
		res := c.Get(p.Path)
		assert.Equal(t, http.StatusOK, res.StatusCode, p.Path)
		assert.Contains(t, res.Body, "<title>"+p.Title+" | 請求書カード払い</title>", p.Path)
		assert.Equal(t, 1, strings.Count(res.Body, "<h1"), p.Path)
		// A page declares the island it carries, so the browser tests can hold every
		// other page to no JavaScript at all.
		// (The snackbar island comes with a flash notice, on any page.)
		var islands []string
		for _, m := range islandAttr.FindAllStringSubmatch(res.Body, -1) {
			if m[1] != "snackbar" {
				islands = append(islands, m[1])
			}
		}
		if p.Island != "" {
			assert.Equal(t, []string{p.Island}, islands, p.Path)
		} else {
			assert.Empty(t, islands, p.Path)
		}
	}
	anon := ta.Client(t)
	for _, p := range handlers.Pages() {
		if p.Access != "public" {
			continue
		}
		res := anon.Get(p.Path)
		want := http.StatusOK
		if p.Path == "/no-such-page" {
			want = http.StatusNotFound
		}
		assert.Equal(t, want, res.StatusCode, p.Path)
		assert.Contains(t, res.Body, `<html lang="ja">`, p.Path)
		assert.Equal(t, 1, strings.Count(res.Body, "<h1"), p.Path)
	}
}

func TestErrorViews(t *testing.T) {
	ta := webtest.New(t)
	c := ta.Client(t)

	// Pages()'s example, a text of the service's own, shows as it is.
	res := c.Get("/error/" + url.PathEscape("エラー") + "/" + url.PathEscape("処理を続けられませんでした"))
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "<h1 class=\"page-title\">エラー</h1>")
	assert.Contains(t, res.Body, "<p>処理を続けられませんでした</p>")

	// Anything else is the generic error: nobody can put words on our pages.
	for _, p := range []string{
		"/error/%E5%87%A6%E7%90%86%E3%82%A8%E3%83%A9%E3%83%BC/%3Cscript%3Ealert(1)%3C%2Fscript%3E",
		"/error/" + url.PathEscape("エラー") + "/" + url.PathEscape("口座が変わりました。新しい口座へお振込みください"),
		"/error/%FF%FE/" + strings.Repeat("あ", 500),
	} {
		res = c.Get(p)
		assert.Equal(t, http.StatusOK, res.StatusCode, p)
		assert.Contains(t, res.Body, "エラーが発生しました", p)
		assert.Contains(t, res.Body, "処理を続けられませんでした。時間をおいてもう一度お試しください。", p)
		for _, attacker := range []string{"alert(1)", "口座が変わりました", "処理エラー", "あああ"} {
			assert.NotContains(t, res.Body, attacker, p)
		}
	}

	res = c.Get("/no/such/page")
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
	assert.Contains(t, res.Body, "ページが見つかりません")

	res = c.Post("/toppage", nil)
	assert.Contains(t, []int{http.StatusSeeOther, http.StatusNotFound, http.StatusMethodNotAllowed}, res.StatusCode)
}

func TestUnexpectedErrorsAreLoggedAndHidden(t *testing.T) {
	ta := webtest.New(t)
	ta.Echo.GET("/boom", func(c *echo.Context) error { return errors.New("database exploded: secret detail") })
	ta.Echo.GET("/panic", func(c *echo.Context) error { panic("kaboom") })
	c := ta.Client(t)
	for _, p := range []string{"/boom", "/panic"} {
		res := c.Get(p)
		assert.Equal(t, http.StatusInternalServerError, res.StatusCode, p)
		assert.Contains(t, res.Body, "システムエラーが発生しました", p)
		assert.NotContains(t, res.Body, "secret detail", p)
		assert.NotContains(t, res.Body, "goroutine", "no stack trace")
	}
	assert.Contains(t, ta.Logs(), "database exploded: secret detail", "the cause is logged")
}
func TestMain(m *testing.M) { webtest.Main(m) }

// between is the part of body from the first start to the end that follows it.
func between(t *testing.T, body, start, end string) string {
	t.Helper()
	i := strings.Index(body, start)
	require.GreaterOrEqual(t, i, 0, "%s is on the page", start)
	j := strings.Index(body[i:], end)
	require.GreaterOrEqual(t, j, 0, "%s is closed", start)
	return body[i : i+j]
}

// TestTagManager: the tag-manager id is a setting that loads nothing unless set (SPEC.md
// §9); set, the buyers' pages load the container with the response's nonce and only their
// policy allows Google's origins. The console and the card pages never load it.
func TestTagManager(t *testing.T) {
	u := webtest.NewBuyer(t, pay.Corporation, "")
	scriptOf := func(body string) string {
		i := strings.Index(body, "data-tag-manager=")
		if i < 0 {
			return ""
		}
		return body[strings.LastIndex(body[:i], "<script"):i]
	}

	off := webtest.New(t).Client(t)
	res := off.Get("/signin")
	assert.NotContains(t, res.Body, "googletagmanager", "no id, no container")
	assert.NotContains(t, res.Header.Get("Content-Security-Policy"), "googletagmanager", "no id, nothing allowed")

	on := webtest.New(t, func(d *web.Deps) { d.TagManagerID = "GTM-AB12CD3" }).Client(t)
	for _, path := range []string{"/signin", "/terms"} {
		res = on.Get(path)
		require.Equal(t, http.StatusOK, res.StatusCode, path)
		csp := res.Header.Get("Content-Security-Policy")
		assert.Contains(t, res.Body, `data-tag-manager="GTM-AB12CD3"`, path)
		assert.Contains(t, csp, "script-src 'self' 'nonce-", path)
		assert.Contains(t, csp, "https://www.googletagmanager.com", path)
		nonce := regexp.MustCompile(`'nonce-([A-Za-z0-9_-]+)'`).FindStringSubmatch(csp)
		require.Len(t, nonce, 2, path)
		assert.Contains(t, scriptOf(res.Body), `nonce="`+nonce[1]+`"`, "the container's script carries this response's nonce")
	}
	on.SignIn(u.EmailAddress)
	res = on.Get("/suppliers?status=enable")
	assert.Contains(t, res.Body, `data-tag-manager="GTM-AB12CD3"`, "signed-in pages load it")

	res = on.Get("/myaccount/creditcards/new")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.NotContains(t, res.Body, "data-tag-manager", "the card page loads only our scripts and the PSP's")
	assert.NotContains(t, res.Header.Get("Content-Security-Policy"), "googletagmanager")

	res = on.Get("/ops/signin")
	assert.NotContains(t, res.Body, "data-tag-manager", "the console is never measured")
	assert.NotContains(t, res.Header.Get("Content-Security-Policy"), "googletagmanager")
}

func TestValidTagManagerID(t *testing.T) {
	for id, want := range map[string]bool{
		"GTM-AB12CD3": true, "GTM-K9": false, "gtm-ab12cd3": false, "GTM-AB12CD3'; script-src *": false,
		"": false, "GTM-AB12CD3\n": false, "UA-12345-1": false,
	} {
		assert.Equal(t, want, web.ValidTagManagerID(id), "%q", id)
	}
}

// TestIslandPagesHaveTheSnackbar: a page with islands carries the snackbar even without a
// notice from the server, so that its islands can raise one (SPEC.md §2); a page without
// islands still ships no script, and a page with a notice has one snackbar, not two.
func TestIslandPagesHaveTheSnackbar(t *testing.T) {
	ta := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := ta.Client(t)
	c.SignIn(u.EmailAddress)

	res := c.Get("/payments/create") // with the sign-in's notice
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "ログインしました")
	assert.Equal(t, 1, strings.Count(res.Body, `data-island="snackbar"`), "a page with a notice has one snackbar, not two")

	res = c.Get("/payments/create")
	assert.Equal(t, 1, strings.Count(res.Body, `data-island="invoice-upload"`))
	assert.Equal(t, 1, strings.Count(res.Body, `data-island="snackbar"`), "the empty snackbar for the island's notices")
	assert.NotContains(t, res.Body, `class="snackbar snackbar--`, "no notice in it")

	res = c.Get("/myaccount")
	assert.NotContains(t, res.Body, "data-island", "no island, no snackbar")
	assert.NotContains(t, res.Body, "<script", "a page without islands ships no script")
}
