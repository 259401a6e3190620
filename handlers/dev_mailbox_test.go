package handlers

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

	"cardpay/mail"
	"cardpay/mail/mailtest"
)

// newDevMailboxApp is the test app with the mailbox routes that routes.go registers in
// development.
func newDevMailboxApp(t *testing.T) *client {
	t.Helper()
	_, err := db.Store.DB.ExecContext(context.Background(), `DELETE FROM dev_mails`)
	require.NoError(t, err)
	ta := newTestApp(t)
	ta.echo.GET("/dev/mailbox", showDevMailboxPage(ta.App, db.Store))
	ta.echo.GET("/dev/mailbox/:id", showDevMailPage(ta.App, db.Store))
	return ta.client(t)
}

func TestDevMailboxShowsWhatTheAppSent(t *testing.T) {
	c := newDevMailboxApp(t)
	smtpURL, stop, err := mail.StartDevServer(context.Background(), db.Store)
	require.NoError(t, err)
	t.Cleanup(func() { _ = stop() })
	sender, err := mail.NewSMTP(smtpURL, "請求書カード払い <no-reply@localhost>")
	require.NoError(t, err)

	first := mail.SignupCode("first@example.jp", "請求書カード払い", "111111", 10*time.Minute)
	sent := mail.SignInCode("dev@example.jp", "請求書カード払い", "482913", 10*time.Minute)
	require.NoError(t, sender.Send(context.Background(), first))
	require.NoError(t, sender.Send(context.Background(), sent))

	res := c.get("/dev/mailbox")
	require.Equal(t, http.StatusOK, res.StatusCode)
	body := res.body
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

	res = c.get(links[0][1])
	require.Equal(t, http.StatusOK, res.StatusCode)
	body = res.body
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
	res := c.get("/dev/mailbox")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.body, "メールはまだありません。")
	assert.NotContains(t, res.body, "<table")
	assert.Equal(t, 1, strings.Count(res.body, "<h1"))
}

func TestDevMailUnknownIsNotFound(t *testing.T) {
	c := newDevMailboxApp(t)
	id, err := db.Store.SaveDevMail(context.Background(), mail.Received{To: "a@example.jp", Subject: "件名"})
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, c.get(fmt.Sprintf("/dev/mailbox/%d", id)).StatusCode)
	for _, p := range []string{fmt.Sprintf("/dev/mailbox/%d", id+1), "/dev/mailbox/0", "/dev/mailbox/-1", "/dev/mailbox/abc", "/dev/mailbox/1.5", "/dev/mailbox/99999999999999999999"} {
		res := c.get(p)
		assert.Equal(t, http.StatusNotFound, res.StatusCode, p)
		assert.Contains(t, res.body, "ページが見つかりません", p)
	}
}

func TestDevMailboxEscapesWhatItShows(t *testing.T) {
	c := newDevMailboxApp(t)
	id, err := db.Store.SaveDevMail(context.Background(), mail.Received{
		From: `"<b>evil</b>" <x@example.jp>`, To: "<i>a@example.jp</i>", Subject: "<script>alert(1)</script>", Text: "<img src=x onerror=alert(1)>",
	})
	require.NoError(t, err)
	for _, p := range []string{"/dev/mailbox", fmt.Sprintf("/dev/mailbox/%d", id)} {
		res := c.get(p)
		require.Equal(t, http.StatusOK, res.StatusCode)
		assert.NotContains(t, res.body, "<script", p)
		assert.NotContains(t, res.body, "<img", p)
		assert.NotContains(t, res.body, "<i>", p)
		assert.Contains(t, res.body, "&lt;script&gt;alert(1)&lt;/script&gt;", p)
	}

	id, err = db.Store.SaveDevMail(context.Background(), mail.Received{To: "a@example.jp"})
	require.NoError(t, err)
	res := c.get(fmt.Sprintf("/dev/mailbox/%d", id))
	assert.Contains(t, res.body, `<h1 class="page-title">（件名なし）</h1>`)
}

// preText is the mail body as a browser shows it.
func preText(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<pre class="mail-body">(.*?)</pre>`).FindStringSubmatch(body)
	require.NotNil(t, m)
	return m[1]
}
