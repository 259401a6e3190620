// Package sandbox is the sandbox PSP: a payment service provider of our own making that
// runs on its own origin (a second listener in development, an httptest server in
// tests), so that the browser crosses origins exactly as it will with a real PSP. It
// offers what a Japanese card PSP does: card setups, whose card is typed into the PSP's
// own pages (card fields for an iframe on the merchant's page, talking to it by
// postMessage, or a hosted card page for buyers without JavaScript) and which the
// merchant's server finishes into a saved card; tokenisation from the browser (CORS for
// the app's origins only); an EMV 3-D Secure challenge page; a server-to-server API
// with a secret key and idempotent authorisation; signed webhooks delivered with
// retries; and lapse of authorisations that are not captured in time. Its test cards (TestCards) play every outcome.
//
// It keeps its own tables (prefix sandbox_) in the app's database under its own goose
// version table, and it never stores a card number or a security code: a card is its
// brand, last 4 digits, expiry, holder, a fingerprint and the scenario it plays.
//
// Client is the gateway.Gateway the app uses to talk to it.
package sandbox

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"cardpay/gateway/sandbox/migrations"
)

// Config configures the sandbox PSP.
type Config struct {
	DB *sqlx.DB
	// PublicURL is the sandbox's origin as the browser sees it (http://localhost:8081);
	// challenge and hosted-page URLs start with it.
	PublicURL string
	// AppOrigins may call the tokenisation endpoint from the browser (CORS), and are the
	// only places the hosted page and the challenge send the buyer back to.
	AppOrigins []string
	// SecretKey is the server-to-server API key (Authorization: Bearer …); it also keys
	// the card fingerprints.
	SecretKey string
	// WebhookURL receives the events (<app BaseURL>/webhooks/psp); empty sends none.
	WebhookURL    string
	WebhookSecret string
	// AuthorizationTTL: an authorisation not captured within it lapses (default 7 days).
	AuthorizationTTL time.Duration
	// Clock is the time; tests move it. nil is time.Now.
	Clock  func() time.Time
	Logger *slog.Logger

	// SlowAnswer is how long the timeout test card keeps its caller waiting after the
	// authorisation is committed (default 60 s, longer than any client waits).
	SlowAnswer time.Duration
	// PollInterval is how often Run sweeps lapses and delivers due webhooks on a test's
	// Clock (default 1 s; a new event wakes it at once). On the real clock Run rests
	// instead until the next lapse or webhook retry falls due, at most IdleInterval
	// (default 30 s), so an idle sandbox costs the database next to nothing.
	PollInterval time.Duration
	IdleInterval time.Duration
	// WebhookClient posts the webhooks (default: a client with a 10 s timeout).
	WebhookClient *http.Client

	testClock bool // Clock was given: Run polls (rest)
}

// Server is the sandbox PSP, an http.Handler.
type Server struct {
	cfg     Config
	db      *sqlx.DB
	log     *slog.Logger
	origins map[string]bool
	public  *url.URL
	mux     *http.ServeMux
	wake    chan struct{}
	// wrote holds the transactions (*sqlx.Tx) that wrote an event or a new lapse time, so
	// that inTx wakes Run after their commit and after no other: a wake-up means "there is
	// something new to deliver or sweep".
	wrote sync.Map
	// passes counts Run's passes (a sweep and a delivery each), for the idle figure.
	passes atomic.Int64
}

const (
	tokenTTL = 30 * time.Minute
	// setupTTL: a setup takes a card within this time of its creation.
	setupTTL     = 30 * time.Minute
	challengeTTL = 15 * time.Minute
	// maxChallengeAttempts wrong passcodes fail the challenge.
	maxChallengeAttempts = 3
	maxBody              = 64 << 10
	// VersionTable is the sandbox's goose version table, apart from the app's.
	VersionTable = "sandbox_goose_db_version"
	// migrationLockID is the sandbox's advisory lock for migrating, apart from the app's,
	// so the two migrate side by side.
	migrationLockID int64 = 0x5a4e_d80c
)

// Migrate applies the sandbox's embedded migrations under its own version table.
func Migrate(ctx context.Context, db *sqlx.DB) error {
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(migrationLockID))
	if err != nil {
		return fmt.Errorf("sandbox: migration lock: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db.DB, migrations.FS,
		goose.WithTableName(VersionTable), goose.WithSessionLocker(locker), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return fmt.Errorf("sandbox: migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("sandbox: migrate: %w", err)
	}
	return nil
}

// New builds the PSP from cfg; its tables must be migrated (Migrate).
func New(cfg Config) (*Server, error) {
	if cfg.DB == nil {
		return nil, errors.New("sandbox: Config.DB is required")
	}
	if cfg.SecretKey == "" || cfg.WebhookSecret == "" {
		return nil, errors.New("sandbox: Config.SecretKey and WebhookSecret are required")
	}
	pub, err := url.Parse(strings.TrimRight(cfg.PublicURL, "/"))
	if err != nil || (pub.Scheme != "http" && pub.Scheme != "https") || pub.Host == "" {
		return nil, fmt.Errorf("sandbox: PublicURL must be an absolute http(s) URL, got %q", cfg.PublicURL)
	}
	if cfg.AuthorizationTTL <= 0 {
		cfg.AuthorizationTTL = 7 * 24 * time.Hour
	}
	cfg.testClock = cfg.Clock != nil
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.SlowAnswer <= 0 {
		cfg.SlowAnswer = 60 * time.Second
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.IdleInterval <= 0 {
		cfg.IdleInterval = 30 * time.Second
	}
	if cfg.WebhookClient == nil {
		cfg.WebhookClient = &http.Client{Timeout: 10 * time.Second}
	}
	s := &Server{
		cfg: cfg, db: cfg.DB, log: cfg.Logger.With("psp", "sandbox"),
		origins: map[string]bool{}, public: pub, wake: make(chan struct{}, 1),
	}
	for _, o := range cfg.AppOrigins {
		o, err := origin(o)
		if err != nil {
			return nil, fmt.Errorf("sandbox: AppOrigins: %w", err)
		}
		s.origins[o] = true
	}
	s.routes()
	return s, nil
}

func (s *Server) routes() {
	m := http.NewServeMux()
	// The browser's side.
	m.HandleFunc("GET /{$}", s.index)
	m.HandleFunc("OPTIONS /v1/tokens", s.tokensPreflight)
	m.HandleFunc("POST /v1/tokens", s.createToken)
	m.HandleFunc("GET /hosted/{id}", s.hostedPage)
	m.HandleFunc("POST /hosted/{id}", s.hostedSubmit)
	m.HandleFunc("GET /fields/{id}", s.fieldsPage)
	m.HandleFunc("POST /fields/{id}", s.fieldsSubmit)
	m.HandleFunc("GET /assets/{version}/{name}", s.asset)
	m.HandleFunc("GET /3ds/{id}", s.challengePage)
	m.HandleFunc("POST /3ds/{id}", s.challengeSubmit)
	// The merchant's server.
	m.HandleFunc("POST /v1/setups", s.apiOnly(s.createSetup))
	m.HandleFunc("POST /v1/setups/{id}/finish", s.apiOnly(s.finishSetup))
	m.HandleFunc("POST /v1/cards", s.apiOnly(s.createCard))
	m.HandleFunc("POST /v1/authorizations", s.apiOnly(s.authorize))
	m.HandleFunc("GET /v1/authorizations/{payment_id}", s.apiOnly(s.lookup))
	m.HandleFunc("POST /v1/authorizations/{payment_id}/capture", s.apiOnly(s.capture))
	m.HandleFunc("POST /v1/authorizations/{payment_id}/void", s.apiOnly(s.void))
	m.HandleFunc("POST /v1/authorizations/{payment_id}/refund", s.apiOnly(s.refund))
	s.mux = m
}

// ServeHTTP serves the PSP with its security headers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	// The hosted page and the challenge carry one-time ids in their URLs: no referrer to
	// other origins. Not "no-referrer": under it browsers send "Origin: null" with the
	// pages' own form posts, which sameOrigin must refuse.
	h.Set("Referrer-Policy", "same-origin")
	// No page may be framed, but the card fields (fieldsPage), which replace this with
	// a frame-ancestors of their setup's merchant origin.
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'")
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) now() time.Time { return s.cfg.Clock().UTC().Truncate(time.Microsecond) }

// apiOnly lets through the merchant's server, which presents the secret key.
func (s *Server) apiOnly(h http.HandlerFunc) http.HandlerFunc {
	want := []byte("Bearer " + s.cfg.SecretKey)
	return func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sandbox-psp"`)
			apiError(w, http.StatusUnauthorized, "unauthorized", "the secret key is missing or wrong")
			return
		}
		h(w, r)
	}
}

// The server-to-server error codes, which Client maps to the gateway errors.
const (
	codeNotFound       = "not_found"
	codeTokenInvalid   = "token_invalid"
	codeInvalidState   = "invalid_state"
	codeInvalidRequest = "invalid_request"
)

type apiErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func apiError(w http.ResponseWriter, status int, code, msg string) {
	var b apiErrorBody
	b.Error.Code, b.Error.Message = code, msg
	writeJSON(w, status, b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func decodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("one JSON object expected")
	}
	return nil
}

// newID is prefix_ and 20 random characters of lower-case base32 (100 bits).
func newID(prefix string) string {
	b := make([]byte, 13)
	_, _ = rand.Read(b)
	return prefix + "_" + b32.EncodeToString(b)[:20]
}

// origin is scheme://host[:port] of an absolute URL.
func origin(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("not an absolute http(s) URL: %q", raw)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// appURL checks that raw is an absolute URL on one of the app's origins, so the hosted
// page and the challenge never send a buyer anywhere else.
func (s *Server) appURL(raw string) (*url.URL, bool) {
	o, err := origin(raw)
	if err != nil || !s.origins[o] {
		return nil, false
	}
	u, _ := url.Parse(raw)
	return u, true
}

// withQuery adds key=value to a URL's query.
func withQuery(u *url.URL, key, value string) string {
	c := *u
	q := c.Query()
	q.Set(key, value)
	c.RawQuery = q.Encode()
	return c.String()
}

// sameOrigin refuses a form post from another site (a browser sends Origin on POST).
func (s *Server) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	mine, _ := origin(s.public.String())
	got, err := origin(o)
	return err == nil && got == mine
}

// wakeUp asks Run to deliver the webhooks now instead of at its next tick. Only a
// committed event is a reason: Run's own sweep commits too, and waking on every commit
// kept an idle server sweeping some 4,000 times a second.
func (s *Server) wakeUp() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Passes is how many passes Run has made (each a sweep and a delivery).
func (s *Server) Passes() int64 { return s.passes.Load() }

// Run sweeps lapsed authorisations and delivers due webhooks until ctx ends: at once
// when an event is written, and otherwise when the next one falls due (rest).
func (s *Server) Run(ctx context.Context) {
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		s.passes.Add(1)
		if _, err := s.SweepLapsed(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("lapse sweep", "error", err)
		}
		if _, err := s.DeliverDue(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("webhook delivery", "error", err)
		}
		t.Reset(s.rest(ctx))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.wake:
		}
	}
}

// rest is how long Run waits after a pass: PollInterval on a test's clock (the test moves
// time, the database cannot tell), else until the next authorisation lapses or the next
// webhook is to be tried again, at most IdleInterval.
func (s *Server) rest(ctx context.Context) time.Duration {
	if s.cfg.testClock {
		return s.cfg.PollInterval
	}
	var next *time.Time
	err := s.db.GetContext(ctx, &next, `SELECT LEAST(
		(SELECT min(lapses_at) FROM sandbox_authorizations WHERE status = 'authorized'),
		(SELECT min(next_attempt_at) FROM sandbox_events WHERE status = 'pending'))`)
	switch {
	case err != nil:
		return s.cfg.PollInterval // the database is in trouble: look again soon
	case next == nil:
		return s.cfg.IdleInterval
	}
	return min(max(next.Sub(s.now())+time.Millisecond, s.cfg.PollInterval/10), s.cfg.IdleInterval)
}
