package mail_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/mail"
)

func crlf(s string) []byte { return []byte(strings.ReplaceAll(s, "\n", "\r\n")) }

func TestDecodeQuotedPrintable(t *testing.T) {
	raw := crlf(`From: =?UTF-8?Q?=E8=AB=8B=E6=B1=82=E6=9B=B8?= <no-reply@cardpay.example>
To: user@example.jp
Subject: =?UTF-8?Q?=E3=80=90=E8=AB=8B=E6=B1=82=E6=9B=B8=E3=80=91?=
 =?UTF-8?Q?=E8=AA=8D=E8=A8=BC?=
MIME-Version: 1.0
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

=E3=81=84=E3=81=A4=E3=82=82=E3=81=94=E5=88=A9=E7=94=A8=E3=81=84=E3=81=9F=E3=
=81=A0=E3=81=8D=E3=81=82=E3=82=8A=E3=81=8C=E3=81=A8=E3=81=86=E3=81=94=E3=81=
=96=E3=81=84=E3=81=BE=E3=81=99=E3=80=82

123456
`)
	r, err := mail.Decode(raw)
	require.NoError(t, err)
	assert.Equal(t, "請求書 <no-reply@cardpay.example>", r.From)
	assert.Equal(t, "user@example.jp", r.To)
	assert.Equal(t, "【請求書】認証", r.Subject, "adjacent encoded words join without the folding space")
	assert.Equal(t, "いつもご利用いただきありがとうございます。\n\n123456", r.Text)
}

func TestDecodeBase64AndPlain(t *testing.T) {
	r, err := mail.Decode(crlf(`From: a@example.jp
To: "山田 太郎" <taro@example.jp>, hanako@example.jp
Subject: =?utf-8?b?5pys5paH?=
Content-Type: text/plain; charset="UTF-8"
Content-Transfer-Encoding: base64

44GC44GE44GG
44GI44GK
`))
	require.NoError(t, err)
	assert.Equal(t, "山田 太郎 <taro@example.jp>, hanako@example.jp", r.To)
	assert.Equal(t, "本文", r.Subject)
	assert.Equal(t, "あいうえお", r.Text)

	r, err = mail.Decode(crlf("Subject: plain\n\nno content type: US-ASCII text\nline 2\n"))
	require.NoError(t, err)
	assert.Equal(t, "plain", r.Subject)
	assert.Equal(t, "no content type: US-ASCII text\nline 2", r.Text)
	assert.Empty(t, r.From)
}

func TestDecodeMultipartPrefersPlainText(t *testing.T) {
	r, err := mail.Decode(crlf(`From: a@example.jp
To: b@example.jp
Subject: multipart
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="outer"

--outer
Content-Type: multipart/alternative; boundary="inner"

--inner
Content-Type: text/html; charset=UTF-8

<p>HTML版</p>
--inner
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: base64

44OG44Kt44K544OI54mI
--inner--
--outer
Content-Type: application/pdf
Content-Transfer-Encoding: base64

JVBERi0=
--outer--
`))
	require.NoError(t, err)
	assert.Equal(t, "テキスト版", r.Text)

	r, err = mail.Decode(crlf(`Subject: html only
Content-Type: multipart/alternative; boundary=b

--b
Content-Type: text/html; charset=UTF-8

<p>HTMLだけ</p>
--b--
`))
	require.NoError(t, err)
	assert.Equal(t, "<p>HTMLだけ</p>", r.Text, "without text/plain the first text part is shown as it is")
}

func TestDecodeRefusesWhatIsNotAMessage(t *testing.T) {
	_, err := mail.Decode([]byte("this is not\r\na header block"))
	assert.Error(t, err)
	_, err = mail.Decode(crlf("Subject: x\nContent-Type: multipart/mixed\n\nno boundary\n"))
	assert.Error(t, err)
}

func TestDecodeKeepsOnlyStorableText(t *testing.T) {
	// Shift_JIS bytes (not decoded) and a NUL, which PostgreSQL text refuses.
	r, err := mail.Decode([]byte("Subject: sjis\r\nContent-Type: text/plain; charset=Shift_JIS\r\n\r\n\x82\xa0a\x00b\r\n"))
	require.NoError(t, err)
	assert.Equal(t, "\uFFFDab", r.Text, "a run of invalid bytes becomes one U+FFFD")
}
