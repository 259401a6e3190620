package main

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"cardpay/account"
	"cardpay/banks"
	"cardpay/files"
	"cardpay/gateway/stripe"
	"cardpay/handlers/info"
	"cardpay/handlers/web"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/views"
)

// Config is read from the environment (documented in the README).
type Config struct {
	Port         int
	DatabaseURL  string
	BaseURL      string
	Env          string // development or production (APP_ENV; production when unset)
	ServiceName  string
	SMTPURL      string
	SecretKey    string
	DemoPassword string
	// DatabaseName and ResetDatabase apply in development, when no DATABASE_URL names
	// the database: the name created on the located server, and whether to start empty.
	DatabaseName  string
	ResetDatabase bool
	// PprofAddr (PPROF_ADDR, development only, e.g. 127.0.0.1:6060) serves Go's profiler
	// (net/http/pprof) on its own listener, for profiling a bench: never on the app's port.
	PprofAddr string
	// APIAccessTokenTTL (API_ACCESS_TOKEN_TTL, development only) shortens API access
	// tokens so that the browser tests can see one expire.
	APIAccessTokenTTL time.Duration
	Links             views.Links
	// TagManagerID (TAG_MANAGER_ID) is a Google Tag Manager container id (GTM-…) the
	// buyers' pages load; unset, nothing is loaded.
	TagManagerID string
	// CollectionExclusions: comma-separated corporate numbers that may not request
	// card payments (SPEC.md §4).
	CollectionExclusions map[string]bool
	// NTAAppID (NTA_APP_ID) is the application ID of the National Tax Agency's
	// corporate-number Web-API; set, corporation search asks the registry too.
	NTAAppID string
	// JobWorkers (JOB_WORKERS) is how many background jobs this instance runs at once;
	// 0 runs none here (other instances on the same database still do).
	JobWorkers int
	// JobLease (JOB_LEASE, development and tests only; 0 is jobs.DefaultLease) is how
	// long a claimed job stays with its worker without news: the kill tests shorten it so
	// that a killed server's job is taken up again within seconds.
	JobLease time.Duration
	// Limits of one payment and the fee: PAYMENT_MIN_YEN and PAYMENT_MAX_YEN (default
	// ¥1,000 to ¥10,000,000), FEE_BASIS_POINTS (default 300, 3.0 %).
	Limits pay.Limits
	// SettleAfter (PAYMENT_SETTLE_AFTER, default 2m) is how long a submission nobody
	// settled waits before the reconciler asks the PSP.
	SettleAfter time.Duration
	// CrashAt (CARDPAY_CRASH_AT, never in production) kills the process with SIGKILL at
	// a named point (invoices.CrashPoints) of a payment submission, a capture or the
	// making of a transfer file, for the kill tests.
	CrashAt string
	// FilesDir (FILES_DIR) keeps the invoice files on one instance (default .data/files
	// in development); FilesS3 (FILES_S3_ENDPOINT, _BUCKET, _ACCESS_KEY, _SECRET_KEY,
	// _SECURE) keeps them in an S3-compatible bucket that several instances share.
	FilesDir string
	FilesS3  files.S3Config
	// PSP (PSP) is the card gateway: sandbox (the default; refused in production) or
	// stripe.
	PSP string
	// Stripe configures the Stripe adapter when PSP=stripe: STRIPE_SECRET_KEY,
	// STRIPE_WEBHOOK_SECRET and STRIPE_API_BASE (stripe-mock; empty for Stripe itself).
	Stripe stripe.Config
	// StripePublishableKey (STRIPE_PUBLISHABLE_KEY, pk_live_… / pk_test_…) is what
	// Stripe.js needs in the buyer's browser for the card fields; without it the add page
	// offers Stripe Checkout only. Production needs it.
	StripePublishableKey string
	// The sandbox PSP (PSP=sandbox) listens on SandboxPort (SANDBOX_PSP_PORT, default
	// 8081, 0 for a free one) and the browser reaches it at SandboxURL (SANDBOX_PSP_URL,
	// default http://localhost:<port>). SandboxAuthorizationTTL
	// (SANDBOX_PSP_AUTHORIZATION_TTL, default 7 days) is when an uncaptured
	// authorisation lapses.
	SandboxPort             int
	SandboxURL              string
	SandboxAuthorizationTTL time.Duration
	// Remitter is the service's account the transfers are made from, as the bank
	// registered it: TRANSFER_REMITTER_CODE (10 digits), _NAME (half-width kana),
	// _BANK_CODE, _BRANCH_CODE, _ACCOUNT_TYPE (2 普通, 1 当座), _ACCOUNT_NUMBER. Required
	// in production; development has a sample account.
	Remitter invoices.Remitter
	// Issuer is the service's operator on the fee's qualified invoice: ISSUER_NAME and
	// ISSUER_REGISTRATION_NUMBER (T + 13 digits, checked). Required in production.
	IssuerName               string
	IssuerRegistrationNumber string
	// RateLimits are account.DefaultLimits changed by RATE_LIMITS
	// ("signin.ip=100/15m,signup.target=5/1h"; "*.ip=…" sets every action's IP rule).
	RateLimits account.Limits
	// TrustedProxies (TRUSTED_PROXIES: comma-separated IPs or CIDRs) are the reverse
	// proxies whose X-Forwarded-For names the client; with none, the client is the
	// connection's peer and the header is ignored.
	TrustedProxies []*net.IPNet
	// Invoices by mail (issue 29): INBOUND_MAIL_DOMAIN is the domain of the buyers'
	// receiving addresses (development: inbox.localhost); INBOUND_SMTP_ADDR is where the
	// listener that the MTA forwards that domain's mail to listens (development:
	// 127.0.0.1:2525, a free port when that is taken; production: none unless set);
	// INBOUND_AUTHSERV_ID names the MTA whose Authentication-Results header is trusted
	// (development: the domain). Production with a listener needs all three.
	InboundDomain     string
	InboundAddr       string
	InboundAuthservID string
}

const (
	defaultServiceName = "請求書カード払い"
	devSecretKey       = "development-only-secret-key-do-not-use"
)

// Production says whether the app runs for real customers.
func (c Config) Production() bool { return c.Env == "production" }

// LoadConfig reads the configuration through getenv and refuses a production start
// with development defaults.
func LoadConfig(getenv func(string) string) (Config, error) {
	var errs []error
	c := Config{
		DatabaseURL:  getenv("DATABASE_URL"),
		BaseURL:      strings.TrimRight(getenv("BASE_URL"), "/"),
		Env:          getenv("APP_ENV"),
		ServiceName:  getenv("SERVICE_NAME"),
		SMTPURL:      getenv("SMTP_URL"),
		SecretKey:    getenv("SECRET_KEY"),
		DemoPassword: getenv("DEMO_PASSWORD"),
		Links:        info.DefaultLinks,
		DatabaseName: getenv("DATABASE_NAME"),
		NTAAppID:     strings.TrimSpace(getenv("NTA_APP_ID")),
	}
	if c.DatabaseName == "" {
		c.DatabaseName = "cardpay_dev"
	}
	switch getenv("RESET_DATABASE") {
	case "", "0", "false":
	case "1", "true":
		c.ResetDatabase = true
	default:
		errs = append(errs, fmt.Errorf("RESET_DATABASE must be 1 or 0, got %q", getenv("RESET_DATABASE")))
	}
	port := getenv("PORT")
	if port == "" {
		port = "8080"
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		errs = append(errs, fmt.Errorf("PORT must be a port number (0-65535), got %q", port))
	}
	c.Port = p
	c.JobWorkers = 2
	if v := getenv("JOB_WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 100 {
			errs = append(errs, fmt.Errorf("JOB_WORKERS must be a number of workers (0-100), got %q", v))
		}
		c.JobWorkers = n
	}
	if v := getenv("JOB_LEASE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second || d > time.Hour {
			errs = append(errs, fmt.Errorf("JOB_LEASE must be a duration from 1s to 1h, got %q", v))
		}
		c.JobLease = d
	}
	c.Limits = pay.DefaultLimits
	for _, l := range []struct {
		name     string
		to       *int64
		min, max int64
	}{
		{"PAYMENT_MIN_YEN", &c.Limits.MinAmount, 1, pay.MaxPaymentAmount * 10},
		{"PAYMENT_MAX_YEN", &c.Limits.MaxAmount, 1, pay.MaxPaymentAmount * 10},
	} {
		if v := getenv(l.name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < l.min || n > l.max {
				errs = append(errs, fmt.Errorf("%s must be a whole number of yen (%d-%d), got %q", l.name, l.min, l.max, v))
			}
			*l.to = n
		}
	}
	if c.Limits.MinAmount > c.Limits.MaxAmount {
		errs = append(errs, fmt.Errorf("PAYMENT_MIN_YEN (%d) must not exceed PAYMENT_MAX_YEN (%d)", c.Limits.MinAmount, c.Limits.MaxAmount))
	}
	if v := getenv("FEE_BASIS_POINTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 2000 {
			errs = append(errs, fmt.Errorf("FEE_BASIS_POINTS must be basis points (0-2000; 300 is 3.0%%), got %q", v))
		}
		c.Limits.FeeBasisPoints = n
	}
	c.CrashAt = getenv("CARDPAY_CRASH_AT")
	if c.CrashAt != "" && !slices.Contains(invoices.CrashPoints, c.CrashAt) {
		errs = append(errs, fmt.Errorf("CARDPAY_CRASH_AT must be one of %s, got %q", strings.Join(invoices.CrashPoints, ", "), c.CrashAt))
	}
	if v := getenv("PAYMENT_SETTLE_AFTER"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("PAYMENT_SETTLE_AFTER must be a positive duration such as 2m, got %q", v))
		}
		c.SettleAfter = d
	}
	c.FilesDir = getenv("FILES_DIR")
	c.FilesS3 = files.S3Config{
		Endpoint: getenv("FILES_S3_ENDPOINT"), Bucket: getenv("FILES_S3_BUCKET"),
		AccessKey: getenv("FILES_S3_ACCESS_KEY"), SecretKey: getenv("FILES_S3_SECRET_KEY"),
		Secure: getenv("FILES_S3_SECURE") != "false" && getenv("FILES_S3_SECURE") != "0",
	}
	if c.FilesS3.Endpoint != "" && (c.FilesS3.Bucket == "" || c.FilesS3.AccessKey == "" || c.FilesS3.SecretKey == "") {
		errs = append(errs, errors.New("FILES_S3_ENDPOINT needs FILES_S3_BUCKET, FILES_S3_ACCESS_KEY and FILES_S3_SECRET_KEY"))
	}
	// Fail safe: a server started without APP_ENV is taken for production, so that a
	// forgotten variable never runs real customers on the development secret key, the
	// sandbox PSP and the in-process mailbox. Development says so (task dev, the test
	// scripts).
	envUnset := c.Env == ""
	switch c.Env {
	case "":
		c.Env = "production"
	case "development", "production":
	default:
		errs = append(errs, fmt.Errorf("APP_ENV must be development or production, got %q", c.Env))
	}
	if c.ServiceName == "" {
		c.ServiceName = defaultServiceName
	}
	if c.BaseURL == "" {
		c.BaseURL = fmt.Sprintf("http://localhost:%d", c.Port)
	} else if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("BASE_URL must be an absolute http(s) URL, got %q", c.BaseURL))
	}
	for env, dst := range map[string]*string{
		"LINK_MANUAL": &c.Links.Manual, "LINK_FAQ": &c.Links.FAQ, "LINK_INQUIRY": &c.Links.Inquiry,
		"LINK_TERMS": &c.Links.Terms, "LINK_PRIVACY": &c.Links.Privacy,
		"LINK_PERSONAL_INFO": &c.Links.PersonalInfo, "LINK_SUPPLIER_SERVICE": &c.Links.SupplierService,
	} {
		if v := getenv(env); v != "" {
			*dst = v
		}
	}
	c.TagManagerID = strings.TrimSpace(getenv("TAG_MANAGER_ID"))
	if c.TagManagerID != "" && !web.ValidTagManagerID(c.TagManagerID) {
		errs = append(errs, fmt.Errorf("TAG_MANAGER_ID must be a Tag Manager container id such as GTM-ABC1234, got %q", c.TagManagerID))
	}
	c.PprofAddr = strings.TrimSpace(getenv("PPROF_ADDR"))
	if v := getenv("API_ACCESS_TOKEN_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("API_ACCESS_TOKEN_TTL must be a positive duration such as 3s, got %q", v))
		}
		c.APIAccessTokenTTL = d
	}
	limits, err := account.ParseLimits(getenv("RATE_LIMITS"), account.DefaultLimits)
	if err != nil {
		errs = append(errs, err)
	}
	c.RateLimits = limits
	for _, p := range strings.Split(getenv("TRUSTED_PROXIES"), ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		n, err := trustedProxy(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("TRUSTED_PROXIES: %q is not an IP address or CIDR", p))
			continue
		}
		c.TrustedProxies = append(c.TrustedProxies, n)
	}
	c.CollectionExclusions = map[string]bool{}
	for _, n := range strings.Split(getenv("COLLECTION_EXCLUDED_CORPORATE_NUMBERS"), ",") {
		if n = strings.TrimSpace(n); n != "" {
			c.CollectionExclusions[n] = true
		}
	}
	c.PSP = getenv("PSP")
	if c.PSP == "" {
		c.PSP = "sandbox"
	}
	switch c.PSP {
	case "sandbox":
		errs = append(errs, c.loadSandbox(getenv)...)
	case "stripe":
		errs = append(errs, c.loadStripe(getenv)...)
	default:
		errs = append(errs, fmt.Errorf("PSP must be sandbox or stripe, got %q", c.PSP))
	}
	errs = append(errs, c.loadTransfers(getenv)...)
	errs = append(errs, c.loadInbound(getenv)...)
	if c.SecretKey == "" && !c.Production() {
		c.SecretKey = devSecretKey
	}
	if c.Production() {
		if c.SecretKey == "" || c.SecretKey == devSecretKey || len(c.SecretKey) < 32 {
			errs = append(errs, errors.New("production needs SECRET_KEY: at least 32 random characters"))
		}
		if c.DatabaseURL == "" {
			errs = append(errs, errors.New("production needs DATABASE_URL (no local database is started in production)"))
		}
		if !strings.HasPrefix(c.BaseURL, "https://") {
			errs = append(errs, errors.New("production needs BASE_URL with https://"))
		}
		if c.SMTPURL == "" {
			errs = append(errs, errors.New("production needs SMTP_URL"))
		}
		if c.FilesDir == "" && c.FilesS3.Endpoint == "" {
			errs = append(errs, errors.New("production needs FILES_DIR or FILES_S3_ENDPOINT (where invoice files are kept)"))
		}
		if c.PprofAddr != "" {
			errs = append(errs, errors.New("PPROF_ADDR is for development only"))
		}
		if c.APIAccessTokenTTL != 0 {
			errs = append(errs, errors.New("API_ACCESS_TOKEN_TTL is for development only"))
		}
		if c.CrashAt != "" {
			errs = append(errs, errors.New("CARDPAY_CRASH_AT is for the kill test only"))
		}
		if c.JobLease != 0 {
			errs = append(errs, errors.New("JOB_LEASE is for development and tests only"))
		}
		if c.ResetDatabase {
			errs = append(errs, errors.New("RESET_DATABASE is for development only"))
		}
		if c.DemoPassword != "" {
			errs = append(errs, errors.New("DEMO_PASSWORD is for development: demo accounts are never created in production"))
		}
		if c.PSP == "sandbox" {
			errs = append(errs, errors.New("production needs PSP=stripe: the sandbox PSP is for development and tests"))
		}
	}
	if envUnset && len(errs) > 0 {
		errs = append([]error{errors.New("APP_ENV is not set, so the production settings below are required " +
			"(set APP_ENV=development to develop: task dev does)")}, errs...)
	}
	return c, errors.Join(errs...)
}

// loadStripe reads the Stripe adapter's settings (PSP=stripe). Production needs the
// webhook secret too, or no payment's webhook could be trusted, and refuses
// STRIPE_API_BASE, which only ever points at stripe-mock.
func (c *Config) loadStripe(getenv func(string) string) []error {
	var errs []error
	c.Stripe = stripe.Config{
		SecretKey:     strings.TrimSpace(getenv("STRIPE_SECRET_KEY")),
		WebhookSecret: strings.TrimSpace(getenv("STRIPE_WEBHOOK_SECRET")),
		APIBase:       strings.TrimRight(strings.TrimSpace(getenv("STRIPE_API_BASE")), "/"),
	}
	c.StripePublishableKey = strings.TrimSpace(getenv("STRIPE_PUBLISHABLE_KEY"))
	if c.Stripe.SecretKey == "" {
		errs = append(errs, errors.New("PSP=stripe needs STRIPE_SECRET_KEY"))
	}
	if k := c.StripePublishableKey; k != "" && !strings.HasPrefix(k, "pk_") {
		errs = append(errs, errors.New("STRIPE_PUBLISHABLE_KEY must be a publishable key (pk_…), never the secret key"))
	}
	if b := c.Stripe.APIBase; b != "" {
		if u, err := url.Parse(b); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("STRIPE_API_BASE must be an absolute http(s) URL, got %q", b))
		}
	}
	if c.Production() {
		if c.Stripe.WebhookSecret == "" {
			errs = append(errs, errors.New("production needs STRIPE_WEBHOOK_SECRET with PSP=stripe"))
		}
		if c.StripePublishableKey == "" {
			errs = append(errs, errors.New("production needs STRIPE_PUBLISHABLE_KEY with PSP=stripe: buyers enter cards in Stripe.js's fields"))
		}
		if c.Stripe.APIBase != "" {
			errs = append(errs, errors.New("STRIPE_API_BASE is for tests against stripe-mock, not production"))
		}
	}
	return errs
}

// loadSandbox reads the sandbox PSP's settings (PSP=sandbox).
func (c *Config) loadSandbox(getenv func(string) string) []error {
	var errs []error
	c.SandboxPort = 8081
	if v := getenv("SANDBOX_PSP_PORT"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 0 || p > 65535 {
			errs = append(errs, fmt.Errorf("SANDBOX_PSP_PORT must be a port number (0-65535), got %q", v))
		}
		c.SandboxPort = p
	}
	if c.SandboxPort != 0 && c.SandboxPort == c.Port {
		errs = append(errs, fmt.Errorf("SANDBOX_PSP_PORT must differ from PORT (%d): the sandbox PSP is its own origin", c.Port))
	}
	c.SandboxURL = strings.TrimRight(strings.TrimSpace(getenv("SANDBOX_PSP_URL")), "/")
	if c.SandboxURL == "" && c.SandboxPort != 0 {
		c.SandboxURL = fmt.Sprintf("http://localhost:%d", c.SandboxPort)
	}
	if c.SandboxURL != "" {
		if u, err := url.Parse(c.SandboxURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			errs = append(errs, fmt.Errorf("SANDBOX_PSP_URL must be an origin such as http://localhost:8081, got %q", c.SandboxURL))
		}
	}
	c.SandboxAuthorizationTTL = 7 * 24 * time.Hour
	if v := getenv("SANDBOX_PSP_AUTHORIZATION_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("SANDBOX_PSP_AUTHORIZATION_TTL must be a positive duration such as 168h, got %q", v))
		}
		c.SandboxAuthorizationTTL = d
	}
	return errs
}

// Development's sample remitter and issuer: never used in production.
var devRemitter = map[string]string{
	"TRANSFER_REMITTER_CODE": "1234567890", "TRANSFER_REMITTER_NAME": "ｾｲｷﾕｳｼﾖｶ-ﾄﾞﾊﾞﾗｲ",
	"TRANSFER_REMITTER_BANK_CODE": "0001", "TRANSFER_REMITTER_BRANCH_CODE": "001",
	"TRANSFER_REMITTER_ACCOUNT_TYPE": "2", "TRANSFER_REMITTER_ACCOUNT_NUMBER": "1234567",
	"ISSUER_NAME": "請求書カード払い運営株式会社（開発用）", "ISSUER_REGISTRATION_NUMBER": "T1180301018771",
}

// loadTransfers reads the remitter of the transfer files and the issuer of the fee's
// qualified invoice.
func (c *Config) loadTransfers(getenv func(string) string) []error {
	var errs []error
	get := func(k string) string {
		v := strings.TrimSpace(getenv(k))
		if v == "" && !c.Production() {
			v = devRemitter[k]
		}
		if v == "" {
			errs = append(errs, fmt.Errorf("production needs %s", k))
		}
		return v
	}
	r := invoices.Remitter{Code: get("TRANSFER_REMITTER_CODE"), Name: get("TRANSFER_REMITTER_NAME"),
		BankCode: get("TRANSFER_REMITTER_BANK_CODE"), BranchCode: get("TRANSFER_REMITTER_BRANCH_CODE"),
		AccountNumber: get("TRANSFER_REMITTER_ACCOUNT_NUMBER")}
	switch get("TRANSFER_REMITTER_ACCOUNT_TYPE") {
	case "2":
		r.AccountType = pay.AccountOrdinary
	case "1":
		r.AccountType = pay.AccountCurrent
	default:
		errs = append(errs, errors.New("TRANSFER_REMITTER_ACCOUNT_TYPE must be 2 (普通) or 1 (当座)"))
	}
	if len(r.Code) != 10 || !pay.AllDigits(r.Code) {
		errs = append(errs, errors.New("TRANSFER_REMITTER_CODE must be the 10-digit code the bank gave"))
	}
	if name, err := pay.NormalizeHolderName(r.Name); err != nil {
		errs = append(errs, fmt.Errorf("TRANSFER_REMITTER_NAME: %v", err))
	} else {
		r.Name = name
	}
	if b, ok := banks.ByCode(r.BankCode); ok {
		r.BankKana = b.Kana
	}
	if br, ok := banks.BranchByCode(r.BankCode, r.BranchCode); ok {
		r.BranchKana = br.Kana
	}
	c.Remitter = r
	c.IssuerName = get("ISSUER_NAME")
	c.IssuerRegistrationNumber = get("ISSUER_REGISTRATION_NUMBER")
	if !pay.ValidRegistrationNumber(c.IssuerRegistrationNumber) {
		errs = append(errs, errors.New("ISSUER_REGISTRATION_NUMBER must be T and 13 digits with a valid check digit"))
	}
	return errs
}

// trustedProxy reads one TRUSTED_PROXIES entry: a CIDR, or one address (a /32 or /128).
// An IPv4-mapped IPv6 address ("::ffff:10.0.0.1") is the IPv4 address it maps, which is
// how the peer of an IPv4 connection is seen.
func trustedProxy(p string) (*net.IPNet, error) {
	if strings.Contains(p, "/") {
		_, n, err := net.ParseCIDR(p)
		return n, err
	}
	a, err := netip.ParseAddr(p)
	if err != nil || a.Zone() != "" {
		return nil, fmt.Errorf("not an address: %q", p)
	}
	a = a.Unmap()
	return &net.IPNet{IP: net.IP(a.AsSlice()), Mask: net.CIDRMask(a.BitLen(), a.BitLen())}, nil
}

// devInboundAddr is where development's inbound listener listens unless told.
const devInboundAddr = "127.0.0.1:2525"

// loadInbound reads the inbound mail listener's settings.
func (c *Config) loadInbound(getenv func(string) string) []error {
	var errs []error
	c.InboundDomain = strings.ToLower(strings.TrimSpace(getenv("INBOUND_MAIL_DOMAIN")))
	c.InboundAddr = strings.TrimSpace(getenv("INBOUND_SMTP_ADDR"))
	c.InboundAuthservID = strings.TrimSpace(getenv("INBOUND_AUTHSERV_ID"))
	if c.Production() {
		if c.InboundAddr != "" && (c.InboundDomain == "" || c.InboundAuthservID == "") {
			errs = append(errs, errors.New("INBOUND_SMTP_ADDR needs INBOUND_MAIL_DOMAIN and INBOUND_AUTHSERV_ID (the MTA's Authentication-Results id)"))
		}
	} else {
		if c.InboundDomain == "" {
			c.InboundDomain = "inbox.localhost"
		}
		if c.InboundAddr == "" {
			c.InboundAddr = devInboundAddr
		}
		if c.InboundAuthservID == "" {
			c.InboundAuthservID = c.InboundDomain
		}
	}
	if c.InboundAddr != "" && c.InboundAddr != "off" {
		if _, _, err := net.SplitHostPort(c.InboundAddr); err != nil {
			errs = append(errs, fmt.Errorf("INBOUND_SMTP_ADDR must be host:port, got %q", c.InboundAddr))
		}
	}
	if c.InboundDomain != "" && (!strings.Contains(c.InboundDomain, ".") || strings.ContainsAny(c.InboundDomain, "@ /")) {
		errs = append(errs, fmt.Errorf("INBOUND_MAIL_DOMAIN must be a domain name, got %q", c.InboundDomain))
	}
	return errs
}
