package mail_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/mail"
	"cardpay/store"
)

// memBox is a Box in memory; the store's own tests cover *store.Store.
type memBox struct {
	mu    sync.Mutex
	mails []store.DevMail
	fail  error
}

func (b *memBox) SaveDevMail(_ context.Context, m store.DevMail) (int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail != nil {
		return 0, b.fail
	}
	m.ID = int64(len(b.mails) + 1)
	b.mails = append(b.mails, m)
	return m.ID, nil
}

func (b *memBox) DevMails(context.Context, int) ([]store.DevMail, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]store.DevMail(nil), b.mails...), nil
}

func (b *memBox) DevMail(_ context.Context, id int64) (store.DevMail, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if id < 1 || int(id) > len(b.mails) {
		return store.DevMail{}, errors.New("not found")
	}
	return b.mails[id-1], nil
}

func TestDevServerKeepsWhatItReceives(t *testing.T) {
	box := &memBox{}
	smtpURL, stop, err := mail.StartDevServer(context.Background(), box)
	require.NoError(t, err)
	u, err := url.Parse(smtpURL)
	require.NoError(t, err)
	assert.Equal(t, "smtp", u.Scheme)
	assert.Equal(t, "127.0.0.1", u.Hostname(), "loopback only")

	sender, err := mail.NewSMTP(smtpURL, from)
	require.NoError(t, err)
	sent := mail.EmailChangeCode("next@example.jp", service, "246810", 10*time.Minute)
	require.NoError(t, sender.Send(context.Background(), sent))

	mails, err := box.DevMails(context.Background(), 10)
	require.NoError(t, err)
	require.Len(t, mails, 1, "Send returns once the box has the mail")
	got := mails[0]
	assert.Equal(t, from, got.From)
	assert.Equal(t, "next@example.jp", got.To)
	assert.Equal(t, sent.Subject, got.Subject)
	assert.Equal(t, sent.Text, got.Text)
	assert.WithinDuration(t, time.Now(), got.ReceivedAt, 10*time.Second)

	// A mail the box cannot keep is refused, so the sender hears of it.
	box.mu.Lock()
	box.fail = errors.New("database down")
	box.mu.Unlock()
	err = sender.Send(context.Background(), sent)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "database down")

	require.NoError(t, stop())
	require.NoError(t, stop(), "stop twice is harmless")
	assert.Error(t, sender.Send(context.Background(), sent), "nothing listens after stop")
}

func TestDevServerRefusesMoreThanOneMegabyte(t *testing.T) {
	box := &memBox{}
	smtpURL, stop, err := mail.StartDevServer(context.Background(), box)
	require.NoError(t, err)
	t.Cleanup(func() { _ = stop() })
	sender, err := mail.NewSMTP(smtpURL, from)
	require.NoError(t, err)
	err = sender.Send(context.Background(), mail.Message{To: "a@example.jp", Subject: "大きい", Text: strings.Repeat("あ", 400_000)})
	require.Error(t, err)
	mails, err := box.DevMails(context.Background(), 10)
	require.NoError(t, err)
	assert.Empty(t, mails)
}

func TestDevServerStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	smtpURL, stop, err := mail.StartDevServer(ctx, &memBox{})
	require.NoError(t, err)
	defer stop()
	cancel()
	addr := strings.TrimPrefix(smtpURL, "smtp://")
	assert.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err != nil
	}, 5*time.Second, 20*time.Millisecond)
}
