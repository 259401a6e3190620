package smtpd

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func start(t *testing.T, o Options) (*Server, chan Delivery) {
	t.Helper()
	got := make(chan Delivery, 4)
	s, err := Start(o, func(_ context.Context, d Delivery) error {
		got <- d
		return nil
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, got
}

func send(t *testing.T, addr string, auth sasl.Client) error {
	t.Helper()
	c, err := smtp.Dial(addr)
	require.NoError(t, err)
	defer c.Close()
	if auth != nil {
		if err := c.Auth(auth); err != nil {
			return err
		}
	}
	return c.SendMail("from@example.jp", []string{"to@example.jp"}, strings.NewReader("Subject: hi\r\n\r\nbody\r\n"))
}

func TestAuthPlainAndLogin(t *testing.T) {
	s, got := start(t, Options{Username: "mailer", Password: "secret"})
	for name, client := range map[string]sasl.Client{
		"PLAIN": sasl.NewPlainClient("", "mailer", "secret"),
		"LOGIN": sasl.NewLoginClient("mailer", "secret"),
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, send(t, s.Addr(), client))
			select {
			case d := <-got:
				assert.Equal(t, "from@example.jp", d.From)
				assert.Equal(t, []string{"to@example.jp"}, d.To)
				assert.Contains(t, string(d.Data), "body")
			case <-time.After(5 * time.Second):
				t.Fatal("nothing delivered")
			}
		})
	}
	assert.Error(t, send(t, s.Addr(), sasl.NewLoginClient("mailer", "wrong")), "a wrong password is refused")
	assert.Error(t, send(t, s.Addr(), nil), "MAIL needs AUTH first")
	assert.Empty(t, got)
}

func TestLoginServerWithInitialResponse(t *testing.T) {
	var user, pass string
	l := &loginServer{check: func(u, p string) error { user, pass = u, p; return nil }}
	challenge, done, err := l.Next([]byte("mailer"))
	require.NoError(t, err)
	assert.False(t, done)
	assert.Equal(t, "Password:", string(challenge))
	_, done, err = l.Next([]byte("secret"))
	require.NoError(t, err)
	assert.True(t, done)
	assert.Equal(t, "mailer", user)
	assert.Equal(t, "secret", pass)
}

func TestCloseRightAfterStart(t *testing.T) {
	for range 20 {
		s, err := Start(Options{}, func(context.Context, Delivery) error { return nil })
		require.NoError(t, err)
		closed := make(chan struct{})
		go func() {
			_ = s.Close()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(5 * time.Second):
			t.Fatal("Close hung")
		}
		require.NoError(t, s.Close(), "a second Close is harmless")
	}
}

func TestCloseDropsIdleConnections(t *testing.T) {
	s, _ := start(t, Options{})
	c, err := smtp.Dial(s.Addr())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.Hello("localhost"))
	began := time.Now()
	require.NoError(t, s.Close())
	assert.Less(t, time.Since(began), 3*time.Second, "an idle client does not hold Close up for the read timeout")
	assert.Error(t, c.Noop(), "the connection is gone")
}
