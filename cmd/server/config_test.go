package main

import (
	"cardpay/pay"

	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envOf is an environment of m, in development unless m names APP_ENV (even as ""):
// without APP_ENV the server takes itself for production.
func envOf(m map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := m[k]; ok || k != "APP_ENV" {
			return v
		}
		return "development"
	}
}

// A server started without APP_ENV applies the production rules: with nothing else
// set it refuses to start, saying why; with every production setting it starts as
// production (the sandbox PSP, the development secret and the mailbox are never used).
func TestLoadConfigWithoutAppEnvIsProduction(t *testing.T) {
	_, err := LoadConfig(envOf(map[string]string{"APP_ENV": ""}))
	require.Error(t, err)
	for _, want := range []string{"APP_ENV is not set", "SECRET_KEY", "DATABASE_URL", "SMTP_URL", "PSP=stripe", "TRANSFER_REMITTER_CODE"} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = LoadConfig(envOf(map[string]string{"APP_ENV": "", "DEMO_PASSWORD": "demo"}))
	assert.ErrorContains(t, err, "DEMO_PASSWORD", "no demo accounts without APP_ENV")

	prod := map[string]string{"APP_ENV": ""}
	for k, v := range productionEnv() {
		if k != "APP_ENV" {
			prod[k] = v
		}
	}
	c, err := LoadConfig(envOf(prod))
	require.NoError(t, err)
	assert.True(t, c.Production())
	assert.Equal(t, "production", c.Env)
}

// productionEnv is a complete production configuration.
func productionEnv() map[string]string {
	prod := map[string]string{
		"APP_ENV": "production", "SECRET_KEY": "0123456789abcdef0123456789abcdef",
		"DATABASE_URL": "postgres://app@db/cardpay", "BASE_URL": "https://pay.example.jp/",
		"SMTP_URL": "smtp://mail.example.jp:587", "FILES_DIR": "/srv/cardpay/files",
		"PSP": "stripe", "STRIPE_SECRET_KEY": "sk_live_cardpay", "STRIPE_WEBHOOK_SECRET": "whsec_cardpay", "STRIPE_PUBLISHABLE_KEY": "pk_live_cardpay",
	}
	for k, v := range prodTransfers {
		prod[k] = v
	}
	return prod
}

func TestLoadConfigDefaults(t *testing.T) {
	c, err := LoadConfig(envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, 8080, c.Port)
	assert.Equal(t, "development", c.Env)
	assert.False(t, c.Production())
	assert.Equal(t, pay.DefaultLimits, c.Limits, "¥1,000 to ¥10,000,000 and a 3.0 % fee")
	assert.Equal(t, "請求書カード払い", c.ServiceName)
	assert.Equal(t, "http://localhost:8080", c.BaseURL)
	assert.Equal(t, "/help/faq", c.Links.FAQ)
	assert.NotEmpty(t, c.SecretKey)
	assert.Equal(t, 2, c.JobWorkers)
}

func TestLoadConfig(t *testing.T) {
	prod := productionEnv()
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range prod {
			m[a] = b
		}
		m[k] = v
		return m
	}
	tests := []struct {
		name    string
		env     map[string]string
		wantErr string
	}{
		{"complete production", prod, ""},
		{"production without the remitter", with("TRANSFER_REMITTER_CODE", ""), "TRANSFER_REMITTER_CODE"},
		{"production with a short remitter code", with("TRANSFER_REMITTER_CODE", "12345"), "10-digit"},
		{"production with a kanji remitter name", with("TRANSFER_REMITTER_NAME", "請求書"), "TRANSFER_REMITTER_NAME"},
		{"production with account type 0", with("TRANSFER_REMITTER_ACCOUNT_TYPE", "0"), "TRANSFER_REMITTER_ACCOUNT_TYPE"},
		{"production without the issuer", with("ISSUER_NAME", ""), "ISSUER_NAME"},
		{"production with a bad registration number", with("ISSUER_REGISTRATION_NUMBER", "T1180301018772"), "ISSUER_REGISTRATION_NUMBER"},
		{"production without secret", with("SECRET_KEY", ""), "SECRET_KEY"},
		{"production with the development secret", with("SECRET_KEY", devSecretKey), "SECRET_KEY"},
		{"production with a short secret", with("SECRET_KEY", "short"), "SECRET_KEY"},
		{"production without database", with("DATABASE_URL", ""), "DATABASE_URL"},
		{"production over http", with("BASE_URL", "http://pay.example.jp"), "https://"},
		{"production without SMTP", with("SMTP_URL", ""), "SMTP_URL"},
		{"production without a place for invoice files", with("FILES_DIR", ""), "FILES_DIR"},
		{"S3 without its bucket", with("FILES_S3_ENDPOINT", "s3.example.jp"), "FILES_S3_BUCKET"},
		{"production with a demo password", with("DEMO_PASSWORD", "x"), "DEMO_PASSWORD"},
		{"production with the sandbox PSP", with("PSP", "sandbox"), "PSP=stripe"},
		{"production without a PSP", with("PSP", ""), "PSP=stripe"},
		{"production without the Stripe secret key", with("STRIPE_SECRET_KEY", ""), "STRIPE_SECRET_KEY"},
		{"production without the Stripe webhook secret", with("STRIPE_WEBHOOK_SECRET", ""), "STRIPE_WEBHOOK_SECRET"},
		{"production without the Stripe publishable key", with("STRIPE_PUBLISHABLE_KEY", ""), "STRIPE_PUBLISHABLE_KEY"},
		{"the secret key as the publishable key", with("STRIPE_PUBLISHABLE_KEY", "sk_live_cardpay"), "STRIPE_PUBLISHABLE_KEY"},
		{"production against stripe-mock", with("STRIPE_API_BASE", "http://localhost:12111"), "STRIPE_API_BASE"},
		{"unknown PSP", map[string]string{"PSP": "paypal"}, "PSP"},
		{"stripe without a secret key", map[string]string{"PSP": "stripe"}, "STRIPE_SECRET_KEY"},
		{"stripe with a relative API base", map[string]string{"PSP": "stripe", "STRIPE_SECRET_KEY": "sk_test_1", "STRIPE_API_BASE": "localhost:12111"}, "STRIPE_API_BASE"},
		{"unknown environment", map[string]string{"APP_ENV": "staging"}, "APP_ENV"},
		{"tag manager id with a policy in it", map[string]string{"TAG_MANAGER_ID": "GTM-AB12; script-src *"}, "TAG_MANAGER_ID"},
		{"bad port", map[string]string{"PORT": "eighty"}, "PORT"},
		{"port out of range", map[string]string{"PORT": "70000"}, "PORT"},
		{"relative base URL", map[string]string{"BASE_URL": "pay.example.jp"}, "BASE_URL"},
		{"job workers not a number", map[string]string{"JOB_WORKERS": "two"}, "JOB_WORKERS"},
		{"negative job workers", map[string]string{"JOB_WORKERS": "-1"}, "JOB_WORKERS"},
		{"payment limit not yen", map[string]string{"PAYMENT_MAX_YEN": "1e6"}, "PAYMENT_MAX_YEN"},
		{"minimum over maximum", map[string]string{"PAYMENT_MIN_YEN": "5000", "PAYMENT_MAX_YEN": "4000"}, "PAYMENT_MIN_YEN"},
		{"fee not basis points", map[string]string{"FEE_BASIS_POINTS": "3%"}, "FEE_BASIS_POINTS"},
		{"fee too high", map[string]string{"FEE_BASIS_POINTS": "5000"}, "FEE_BASIS_POINTS"},
		{"settle wait not a duration", map[string]string{"PAYMENT_SETTLE_AFTER": "soon"}, "PAYMENT_SETTLE_AFTER"},
		{"crash point in production", with("CARDPAY_CRASH_AT", "after-start"), "CARDPAY_CRASH_AT"},
		{"configured limits", map[string]string{"PAYMENT_MIN_YEN": "500", "PAYMENT_MAX_YEN": "5000000", "FEE_BASIS_POINTS": "275"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadConfig(envOf(tt.env))
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestLoadConfigReadsOptions(t *testing.T) {
	c, err := LoadConfig(envOf(map[string]string{
		"PORT": "0", "SERVICE_NAME": "カード払いサービス", "LINK_FAQ": "https://example.jp/faq", "JOB_WORKERS": "0",
		"COLLECTION_EXCLUDED_CORPORATE_NUMBERS": " 7000012050002, ,1234567890123",
	}))
	require.NoError(t, err)
	assert.Equal(t, 0, c.JobWorkers, "0 turns this instance's workers off")
	assert.Equal(t, 0, c.Port)
	assert.Equal(t, "カード払いサービス", c.ServiceName)
	assert.Equal(t, "https://example.jp/faq", c.Links.FAQ)
	assert.Equal(t, map[string]bool{"7000012050002": true, "1234567890123": true}, c.CollectionExclusions)
}

func TestLoadConfigDatabaseOptions(t *testing.T) {
	c, err := LoadConfig(envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, "cardpay_dev", c.DatabaseName)
	assert.False(t, c.ResetDatabase)

	c, err = LoadConfig(envOf(map[string]string{"DATABASE_NAME": "cardpay_e2e", "RESET_DATABASE": "1"}))
	require.NoError(t, err)
	assert.Equal(t, "cardpay_e2e", c.DatabaseName)
	assert.True(t, c.ResetDatabase)

	_, err = LoadConfig(envOf(map[string]string{"RESET_DATABASE": "yes please"}))
	assert.ErrorContains(t, err, "RESET_DATABASE")

	_, err = LoadConfig(envOf(map[string]string{
		"APP_ENV": "production", "SECRET_KEY": "0123456789abcdef0123456789abcdef",
		"DATABASE_URL": "postgres://app@db/cardpay", "BASE_URL": "https://pay.example.jp",
		"SMTP_URL": "smtp://mail.example.jp:587", "FILES_DIR": "/srv/cardpay/files", "RESET_DATABASE": "1",
	}))
	assert.ErrorContains(t, err, "development only", "production never drops its database")
}

func TestLoadConfigAPIAccessTokenTTL(t *testing.T) {
	c, err := LoadConfig(envOf(map[string]string{"API_ACCESS_TOKEN_TTL": "3s"}))
	require.NoError(t, err)
	assert.Equal(t, "3s", c.APIAccessTokenTTL.String())
	_, err = LoadConfig(envOf(map[string]string{"API_ACCESS_TOKEN_TTL": "soon"}))
	assert.ErrorContains(t, err, "API_ACCESS_TOKEN_TTL")
	_, err = LoadConfig(envOf(map[string]string{"API_ACCESS_TOKEN_TTL": "-1s"}))
	assert.ErrorContains(t, err, "API_ACCESS_TOKEN_TTL")
}

func TestLoadConfigStripe(t *testing.T) {
	c, err := LoadConfig(envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, "sandbox", c.PSP, "the sandbox is the default outside production")

	// Development against stripe-mock: the webhook secret may be left out.
	c, err = LoadConfig(envOf(map[string]string{"PSP": "stripe", "STRIPE_SECRET_KEY": "sk_test_123", "STRIPE_API_BASE": "http://localhost:12111/"}))
	require.NoError(t, err)
	assert.Equal(t, "stripe", c.PSP)
	assert.Equal(t, "sk_test_123", c.Stripe.SecretKey)
	assert.Equal(t, "http://localhost:12111", c.Stripe.APIBase)
	gw, err := stripeGateway(c, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	assert.Equal(t, "stripe", gw.Name())

	c, err = LoadConfig(envOf(map[string]string{
		"APP_ENV": "production", "SECRET_KEY": "0123456789abcdef0123456789abcdef",
		"DATABASE_URL": "postgres://app@db/cardpay", "BASE_URL": "https://pay.example.jp",
		"SMTP_URL": "smtp://mail.example.jp:587", "FILES_DIR": "/srv/cardpay/files",
		"PSP": "stripe", "STRIPE_SECRET_KEY": "sk_live_cardpay", "STRIPE_WEBHOOK_SECRET": "whsec_cardpay", "STRIPE_PUBLISHABLE_KEY": "pk_live_cardpay",
		"TRANSFER_REMITTER_CODE": "0000012345", "TRANSFER_REMITTER_NAME": "ｶ)ｾｲｷﾕｳｼﾖ", "TRANSFER_REMITTER_BANK_CODE": "0005",
		"TRANSFER_REMITTER_BRANCH_CODE": "001", "TRANSFER_REMITTER_ACCOUNT_TYPE": "1", "TRANSFER_REMITTER_ACCOUNT_NUMBER": "7654321",
		"ISSUER_NAME": "株式会社請求書", "ISSUER_REGISTRATION_NUMBER": "T1180301018771",
	}))
	require.NoError(t, err)
	assert.Equal(t, "whsec_cardpay", c.Stripe.WebhookSecret)
	assert.Equal(t, "pk_live_cardpay", c.StripePublishableKey)
	assert.Empty(t, c.Stripe.APIBase, "production talks to Stripe itself")
}

// prodTransfers is a complete production remitter and issuer.
var prodTransfers = map[string]string{
	"TRANSFER_REMITTER_CODE": "0000012345", "TRANSFER_REMITTER_NAME": "ｶ)ｾｲｷﾕｳｼﾖ", "TRANSFER_REMITTER_BANK_CODE": "0005",
	"TRANSFER_REMITTER_BRANCH_CODE": "001", "TRANSFER_REMITTER_ACCOUNT_TYPE": "1", "TRANSFER_REMITTER_ACCOUNT_NUMBER": "7654321",
	"ISSUER_NAME": "株式会社請求書", "ISSUER_REGISTRATION_NUMBER": "T1180301018771",
}
