package dev_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/mail"
	"cardpay/mail/mailtest"
	"cardpay/store"
)

func TestMain(m *testing.M) { webtest.Main(m) }

// newDevMailboxApp is the test app, whose dependencies include the development mailbox
// (so routes.go routes it), with that mailbox emptied.
func newDevMailboxApp(t *testing.T) *webtest.Client {
	t.Helper()
	_, err := webtest.Store().DB.ExecContext(context.Background(), `DELETE FROM dev_mails`)
	require.NoError(t, err)
	return webtest.New(t).Client(t)
}

func TestDevMailboxShowsWhatTheAppSent(t *testing.T) {
	c := newDevMailboxApp(t)
	smtpURL, stop, err := mail.StartDevServer(context.Background(), webtest.Store())
	require.NoError(t, err)
	t.Cleanup(func() { _ = stop() })
	sender, err := mail.NewSMTP(smtpURL, "請求書カード払い <no-reply@localhost>")
	require.NoError(t, err)

	first := mail.SignupCode("first@example.jp", "請求書カード払い", "111111", 10*time.Minute)
	sent := mail.SignInCode("dev@example.jp", "請求書カード払い", "482913", 10*time.Minute)
	require.NoError(t, sender.Send(context.Background(), first))
	require.NoError(t, sender.Send(context.Background(), sent))

	res := c.Get("/dev/mailbox")
	require.Equal(t, http.StatusOK, res.StatusCode)
	body := res.Body
	assert.Contains(t, body, "<title>開発用メールボックス | 請求書カード払い</title>")
	assert.Equal(t, 1, strings.Count(body, "<h1"), "exactly one h1")
	assert.Contains(t, body, "<caption>受信したメール（新しい順、最大100件）</caption>")
	for _, col := range []string{"受信日時", "宛先", "件名"} {
		assert.Contains(t, body, `<th scope="col">`+col+`</th>`)
	}
	assert.NotContains(t, body, "<script", "no JavaScript")
	assert.NotContains(t, body, "style=", "no inline styles (CSP)")
	assert.NotContains(t, body, "メールはまだありません")
	links := regexp.MustCompile(`<a href="(/dev/mailbox/\d+)">([^<]*)</a>`).FindAllStringSubmatch(body, -1)
	require.Len(t, links, 2)
	assert.Equal(t, sent.Subject, links[0][2], "newest first")
	assert.Equal(t, first.Subject, links[1][2])
	assert.Contains(t, body, "dev@example.jp")
	assert.Regexp(t, `<td>\d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}</td>`, body, "received time in Japanese")

	res = c.Get(links[0][1])
	require.Equal(t, http.StatusOK, res.StatusCode)
	body = res.Body
	assert.Contains(t, body, "<title>"+sent.Subject+" | 開発用メールボックス | 請求書カード払い</title>")
	assert.Equal(t, 1, strings.Count(body, "<h1"), "exactly one h1")
	assert.Contains(t, body, `<h1 class="page-title">`+sent.Subject+`</h1>`)
	assert.Contains(t, body, "<dd>請求書カード払い &lt;no-reply@localhost&gt;</dd>")
	assert.Contains(t, body, "<dd>dev@example.jp</dd>")
	assert.Contains(t, body, `<pre class="mail-body">`)
	assert.Contains(t, body, "\n482913\n", "the body keeps its lines")
	assert.Contains(t, body, "このコードの有効期限は10分です。")
	assert.Equal(t, "482913", mailtest.Code(preText(t, body)))
	assert.NotContains(t, body, "<script")
	assert.NotContains(t, body, "style=")
	assert.Equal(t, "no-store", res.Header.Get("Cache-Control"), "codes are never cached")
}

func TestDevMailboxEmpty(t *testing.T) {
	c := newDevMailboxApp(t)
	res := c.Get("/dev/mailbox")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, "メールはまだありません。")
	assert.NotContains(t, res.Body, "<table")
	assert.Equal(t, 1, strings.Count(res.Body, "<h1"))
}

func TestDevMailUnknownIsNotFound(t *testing.T) {
	c := newDevMailboxApp(t)
	id, err := webtest.Store().SaveDevMail(context.Background(), store.DevMail{To: "a@example.jp", Subject: "件名"})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, c.Get(fmt.Sprintf("/dev/mailbox/%d", id)).StatusCode)
	for _, p := range []string{fmt.Sprintf("/dev/mailbox/%d", id+1), "/dev/mailbox/0", "/dev/mailbox/-1", "/dev/mailbox/abc", "/dev/mailbox/1.5", "/dev/mailbox/99999999999999999999"} {
		res := c.Get(p)
		assert.Equal(t, http.StatusNotFound, res.StatusCode, p)
		assert.Contains(t, res.Body, "ページが見つかりません", p)
	}
}

func TestDevMailboxEscapesWhatItShows(t *testing.T) {
	c := newDevMailboxApp(t)
	id, err := webtest.Store().SaveDevMail(context.Background(), store.DevMail{
		From: `"<b>evil</b>" <x@example.jp>`, To: "<i>a@example.jp</i>", Subject: "<script>alert(1)</script>", Text: "<img src=x onerror=alert(1)>",
	})
	require.NoError(t, err)
	for _, p := range []string{"/dev/mailbox", fmt.Sprintf("/dev/mailbox/%d", id)} {
		res := c.Get(p)
		require.Equal(t, http.StatusOK, res.StatusCode)
		assert.NotContains(t, res.Body, "<script", p)
		assert.NotContains(t, res.Body, "<img", p)
		assert.NotContains(t, res.Body, "<i>", p)
		assert.Contains(t, res.Body, "&lt;script&gt;alert(1)&lt;/script&gt;", p)
	}

	id, err = webtest.Store().SaveDevMail(context.Background(), store.DevMail{To: "a@example.jp"})
	require.NoError(t, err)
	res := c.Get(fmt.Sprintf("/dev/mailbox/%d", id))
	assert.Contains(t, res.Body, `<h1 class="page-title">（件名なし）</h1>`)
}

// preText is the mail body as a browser shows it.
func preText(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<pre class="mail-body">(.*?)</pre>`).FindStringSubmatch(body)
	require.NotNil(t, m)
	return m[1]
}
