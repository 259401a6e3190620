package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/gateway"
	"cardpay/gateway/sandbox"
	"cardpay/handlers/api"
)

// sandboxPSP is the sandbox PSP on its own listener: its own origin, as the browser
// will meet a real PSP. It starts and stops with the app.
type sandboxPSP struct {
	psp    *sandbox.Server
	client *sandbox.Client
	ln     net.Listener
	srv    *http.Server
	// publicURL is its origin as the browser sees it (SANDBOX_PSP_URL).
	publicURL string
	port      int
}

// cardGateway builds the card gateway of PSP: the sandbox (migrated, its listener open,
// serving once serve is called) or the Stripe adapter. It answers the gateway, the PSP's
// origin for the app's CSP, and the sandbox when it is the one.
func cardGateway(ctx context.Context, cfg Config, db *sqlx.DB, logger *slog.Logger) (gateway.Gateway, string, *sandboxPSP, error) {
	switch cfg.PSP {
	case "stripe":
		gw, err := stripeGateway(cfg, logger)
		return gw, "", nil, err
	case "sandbox":
		sb, err := startSandboxPSP(ctx, cfg, db, logger)
		if err != nil {
			return nil, "", nil, err
		}
		return sb.client, sb.publicURL, sb, nil
	}
	return nil, "", nil, fmt.Errorf("PSP %q", cfg.PSP)
}

func startSandboxPSP(ctx context.Context, cfg Config, db *sqlx.DB, logger *slog.Logger) (*sandboxPSP, error) {
	if cfg.Production() {
		return nil, errors.New("the sandbox PSP never runs in production")
	}
	if err := sandbox.Migrate(ctx, db); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", cfg.SandboxPort))
	if err != nil {
		return nil, fmt.Errorf("sandbox PSP: listen on port %d (set SANDBOX_PSP_PORT to use another, 0 for any free one): %w", cfg.SandboxPort, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	public := cfg.SandboxURL
	if public == "" {
		public = fmt.Sprintf("http://localhost:%d", port)
	}
	apiKey, hookSecret := sandboxSecrets(cfg.SecretKey)
	app, _ := url.Parse(cfg.BaseURL)
	psp, err := sandbox.New(sandbox.Config{
		DB:               db,
		PublicURL:        public,
		AppOrigins:       []string{app.Scheme + "://" + app.Host},
		SecretKey:        apiKey,
		WebhookURL:       cfg.BaseURL + api.WebhookPath,
		WebhookSecret:    hookSecret,
		AuthorizationTTL: cfg.SandboxAuthorizationTTL,
		Logger:           logger,
	})
	if err != nil {
		ln.Close()
		return nil, err
	}
	return &sandboxPSP{
		psp: psp,
		// The app reaches the PSP in-process over loopback, whatever SANDBOX_PSP_URL the
		// browser uses.
		client:    sandbox.NewClient(fmt.Sprintf("http://127.0.0.1:%d", port), apiKey, hookSecret, nil),
		ln:        ln,
		publicURL: public,
		port:      port,
		srv: &http.Server{
			Handler:           psp,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			// The timeout test card holds its answer past the client's wait.
			WriteTimeout:   90 * time.Second,
			IdleTimeout:    120 * time.Second,
			MaxHeaderBytes: 64 << 10,
		},
	}, nil
}

// serve prints where the PSP listens (after the app's own line), serves it and runs its
// webhook deliveries and lapse sweep until ctx ends.
func (s *sandboxPSP) serve(ctx context.Context, errc chan<- error) {
	fmt.Printf("sandbox PSP listening on http://localhost:%d\n", s.port)
	go func() { errc <- s.srv.Serve(s.ln) }()
	go s.psp.Run(ctx)
}

func (s *sandboxPSP) shutdown(ctx context.Context) error { return s.srv.Shutdown(ctx) }

// sandboxSecrets derives the sandbox's API key and webhook secret from SECRET_KEY, so
// development needs no more settings; base32 keeps them free of long digit runs.
func sandboxSecrets(secretKey string) (apiKey, webhookSecret string) {
	derive := func(label string) string {
		m := hmac.New(sha256.New, []byte(secretKey))
		m.Write([]byte("sandbox-psp " + label))
		return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(m.Sum(nil)))
	}
	return "sk_sandbox_" + derive("api key"), "whsec_sandbox_" + derive("webhook secret")
}
