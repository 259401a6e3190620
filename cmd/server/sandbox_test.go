package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
)

func TestLoadConfigSandbox(t *testing.T) {
	c, err := LoadConfig(envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, "sandbox", c.PSP)
	assert.Equal(t, 8081, c.SandboxPort)
	assert.Equal(t, "http://localhost:8081", c.SandboxURL)
	assert.Equal(t, 7*24*time.Hour, c.SandboxAuthorizationTTL)

	c, err = LoadConfig(envOf(map[string]string{"SANDBOX_PSP_PORT": "0"}))
	require.NoError(t, err)
	assert.Equal(t, 0, c.SandboxPort)
	assert.Empty(t, c.SandboxURL, "a free port's URL is known once it listens")

	c, err = LoadConfig(envOf(map[string]string{
		"SANDBOX_PSP_PORT": "9091", "SANDBOX_PSP_URL": "https://psp.dev.example/", "SANDBOX_PSP_AUTHORIZATION_TTL": "10m",
	}))
	require.NoError(t, err)
	assert.Equal(t, 9091, c.SandboxPort)
	assert.Equal(t, "https://psp.dev.example", c.SandboxURL)
	assert.Equal(t, 10*time.Minute, c.SandboxAuthorizationTTL)

	for name, env := range map[string]map[string]string{
		"port not a number":  {"SANDBOX_PSP_PORT": "eighty"},
		"port out of range":  {"SANDBOX_PSP_PORT": "70000"},
		"port of the app":    {"PORT": "9000", "SANDBOX_PSP_PORT": "9000"},
		"relative url":       {"SANDBOX_PSP_URL": "localhost:8081"},
		"url with a path":    {"SANDBOX_PSP_URL": "http://localhost:8081/psp"},
		"ttl not a duration": {"SANDBOX_PSP_AUTHORIZATION_TTL": "7 days"},
		"negative ttl":       {"SANDBOX_PSP_AUTHORIZATION_TTL": "-1h"},
	} {
		_, err := LoadConfig(envOf(env))
		assert.Error(t, err, name)
	}
	_, err = LoadConfig(envOf(map[string]string{
		"APP_ENV": "production", "SECRET_KEY": "0123456789abcdef0123456789abcdef",
		"DATABASE_URL": "postgres://app@db/cardpay", "BASE_URL": "https://pay.example.jp", "SMTP_URL": "smtp://mail.example.jp:587",
		"PSP": "sandbox",
	}))
	assert.ErrorContains(t, err, "PSP=stripe", "production refuses the sandbox")
}

func TestSandboxSecrets(t *testing.T) {
	key, hook := sandboxSecrets("one secret")
	key2, hook2 := sandboxSecrets("one secret")
	other, _ := sandboxSecrets("another secret")
	assert.Equal(t, key, key2)
	assert.Equal(t, hook, hook2)
	assert.NotEqual(t, key, other)
	assert.NotEqual(t, strings.TrimPrefix(key, "sk_sandbox_"), strings.TrimPrefix(hook, "whsec_sandbox_"))
	assert.Regexp(t, `^sk_sandbox_[a-z2-7]{52}$`, key)
	assert.NotContains(t, key, "one secret")
}

// The server starts the sandbox PSP on its own port beside the app: migrated, answering
// the browser from the app's origin, and the app's gateway talks to it.
func TestSandboxPSPStartsBesideTheApp(t *testing.T) {
	cfg, err := LoadConfig(envOf(map[string]string{"PORT": "18999", "SANDBOX_PSP_PORT": "0"}))
	require.NoError(t, err)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	gw, origin, sb, err := cardGateway(t.Context(), cfg, db.Store.DB, logger)
	require.NoError(t, err)
	require.NotNil(t, sb)
	assert.Equal(t, "sandbox", gw.Name())
	assert.Equal(t, "http://localhost:"+strconv.Itoa(sb.port), origin)

	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	sb.serve(ctx, errc)
	defer func() {
		cancel()
		shutdown, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		require.NoError(t, sb.shutdown(shutdown))
		assert.ErrorIs(t, <-errc, http.ErrServerClosed)
	}()

	body, _ := json.Marshal(map[string]any{"number": "3530 1113 3330 0000", "exp_month": 4, "exp_year": time.Now().Year() + 2, "cvc": "123", "name": "TARO YAMADA"})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, origin+"/v1/tokens", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Origin", "http://localhost:18999")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode, "the app's origin may tokenise")
	var tok struct{ Token string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))

	card, err := gw.SaveCard(t.Context(), tok.Token)
	require.NoError(t, err)
	assert.Equal(t, "0000", card.Last4)
	tx, err := gw.Authorize(t.Context(), gateway.AuthorizeRequest{PaymentID: "cmd-server-" + strconv.FormatInt(time.Now().UnixMilli()%100000, 10), CardRef: card.Ref, Amount: 1000, ReturnURL: "http://localhost:18999/return"})
	require.NoError(t, err)
	assert.Equal(t, gateway.StatusAuthorized, tx.Status)
}
