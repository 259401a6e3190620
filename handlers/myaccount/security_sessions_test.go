package myaccount_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

const (
	uaChromeWindows = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	uaSafariIPhone  = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
	uaFirefoxLinux  = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	uaEdgeMac       = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0"
)

// withUserAgent sends every request with its own User-Agent, as one browser would.
type withUserAgent struct{ ua string }

func (w withUserAgent) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("User-Agent", w.ua)
	return http.DefaultTransport.RoundTrip(r)
}

// browserSignedIn is a new browser with user agent ua, signed in as u.
func browserSignedIn(t *testing.T, env *webtest.Env, ua string, u store.User) *webtest.Client {
	t.Helper()
	c := env.Client(t)
	c.HTTP.Transport = withUserAgent{ua}
	c.SignIn(u.EmailAddress)
	return c
}

// sessionIDOf is the id of u's live session signed in with user agent ua.
func sessionIDOf(t *testing.T, u store.User, ua string) int64 {
	t.Helper()
	list, err := webtest.Store().LiveUserSessions(context.Background(), u.BuyerID, u.ID, time.Time{}, time.Time{})
	require.NoError(t, err)
	for _, s := range list {
		if s.UserAgent == ua {
			return s.ID
		}
	}
	t.Fatalf("no live session of user %d with user agent %q", u.ID, ua)
	return 0
}

func endPath(id int64) string {
	return "/myaccount/security/sessions/" + strconv.FormatInt(id, 10) + "/end"
}

// assertSignedIn checks that c's next request is still signed in.
func assertSignedIn(t *testing.T, c *webtest.Client, msg string) {
	t.Helper()
	res := c.Get("/myaccount")
	assert.Equal(t, http.StatusOK, res.StatusCode, msg)
}

// assertSignedOut checks that c's next request is sent to sign in, with the notice that
// its session was ended.
func assertSignedOut(t *testing.T, c *webtest.Client, msg string) {
	t.Helper()
	res := c.Get("/myaccount")
	require.Equal(t, http.StatusSeeOther, res.StatusCode, msg)
	loc := res.Header.Get("Location")
	require.True(t, strings.HasPrefix(loc, "/signin"), "%s: Location %q", msg, loc)
	assert.Contains(t, c.Get(loc).Body, "このセッションは終了しました", msg)
}

func TestSecurityPageListsSessions(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	chrome := browserSignedIn(t, env, uaChromeWindows, u)
	safari := browserSignedIn(t, env, uaSafariIPhone, u)
	chromeID, safariID := sessionIDOf(t, u, uaChromeWindows), sessionIDOf(t, u, uaSafariIPhone)

	res := chrome.Get("/myaccount/security")
	require.Equal(t, http.StatusOK, res.StatusCode)
	body := res.Body
	for _, want := range []string{
		`<h2 class="account-heading">ログイン中の端末</h2>`, `<caption id="sessions-caption">ログイン中の端末`,
		`<th scope="col">端末</th>`, `<th scope="col">IPアドレス</th>`, `<th scope="col">ログイン日時</th>`, `<th scope="col">最終利用日時</th>`,
		"Chrome（Windows）", "Safari（iPhone）", "127.0.0.1", "現在のセッション",
		`action="` + endPath(safariID) + `"`, "ログアウトさせる", `action="/myaccount/security/sessions/end-others"`, "他のすべての端末からログアウト",
		// The sign-in history is still there.
		`<caption id="signin-history-caption">最近のログイン`,
	} {
		assert.Contains(t, body, want)
	}
	assert.Equal(t, 1, strings.Count(body, ">この端末</span>"), "one session is this one")
	assert.NotContains(t, body, endPath(chromeID), "no button ends the session the page is shown in")
	assert.Less(t, strings.Index(body, "Chrome（Windows）"), strings.Index(body, "Safari（iPhone）"), "this browser first, though it signed in earlier")
	assert.Regexp(t, `<td class="account-table__nowrap">\d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}</td>`, body, "dates in Japanese style")

	// The other browser sees the same two, the other way round.
	body = safari.Get("/myaccount/security").Body
	assert.Contains(t, body, `action="`+endPath(chromeID)+`"`)
	assert.NotContains(t, body, endPath(safariID))
	assert.Less(t, strings.Index(body, "Safari（iPhone）"), strings.Index(body, "Chrome（Windows）"))

	// A buyer signed in once has nothing else to end; another buyer's sessions are not
	// listed.
	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := browserSignedIn(t, env, uaFirefoxLinux, other)
	res = oc.Get("/myaccount/security")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "Firefox（Linux）")
	assert.Contains(t, res.Body, "他にログイン中の端末はありません")
	assert.NotContains(t, res.Body, "他のすべての端末からログアウト")
	assert.NotContains(t, res.Body, "Chrome（Windows）")
	assert.NotContains(t, res.Body, "ログアウトさせる")

	// A client that sends no known user agent is 不明.
	plain := env.Client(t)
	plain.SignIn(other.EmailAddress)
	assert.Contains(t, plain.Get("/myaccount/security").Body, "<td>不明")
}

func TestEndingAnotherSession(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	chrome := browserSignedIn(t, env, uaChromeWindows, u)
	firefox := browserSignedIn(t, env, uaFirefoxLinux, u)
	chromeID, firefoxID := sessionIDOf(t, u, uaChromeWindows), sessionIDOf(t, u, uaFirefoxLinux)

	res := chrome.Post(endPath(firefoxID), nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/myaccount/security", res.Header.Get("Location"))
	page := chrome.Get("/myaccount/security").Body
	assert.Contains(t, page, "選択した端末をログアウトさせました")
	assert.Contains(t, page, "Firefox（Linux）（127.0.0.1）は、もう一度ログインするまでご利用いただけません。")
	assert.NotContains(t, page, endPath(firefoxID), "the ended session is no longer listed")
	assert.Contains(t, page, "他にログイン中の端末はありません")

	assertSignedOut(t, firefox, "the ended browser")
	assertSignedIn(t, chrome, "the browser that ended it")

	// Ended already: nothing more happens.
	res = chrome.Post(endPath(firefoxID), nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Contains(t, chrome.Get("/myaccount/security").Body, "選択した端末はすでにログアウトしています")

	// The session the request comes from is not ended by this form (a forged POST).
	res = chrome.Post(endPath(chromeID), nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "/myaccount/security", res.Header.Get("Location"))
	assert.Contains(t, chrome.Get("/myaccount/security").Body, "この端末はここではログアウトできません")
	assertSignedIn(t, chrome, "still signed in")

	// Firefox signs in again: a new session, listed again.
	firefox.SignIn(u.EmailAddress)
	assertSignedIn(t, firefox, "signed in again")
	assert.NotEqual(t, firefoxID, sessionIDOf(t, u, uaFirefoxLinux))
}

func TestEndingEveryOtherSession(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	chrome := browserSignedIn(t, env, uaChromeWindows, u)
	safari := browserSignedIn(t, env, uaSafariIPhone, u)
	edge := browserSignedIn(t, env, uaEdgeMac, u)
	api := apiLogin(t, env, u, "accounting-tool/2.0")

	// Another buyer, signed in too, is not touched.
	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := browserSignedIn(t, env, uaFirefoxLinux, other)

	page := safari.Get("/myaccount/security").Body
	for _, want := range []string{"Chrome（Windows）", "Safari（iPhone）", "Edge（macOS）", "<td>APIクライアント"} {
		assert.Contains(t, page, want)
	}
	assert.Equal(t, 3, strings.Count(page, "ログアウトさせる<span"), "a button for each of the other three")

	res := safari.Post("/myaccount/security/sessions/end-others", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, "/myaccount/security", res.Header.Get("Location"))
	res = safari.Get("/myaccount/security")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "他のすべての端末からログアウトしました")
	assert.Contains(t, res.Body, "他にログイン中の端末はありません")
	for _, gone := range []string{"Chrome（Windows）", "Edge（macOS）", "<td>APIクライアント"} {
		assert.NotContains(t, res.Body, gone)
	}

	assertSignedIn(t, safari, "the browser that asked")
	assertSignedOut(t, chrome, "chrome")
	assertSignedOut(t, edge, "edge")
	assert.Equal(t, http.StatusUnauthorized, refresh(t, env, api.RefreshToken), "the API client's refresh token is refused")
	assertSignedIn(t, oc, "another buyer's browser")

	// With nobody else signed in, the button still answers, and this browser stays.
	res = safari.Post("/myaccount/security/sessions/end-others", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assertSignedIn(t, safari, "still signed in")
}

func TestEndingAnotherBuyersSession(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := browserSignedIn(t, env, uaChromeWindows, u)
	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := browserSignedIn(t, env, uaSafariIPhone, other)
	otherAPI := apiLogin(t, env, other, "other-tool/1.0")
	otherID := sessionIDOf(t, other, uaSafariIPhone)
	otherAPIID := sessionIDOf(t, other, "other-tool/1.0")

	for _, id := range []int64{otherID, otherAPIID} {
		res := c.Post(endPath(id), nil)
		assert.Equal(t, http.StatusNotFound, res.StatusCode, "another buyer's session %d is the 404 page", id)
		assert.Contains(t, res.Body, "ページが見つかりません")
	}
	assertSignedIn(t, oc, "the other buyer is still signed in")
	assert.Equal(t, http.StatusOK, refresh(t, env, otherAPI.RefreshToken), "the other buyer's API sign-in still works")
	assertSignedIn(t, c, "and so is the one who tried")
	list, err := webtest.Store().LiveUserSessions(context.Background(), other.BuyerID, other.ID, time.Time{}, time.Time{})
	require.NoError(t, err)
	assert.Len(t, list, 2, "nothing of the other buyer's was ended")
}

func TestEndingSessionBadIDs(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := browserSignedIn(t, env, uaChromeWindows, u)
	d := browserSignedIn(t, env, uaSafariIPhone, u)
	for _, id := range []string{"abc", "0", "-1", "1.5", "1e3", "%ff", "%E3%81%82", "99999999999999999999", "999999999", "end-others"} {
		res := c.Post("/myaccount/security/sessions/"+id+"/end", nil)
		assert.Equal(t, http.StatusNotFound, res.StatusCode, "id %q", id)
		assert.Less(t, res.StatusCode, 500, "id %q", id)
	}
	assertSignedIn(t, c, "nothing ended")
	assertSignedIn(t, d, "nothing ended")

	// Anonymous visitors are sent to sign in, and end nothing.
	anon := env.Client(t)
	res := anon.Post(endPath(sessionIDOf(t, u, uaSafariIPhone)), nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.True(t, strings.HasPrefix(res.Header.Get("Location"), "/signin"))
	res = anon.Post("/myaccount/security/sessions/end-others", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assertSignedIn(t, d, "still signed in")
}

func TestEndingAnAPISession(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	first := apiLogin(t, env, u, "accounting-tool/2.0")
	second := apiLogin(t, env, u, "erp-connector/5.1")
	c := browserSignedIn(t, env, uaChromeWindows, u)

	page := c.Get("/myaccount/security").Body
	assert.Equal(t, 2, strings.Count(page, "<td>APIクライアント"), "API sign-ins are listed as API clients")
	firstID := sessionIDOf(t, u, "accounting-tool/2.0")

	res := c.Post(endPath(firstID), nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	page = c.Get("/myaccount/security").Body
	assert.Contains(t, page, "選択した端末をログアウトさせました")
	assert.Contains(t, page, "APIクライアント（127.0.0.1）は")
	assert.Equal(t, 1, strings.Count(page, "<td>APIクライアント"))
	assert.NotContains(t, page, endPath(firstID))

	assert.Equal(t, http.StatusUnauthorized, refresh(t, env, first.RefreshToken), "the ended sign-in's refresh token is refused")
	assert.Equal(t, http.StatusOK, refresh(t, env, second.RefreshToken), "the other API sign-in still works")
	assertSignedIn(t, c, "the browser that ended it")
}

// apiTokens is what POST /api/v1/login answers.
type apiTokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}

// apiLogin signs u in through the API with user agent ua.
func apiLogin(t *testing.T, env *webtest.Env, u store.User, ua string) apiTokens {
	t.Helper()
	status, body := postJSON(t, env, "/api/v1/login", ua, map[string]string{"email_address": u.EmailAddress, "password": webtest.Password})
	require.Equal(t, http.StatusOK, status, string(body))
	var tok apiTokens
	require.NoError(t, json.Unmarshal(body, &tok))
	require.NotEmpty(t, tok.RefreshToken)
	return tok
}

// refresh exchanges a refresh token (POST /api/v1/users/token) and says how it was
// answered.
func refresh(t *testing.T, env *webtest.Env, token string) int {
	t.Helper()
	status, _ := postJSON(t, env, "/api/v1/users/token", "", map[string]string{"refresh_token": token})
	return status
}

func postJSON(t *testing.T, env *webtest.Env, path, ua string, v any) (int, []byte) {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, env.URL+path, bytes.NewReader(b))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if ua != "" {
		req.Header.Set("User-Agent", ua)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(res.Body)
	require.NoError(t, err)
	return res.StatusCode, buf.Bytes()
}
