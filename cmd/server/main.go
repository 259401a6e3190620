// Command server runs 請求書カード払い: it reads the configuration, finds or starts
// PostgreSQL, migrates it, seeds the demo buyers in development and serves HTTP.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/alexedwards/scs/v2"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/cards"
	"cardpay/files"
	"cardpay/handlers"
	"cardpay/handlers/web"
	"cardpay/inbox"
	"cardpay/invoicefiles"
	"cardpay/invoices"
	"cardpay/jobs"
	"cardpay/nta"
	"cardpay/oauth"
	"cardpay/ocr"
	"cardpay/receipts"
	"cardpay/store"
	"cardpay/store/devdb"
)

func main() {
	pages := flag.Bool("pages", false, "print the app's pages as JSON and exit (for the browser tests)")
	back := flag.String("send-back", "", "development only: send payment ID back to its buyer with REASON (ID:REASON) and exit")
	terms := flag.String("terms-version", "", "development only: make the user EMAIL one who accepted VERSION of the terms (EMAIL:VERSION) and exit")
	seed := flag.Int("seed-payments", 0, "development only: give the demo corporation N more payments (for task bench) and exit")
	commits := flag.Bool("db-commits", false, "development only: print how many transactions the database has committed and rolled back, and exit (for task bench)")
	flag.Parse()
	if flag.Arg(0) == "create-operator" {
		if err := createOperator(flag.Args()[1:], slog.New(slog.NewTextHandler(os.Stderr, nil))); err != nil {
			fmt.Fprintln(os.Stderr, "create-operator:", err)
			os.Exit(1)
		}
		return
	}
	if flag.Arg(0) == "reconcile" {
		if err := reconcileCommand(flag.Args()[1:], os.Stdout, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))); err != nil {
			fmt.Fprintln(os.Stderr, "reconcile:", err)
			os.Exit(1)
		}
		return
	}
	if *pages {
		_ = json.NewEncoder(os.Stdout).Encode(handlers.Pages())
		return
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if *seed != 0 {
		if err := seedBench(*seed, logger); err != nil {
			logger.Error("seed-payments", "error", err)
			os.Exit(1)
		}
		return
	}
	if *commits {
		if err := printCommits(os.Stdout, logger); err != nil {
			logger.Error("db-commits", "error", err)
			os.Exit(1)
		}
		return
	}
	if *terms != "" {
		if err := setTermsVersion(*terms, logger); err != nil {
			logger.Error("terms-version", "error", err)
			os.Exit(1)
		}
		return
	}
	if *back != "" {
		if err := sendBack(*back, logger); err != nil {
			logger.Error("send-back", "error", err)
			os.Exit(1)
		}
		return
	}
	if err := run(logger); err != nil {
		logger.Error("server stopped", "error", err)
		os.Exit(1)
	}
}

func run(logger *slog.Logger) error {
	cfg, err := LoadConfig(os.Getenv)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	st, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	if !cfg.Production() {
		if err := seedDemo(ctx, st, cfg, logger); err != nil {
			return err
		}
	}

	sessions := scs.New()
	sessions.Store = st.Sessions(5 * time.Minute) // postgresstore's default clean-up
	sessions.Lifetime = 12 * time.Hour
	sessions.Cookie.Name = "cardpay_session"
	sessions.Cookie.HttpOnly = true
	sessions.Cookie.SameSite = http.SameSiteLaxMode
	sessions.Cookie.Secure = cfg.Production()
	sessions.ErrorFunc = func(w http.ResponseWriter, r *http.Request, err error) {
		logger.Error("session", "path", r.URL.Path, "error", err)
		http.Error(w, "システムエラーが発生しました。時間をおいてもう一度お試しください。", http.StatusInternalServerError)
	}

	sender, devBox, stopMail, err := mailSender(ctx, cfg, st, logger)
	if err != nil {
		return err
	}
	defer stopMail()
	acct := &account.Service{
		Store:       st,
		Mail:        sender,
		Codes:       auth.NewCodes(cfg.SecretKey),
		Sealer:      auth.NewSealer(cfg.SecretKey),
		Throttle:    auth.DefaultThrottle,
		Limits:      cfg.RateLimits,
		DeviceKey:   auth.DeriveKey(cfg.SecretKey, account.DeviceKeyInfo),
		ServiceName: cfg.ServiceName,
		BaseURL:     cfg.BaseURL,
	}

	// Background jobs start after the migrations (their table exists). The shutdown
	// signal stops their claiming and gives running jobs jobs.DefaultStopGrace; the
	// deferred Stop waits for them before the mail server and the database close.
	runner := &jobs.Runner{Store: st, Workers: cfg.JobWorkers, Lease: cfg.JobLease, Logger: logger}
	if err := acct.ScheduleCleanup(ctx, time.Now()); err != nil {
		return err
	}
	fileStore, err := invoiceFileStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	// Reading an uploaded invoice: a missing tool only makes the buyer type the fields.
	if err := ocr.Available(); err != nil {
		logger.Warn("invoice OCR unavailable: the buyer types the fields", "error", err)
	}

	// The app's own signed URLs (uploads, downloads, receipts) share one key from
	// SECRET_KEY, so that every instance signs and checks them alike.
	urlSigner := files.Signer{Key: auth.DeriveKey(cfg.SecretKey, files.URLKeyInfo)}
	deps := web.Deps{
		Store:                st,
		Account:              acct,
		Corporations:         &account.Corporations{Store: st, Logger: logger},
		DevMailbox:           devBox,
		SecretKey:            cfg.SecretKey,
		APIAccessTokenTTL:    cfg.APIAccessTokenTTL,
		TrustedProxies:       cfg.TrustedProxies,
		Sessions:             sessions,
		Logger:               logger,
		ServiceName:          cfg.ServiceName,
		BaseURL:              cfg.BaseURL,
		Links:                cfg.Links,
		TagManagerID:         cfg.TagManagerID,
		CollectionExclusions: cfg.CollectionExclusions,
		InvoiceFiles: &invoicefiles.Service{Store: st, Files: fileStore, Signer: urlSigner,
			Thumbnailer: &ocr.Reader{Timeout: invoicefiles.PreviewTimeout}, Tools: &ocr.Reader{}, Logger: logger},
		Development: !cfg.Production(),
		Receipts: &receipts.Service{Store: st, Signer: urlSigner, ServiceName: cfg.ServiceName,
			IssuerName: cfg.IssuerName, IssuerRegistrationNumber: cfg.IssuerRegistrationNumber},
		Remitter:          cfg.Remitter,
		InboundMailDomain: cfg.InboundDomain,
	}
	// The authorisation server for partner applications (issue 30).
	if deps.OAuth, err = oauth.New(st, cfg.SecretKey, cfg.BaseURL+"/oauth/token"); err != nil {
		return err
	}
	// The corporate-number registry is optional: without NTA_APP_ID, corporation search
	// covers the corporations the service already knows.
	if registry := nta.New(nta.Config{AppID: cfg.NTAAppID}); registry.Enabled() {
		deps.Corporations.Registry = registry
	}
	// The card gateway: the sandbox PSP on its own listener (PSP=sandbox, development
	// and tests), or Stripe.
	gw, pspOrigin, sandboxServer, err := cardGateway(ctx, cfg, st.DB, logger)
	if err != nil {
		return err
	}
	deps.PSPOrigin = pspOrigin
	deps.StripePublishableKey = cfg.StripePublishableKey
	deps.Cards = &cards.Service{Store: st, Gateway: gw, BaseURL: cfg.BaseURL, Logger: logger, QueueEvents: true, Limiter: deps.Account}
	var crash func(point string)
	if cfg.CrashAt != "" {
		crash = func(point string) {
			if point == cfg.CrashAt {
				logger.Warn("CARDPAY_CRASH_AT: killing the process", "point", point)
				_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {} // the signal is on its way
			}
		}
	}
	money := invoices.New(invoices.Config{Store: st, Gateway: gw, Limits: cfg.Limits, BaseURL: cfg.BaseURL, Logger: logger,
		SettleAfter: cfg.SettleAfter, Mailer: deps.Account, Crash: crash, WebhookJob: oauth.WebhookJob})
	deps.SetMoney(money)
	// The PSP's webhooks about payments ("inv-…") are the payment service's to act on.
	deps.Cards.Payments = money.Payments
	// What a payment's or a request's change causes (notices, a request following its
	// payment) is the money services' rule, run in the change's transaction.
	st.SetEvents(money.Notices)
	// Every job is registered from the one table, once every service exists: the payment
	// jobs need the gateway, so the workers start once it exists.
	for _, j := range jobTable(st, logger, acct, deps.Corporations, fileStore, deps.Cards, money, &oauth.Webhooks{SecretKey: cfg.SecretKey}) {
		runner.Register(j.kind, j.run)
	}
	// Today's expiry and reconciliation (each run schedules the next day's): once,
	// whichever instance enqueues them, by the day's unique key.
	if err := deps.Payments.ScheduleExpiry(ctx, time.Now()); err != nil {
		return err
	}
	if err := deps.Transfers.ScheduleReconcile(ctx, time.Now()); err != nil {
		return err
	}
	runner.Start(ctx)
	defer runner.Stop()
	logger.Info("background jobs", "workers", cfg.JobWorkers)
	app := handlers.New(deps)
	// Suppliers' invoices by mail to the buyers' receiving addresses.
	inboundSvc := &inbox.Service{Store: st, Files: deps.InvoiceFiles, Mailer: acct,
		Domain: cfg.InboundDomain, AuthservID: cfg.InboundAuthservID, Logger: logger}
	if !cfg.Production() && cfg.InboundDomain != "" {
		if err := seedDemoMail(ctx, st, inboundSvc, logger); err != nil {
			return err
		}
	}
	stopInbound, err := inboundListener(cfg, inboundSvc, logger)
	if err != nil {
		return err
	}
	defer stopInbound()
	if cfg.PprofAddr != "" {
		if err := servePprof(cfg.PprofAddr, logger); err != nil {
			return fmt.Errorf("PPROF_ADDR: %w", err)
		}
	}

	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", cfg.Port))
	if err != nil {
		return fmt.Errorf("listen on port %d (set PORT to use another): %w", cfg.Port, err)
	}
	srv := &http.Server{
		Handler:           app,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	// The first line a script can wait for: where the app listens.
	fmt.Printf("listening on http://localhost:%d (%s)\n", ln.Addr().(*net.TCPAddr).Port, cfg.Env)

	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	if sandboxServer != nil {
		sandboxServer.serve(ctx, errc)
	}
	// The app and the sandbox PSP stop together: on a signal, or when either fails.
	shutdown := func() error {
		c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := srv.Shutdown(c)
		if sandboxServer != nil {
			err = errors.Join(err, sandboxServer.shutdown(c))
		}
		return err
	}
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return errors.Join(err, shutdown())
		}
	case <-ctx.Done():
		return shutdown()
	}
	return nil
}

// openStore connects to DATABASE_URL, or in development finds or starts a server
// (DESIGN.md §3) and creates the app's database on it.
func openStore(ctx context.Context, cfg Config, logger *slog.Logger) (*store.Store, error) {
	if cfg.Production() {
		return store.Open(ctx, cfg.DatabaseURL)
	}
	srv, err := devdb.Locate(ctx, devdb.Options{Log: func(f string, a ...any) { logger.Info(fmt.Sprintf(f, a...)) }})
	if err != nil {
		return nil, err
	}
	name := srv.Database(cfg.DatabaseName)
	if srv.Origin != "DATABASE_URL" {
		if cfg.ResetDatabase {
			logger.Info("RESET_DATABASE: dropping the database", "database", name)
			if err := srv.DropDatabase(ctx, name); err != nil {
				return nil, err
			}
		}
		if err := srv.EnsureDatabase(ctx, name); err != nil {
			return nil, err
		}
	}
	logger.Info("database", "server", srv.Origin, "database", name)
	return store.Open(ctx, srv.DSN(name))
}
