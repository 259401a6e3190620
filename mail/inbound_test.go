package mail_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/japanese"

	"cardpay/mail"
)

func iso2022jp(t *testing.T, s string) string {
	t.Helper()
	b, err := japanese.ISO2022JP.NewEncoder().String(s)
	require.NoError(t, err)
	return b
}

// What Japanese mailers send: an ISO-2022-JP subject and a file name in RFC 2047
// (quoted, which the RFC forbids and Outlook does), an RFC 2231 name, a nested
// multipart/alternative body, and the MTA's Authentication-Results above one the
// sender forged.
func TestParseInbound(t *testing.T) {
	b64 := func(s string) string { return "=?ISO-2022-JP?B?" + encodeB64(s) + "?=" }
	raw := strings.Join([]string{
		"Authentication-Results: mx.example.jp; spf=pass smtp.mailfrom=supplier.example; dkim=fail header.d=list.example; dkim=pass header.d=supplier.example; dmarc=pass header.from=supplier.example",
		"Authentication-Results: mx.example.jp; spf=fail; dkim=fail; dmarc=fail",
		"From: " + b64(iso2022jp(t, "山田商店")) + " <Yamada@Supplier.Example>",
		"Subject: " + b64(iso2022jp(t, "請求書の送付")),
		"Message-ID: <abc@supplier.example>",
		"MIME-Version: 1.0",
		`Content-Type: multipart/mixed; boundary="outer"`,
		"",
		"--outer",
		`Content-Type: multipart/alternative; boundary="inner"`,
		"",
		"--inner",
		"Content-Type: text/plain; charset=ISO-2022-JP",
		"",
		iso2022jp(t, "よろしくお願いします"),
		"--inner",
		"Content-Type: text/html; charset=UTF-8",
		"",
		"<p>よろしく</p>",
		"--inner--",
		"--outer",
		`Content-Type: application/pdf; name="` + b64(iso2022jp(t, "請求書.pdf")) + `"`,
		`Content-Disposition: attachment; filename="` + b64(iso2022jp(t, "請求書.pdf")) + `"`,
		"Content-Transfer-Encoding: base64",
		"",
		encodeB64("%PDF-1.4 one"),
		"--outer",
		"Content-Type: image/png",
		"Content-Disposition: attachment; filename*=UTF-8''%E8%AB%8B%E6%B1%82%E6%9B%B8.png",
		"",
		"PNGDATA",
		"--outer",
		"Content-Type: image/png",
		"Content-Disposition: inline",
		"Content-ID: <logo>",
		"",
		"LOGO",
		"--outer--",
		"",
	}, "\r\n")
	in, err := mail.ParseInbound([]byte(raw), "mx.example.jp")
	require.NoError(t, err)
	assert.Equal(t, "yamada@supplier.example", in.FromAddress)
	assert.Equal(t, "山田商店", in.FromName)
	assert.Equal(t, "請求書の送付", in.Subject)
	assert.Equal(t, "abc@supplier.example", in.MessageID)
	assert.Equal(t, mail.Auth{SPF: mail.VerdictPass, DKIM: mail.VerdictPass, DMARC: mail.VerdictPass}, in.Auth,
		"the first header by our MTA; one passing signature is enough")
	require.Len(t, in.Attachments, 2, "the PDF and the PNG; not the body's text nor the inline logo")
	assert.Equal(t, "請求書.pdf", in.Attachments[0].Name)
	assert.Equal(t, "%PDF-1.4 one", string(in.Attachments[0].Bytes))
	assert.Equal(t, "請求書.png", in.Attachments[1].Name)
	assert.False(t, in.AutoSubmitted)

	untrusted, err := mail.ParseInbound([]byte(raw), "other-mx.example.jp")
	require.NoError(t, err)
	assert.Equal(t, mail.Auth{SPF: mail.VerdictNone, DKIM: mail.VerdictNone, DMARC: mail.VerdictNone}, untrusted.Auth,
		"headers by another id may be the sender's own")
}

func encodeB64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
