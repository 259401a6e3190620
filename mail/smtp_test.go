package mail_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/mail"
	"cardpay/mail/mailtest"
)

const from = "請求書カード払い <no-reply@cardpay.example>"

func TestSendRoundTrip(t *testing.T) {
	srv := mailtest.NewServer(t)
	sender, err := mail.NewSMTP(srv.URL(), from)
	require.NoError(t, err)

	sent := mail.SignupCode("Taro.Yamada@example.jp", service, "482913", 10*time.Minute)
	require.NoError(t, sender.Send(context.Background(), sent))

	got := srv.WaitFor(t, "taro.yamada@example.jp", 5*time.Second)
	assert.Equal(t, sent.Subject, got.Subject, "the Japanese subject arrives exactly")
	assert.Equal(t, sent.Text, got.Text, "the Japanese body arrives exactly")
	assert.Equal(t, from, got.From, "From carries the service name")
	assert.Equal(t, "Taro.Yamada@example.jp", got.To)
	assert.Equal(t, "482913", mailtest.Code(got.Text))
	assert.WithinDuration(t, time.Now(), got.ReceivedAt, 10*time.Second)
	assert.Len(t, srv.Messages(), 1)
}

func TestSendLongSubjectAndBody(t *testing.T) {
	srv := mailtest.NewServer(t)
	sender, err := mail.NewSMTP(srv.URL(), "no-reply@cardpay.example")
	require.NoError(t, err)
	m := mail.Message{
		To:      "user@example.jp",
		Subject: "【請求書カード払い】" + strings.Repeat("とても長い件名でも折り返されて正しく届きます。", 6),
		Text:    strings.Repeat("長い行：いろはにほへと ちりぬるを わかよたれそ つねならむ ABC =?= 123\n", 40) + "末尾の行",
	}
	require.NoError(t, sender.Send(context.Background(), m))
	got := srv.WaitFor(t, "user@example.jp", 5*time.Second)
	assert.Equal(t, m.Subject, got.Subject)
	assert.Equal(t, m.Text, got.Text)
	assert.Equal(t, "no-reply@cardpay.example", got.From)
}

func TestSendSTARTTLSWithAuth(t *testing.T) {
	srv := mailtest.NewServer(t, mailtest.WithSTARTTLS(), mailtest.WithAuth("mailer", "p@ss word"))
	assert.True(t, strings.HasPrefix(srv.URL(), "smtp://mailer:"), srv.URL())
	sender, err := mail.NewSMTPWithTLSConfig(srv.URL(), from, srv.ClientTLSConfig())
	require.NoError(t, err)
	sent := mail.SignInCode("user@example.jp", service, "135790", 10*time.Minute)
	require.NoError(t, sender.Send(context.Background(), sent))
	got := srv.WaitFor(t, "user@example.jp", 5*time.Second)
	assert.Equal(t, sent.Subject, got.Subject)
	assert.Equal(t, "135790", mailtest.Code(got.Text))
}

func TestSendImplicitTLSWithAuth(t *testing.T) {
	srv := mailtest.NewServer(t, mailtest.WithImplicitTLS(), mailtest.WithAuth("mailer", "secret"))
	assert.True(t, strings.HasPrefix(srv.URL(), "smtps://"), srv.URL())
	sender, err := mail.NewSMTPWithTLSConfig(srv.URL(), from, srv.ClientTLSConfig())
	require.NoError(t, err)
	sent := mail.PasswordChanged("user@example.jp", service, at)
	require.NoError(t, sender.Send(context.Background(), sent))
	assert.Equal(t, sent.Text, srv.WaitFor(t, "user@example.jp", 5*time.Second).Text)
}

// The system roots do not know the test certificate, so a send fails exactly when TLS
// is really used: implicitly, and by STARTTLS whenever the server offers it.
func TestSendRefusesAnUntrustedCertificate(t *testing.T) {
	for name, opt := range map[string]mailtest.Option{"smtps": mailtest.WithImplicitTLS(), "STARTTLS": mailtest.WithSTARTTLS()} {
		t.Run(name, func(t *testing.T) {
			srv := mailtest.NewServer(t, opt)
			sender, err := mail.NewSMTP(srv.URL(), from)
			require.NoError(t, err)
			err = sender.Send(context.Background(), mail.PasswordChanged("user@example.jp", service, at))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "certificate")
			assert.Empty(t, srv.Messages())
		})
	}
}

// Production's sender (NewSMTPRequiringTLS) sends nothing to an smtp:// server that does
// not offer STARTTLS — the plain-text fallback the development sender allows — and
// delivers over STARTTLS and implicit TLS as usual.
func TestProductionSenderRequiresTLS(t *testing.T) {
	plain := mailtest.NewServer(t)
	sender, err := mail.NewSMTPRequiringTLS(plain.URL(), from)
	require.NoError(t, err)
	err = sender.Send(context.Background(), mail.PasswordChanged("user@example.jp", service, at))
	require.Error(t, err, "no STARTTLS offered: the mail is not sent in plain text")
	assert.Empty(t, plain.Messages())

	for name, opt := range map[string]mailtest.Option{"smtps": mailtest.WithImplicitTLS(), "STARTTLS": mailtest.WithSTARTTLS()} {
		t.Run(name, func(t *testing.T) {
			srv := mailtest.NewServer(t, opt)
			sender, err := mail.NewSMTPRequiringTLSWithTLSConfig(srv.URL(), from, srv.ClientTLSConfig())
			require.NoError(t, err)
			sent := mail.PasswordChanged("user@example.jp", service, at)
			require.NoError(t, sender.Send(context.Background(), sent))
			assert.Equal(t, sent.Text, srv.WaitFor(t, "user@example.jp", 5*time.Second).Text)
		})
	}
}

func TestSendFailsWithWrongOrMissingCredentials(t *testing.T) {
	srv := mailtest.NewServer(t, mailtest.WithAuth("mailer", "secret"))
	wrong := strings.Replace(srv.URL(), ":secret@", ":wrong@", 1)
	sender, err := mail.NewSMTP(wrong, from)
	require.NoError(t, err)
	err = sender.Send(context.Background(), mail.PasswordChanged("user@example.jp", service, at))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "AUTH")
	assert.NotContains(t, err.Error(), "wrong", "the password is not in the error")

	anonymous := "smtp://" + strings.SplitN(srv.URL(), "@", 2)[1]
	sender, err = mail.NewSMTP(anonymous, from)
	require.NoError(t, err)
	require.Error(t, sender.Send(context.Background(), mail.PasswordChanged("user@example.jp", service, at)))
	assert.Empty(t, srv.Messages())
}

func TestSendFailsCleanly(t *testing.T) {
	srv := mailtest.NewServer(t)
	sender, err := mail.NewSMTP(srv.URL(), from)
	require.NoError(t, err)
	err = sender.Send(context.Background(), mail.Message{To: "not an address", Subject: "件名", Text: "本文"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "recipient")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.Error(t, sender.Send(ctx, mail.PasswordChanged("user@example.jp", service, at)), "a cancelled context stops the send")
	assert.Empty(t, srv.Messages())

	// Nothing listens on this port any more.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	sender, err = mail.NewSMTP("smtp://"+addr, from)
	require.NoError(t, err)
	err = sender.Send(context.Background(), mail.PasswordChanged("user@example.jp", service, at))
	require.Error(t, err)
	assert.Contains(t, err.Error(), addr)
}

func TestWaitForTakesEachMailOnce(t *testing.T) {
	srv := mailtest.NewServer(t)
	sender, err := mail.NewSMTP(srv.URL(), from)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for _, code := range []string{"111111", "222222"} {
		require.NoError(t, sender.Send(context.Background(), mail.SignInCode("a@example.jp", service, code, time.Minute)))
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(50 * time.Millisecond)
		assert.NoError(t, sender.Send(context.Background(), mail.SignInCode("b@example.jp", service, "333333", time.Minute)))
	}()
	assert.Equal(t, "111111", mailtest.Code(srv.WaitFor(t, "a@example.jp", 5*time.Second).Text))
	assert.Equal(t, "222222", mailtest.Code(srv.WaitFor(t, "A@EXAMPLE.JP", 5*time.Second).Text))
	assert.Equal(t, "333333", mailtest.Code(srv.WaitFor(t, "b@example.jp", 5*time.Second).Text), "waits for a mail still to come")
	wg.Wait()
	assert.Len(t, srv.Messages(), 3)
}
