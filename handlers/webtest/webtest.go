// Package webtest is the one test harness of the site's areas and the API: the whole
// application (handlers.NewSite) on the test package's own migrated database, behind a
// real HTTP server, with a real SMTP server for its mail, a settable clock, buyers, and
// a browser stand-in with a cookie jar that posts forms.
//
// A test package starts with
//
//	func TestMain(m *testing.M) { webtest.Main(m) }
package webtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/cards"
	"cardpay/files"
	"cardpay/handlers"
	"cardpay/handlers/info"
	"cardpay/handlers/web"
	"cardpay/invoicefiles"
	"cardpay/invoices"
	"cardpay/jobs"
	"cardpay/mail"
	"cardpay/mail/mailtest"
	"cardpay/oauth"
	"cardpay/ocr"
	"cardpay/pay"
	"cardpay/receipts"
	"cardpay/store"
	"cardpay/store/storetest"
)

var db *storetest.DB

// Main is the test package's TestMain: a freshly migrated database of its own for the
// package's tests, dropped at the end.
func Main(m *testing.M) { storetest.Run(m, &db) }

// MainThen is Main with after called once the tests have run.
func MainThen(m *testing.M, after func()) { storetest.RunThen(m, &db, after) }

// Store is the test package's database.
func Store() *store.Store { return db.Store }

// QueueOCR is invoicefiles.QueueOCR on Store(): the also of Store().CreateInvoiceFile in
// the pages' tests, which may not import invoicefiles themselves (the house rules).
func QueueOCR(ctx context.Context) func(tx *sqlx.Tx, f store.InvoiceFile) error {
	return invoicefiles.QueueOCR(ctx, db.Store)
}

// DB is the test package's database with its server, for tests that open a second
// connection (two instances on one database).
func DB() *storetest.DB { return db }

// Password is every test buyer's password.
const Password = "correct horse battery 7"

// SecretKey is the tests' SECRET_KEY.
const SecretKey = "test secret key"

// PasswordHash is the argon2id hash of Password, computed once.
var PasswordHash = sync.OnceValue(func() string {
	h, err := auth.HashPassword(Password)
	if err != nil {
		panic(err)
	}
	return h
})

// Clock is a settable clock; give its Now to Deps.Clock (the account service follows).
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Add moves the clock on by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestCorporation is the registry entry of the corporate number NewBuyer and the
// registration tests use (7000012050002), under the name they type.
var TestCorporation = store.Corporation{CorporateNumber: "7000012050002", Name: "テスト商事株式会社",
	NameKana: "テストショウジ", Address: "東京都千代田区千代田１－１"}

// Env is the application under test.
type Env struct {
	*handlers.Site
	Server *httptest.Server
	// URL is the server's origin, http://127.0.0.1:port.
	URL  string
	Mail *mailtest.Server
	// PSP is the sandbox PSP on its own origin (nil when the test brought its own
	// Gateway).
	PSP  *PSP
	logs *storetest.Logs
	// jobKinds are the kinds of job the Env's runner works.
	jobKinds []string
}

// Logs is what the application logged so far.
func (e *Env) Logs() string { return e.logs.String() }

// New starts the application; mutate changes its dependencies first (a clock, a
// corporation registry, an https BASE_URL, collection exclusions).
func New(t *testing.T, mutate ...func(*web.Deps)) *Env {
	t.Helper()
	sessions := scs.New()
	sessions.Store = db.Store.Sessions(0)
	sessions.Cookie.Name = "cardpay_session"
	sessions.Cookie.SameSite = http.SameSiteLaxMode
	logs := &storetest.Logs{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	mailSrv := mailtest.NewServer(t)
	sender, err := mail.NewSMTP(mailSrv.URL(), "no-reply@test.example")
	require.NoError(t, err)
	d := web.Deps{
		Store: db.Store, Sessions: sessions, DevMailbox: db.Store,
		Account: &account.Service{
			Store: db.Store, Mail: sender, Codes: auth.NewCodes(SecretKey), Sealer: auth.NewSealer(SecretKey),
			Throttle: auth.DefaultThrottle, ServiceName: "請求書カード払い",
			// Every test of a package comes from 127.0.0.1: the limiter's own tests
			// set their limits (account.DefaultLimits or tighter) through mutate.
			Limits:    account.Limits{},
			DeviceKey: auth.DeriveKey(SecretKey, account.DeviceKeyInfo),
		},
		Logger: logger, ServiceName: "請求書カード払い", BaseURL: "http://localhost",
		Links: info.DefaultLinks, SecretKey: SecretKey,
		CollectionExclusions: map[string]bool{},
		Remitter: invoices.Remitter{Code: "1234567890", Name: "ｾｲｷﾕｳｼﾖｶ-ﾄﾞﾊﾞﾗｲ", BankCode: "0005", BankKana: "ミツビシユーエフジエイ",
			BranchCode: "001", BranchKana: "トウキヨウエイギヨウブ", AccountType: pay.AccountCurrent, AccountNumber: "7654321"},
		InboundMailDomain: InboundMailDomain,
	}
	oa, err := oauth.New(db.Store, SecretKey, "http://localhost/oauth/token")
	require.NoError(t, err)
	d.OAuth = oa
	for _, f := range mutate {
		f(&d)
	}
	// The test corporation (NewBuyer's and the registration forms') is in the registry
	// the registration checks, which has no NTA in tests.
	require.NoError(t, db.Store.SaveCorporations(context.Background(), []store.Corporation{TestCorporation}))
	if d.Clock != nil {
		d.Account.Now = d.Clock
	}
	// The app's listener exists before the sandbox PSP starts, which needs the app's
	// origin (CORS, return URLs, webhooks); the app serves once the site is built.
	srv := httptest.NewUnstartedServer(nil)
	psp := startPSP(t, &d, "http://"+srv.Listener.Addr().String(), logger)
	if d.Cards == nil {
		// Webhooks are processed by a background job, as in production.
		d.Cards = &cards.Service{Store: db.Store, Gateway: psp.Client, BaseURL: d.BaseURL, Logger: logger, Now: d.Clock, QueueEvents: true,
			Limiter: d.Account}
	}
	// A submission nobody settled is looked at after a second, not two minutes.
	money := invoices.New(invoices.Config{Store: db.Store, Gateway: psp.Client, BaseURL: d.BaseURL, Logger: logger, Now: d.Clock,
		SettleAfter: time.Second, Mailer: d.Account, WebhookJob: oauth.WebhookJob})
	d.SetMoney(money)
	if d.Cards != nil {
		d.Cards.Payments = money.Payments
	}
	db.Store.SetEvents(money.Notices)
	// Mail goes through the job queue as in production; workers poll often and wake on
	// NOTIFY, so a test sees its mail within milliseconds.
	runner := &jobs.Runner{Store: db.Store, Workers: 2, Logger: logger, PollInterval: 50 * time.Millisecond,
		BaseBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	runner.Register(account.MailJobKind, d.Account.DeliverMail)
	runner.Register(account.NotificationMailJobKind, d.Account.DeliverNotification)
	// Invoice files: a folder of the test's own, URLs signed with the tests' key, previews
	// and the real OCR job (tesseract and poppler, installed by the ocr-tools task).
	// Receipts are signed with the same key and printed with the test issuer.
	urlSigner := files.Signer{Key: auth.DeriveKey(SecretKey, files.URLKeyInfo)}
	if d.InvoiceFiles == nil {
		d.InvoiceFiles = &invoicefiles.Service{Store: db.Store, Files: &files.Local{Dir: t.TempDir()}, Signer: urlSigner,
			Thumbnailer: &ocr.Reader{Timeout: invoicefiles.PreviewTimeout}, Tools: &ocr.Reader{}, Logger: logger, Now: d.Clock}
	}
	// The corporations registry (the table; no NTA in tests) names an invoice's issuer by
	// its registration number; the pages search the same one.
	if d.Corporations == nil {
		d.Corporations = &account.Corporations{Store: db.Store, Logger: logger}
	}
	if d.InvoiceFiles.Files != nil {
		runner.Register(invoicefiles.OCRJobKind, (&invoicefiles.OCR{Store: db.Store, Files: d.InvoiceFiles.Files, Registry: d.Corporations, Logger: logger}).Run)
	}
	if d.Receipts == nil {
		d.Receipts = &receipts.Service{Store: db.Store, Signer: urlSigner, ServiceName: d.ServiceName,
			IssuerName: "請求書カード払い運営株式会社", IssuerRegistrationNumber: "T1180301018771", Now: d.Clock}
	}
	if d.Cards != nil && d.Cards.QueueEvents {
		runner.Register(cards.PSPEventJobKind, d.Cards.RunEventJob)
	}
	runner.Register(invoices.SettleJobKind, money.Payments.RunSettleJob)
	runner.Register(invoices.CardJobKind, money.Payments.RunCardJob)
	runner.Register(invoices.CaptureJobKind, money.Screening.RunCaptureJob)
	runner.Register(invoices.ExpiryJobKind, money.Payments.RunExpiryJob)
	runner.Start(context.Background())
	env := &Env{Mail: mailSrv, PSP: psp, logs: logs, jobKinds: runner.Kinds()}
	// Before the mail server closes (cleanups run last-registered first): finish what
	// this test enqueued, so that no job of it runs in the next test's environment.
	t.Cleanup(func() {
		env.settle(10 * time.Second)
		runner.Stop()
	})
	site := handlers.NewSite(d)
	srv.Config.Handler = site.Handler
	srv.Start()
	t.Cleanup(srv.Close)
	env.Site, env.Server, env.URL = site, srv, srv.URL
	return env
}

// Settle waits until the Env's kinds of job have nothing due or running: every mail that
// the requests so far caused has gone out (or was dropped by its rule). Tests call it
// before asserting that something was not mailed.
func (e *Env) Settle(t *testing.T) {
	t.Helper()
	if !e.settle(10 * time.Second) {
		t.Fatal("webtest: the job queue did not settle within 10s")
	}
}

func (e *Env) settle(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		n, err := db.Store.PendingJobs(context.Background(), e.jobKinds...)
		if err == nil && n == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// WaitCode reads the 6-digit code of the newest mail to address.
func (e *Env) WaitCode(t *testing.T, address string) string {
	t.Helper()
	m := e.Mail.WaitFor(t, address, 10*time.Second)
	code := mailtest.Code(m.Text)
	require.Len(t, code, 6, "a 6-digit code in %q", m.Text)
	return code
}

// Client is a browser stand-in: a cookie jar and no automatic redirects, so each test
// sees every 303.
type Client struct {
	t    *testing.T
	Base string
	HTTP *http.Client
}

// Client is a new browser with an empty cookie jar.
func (e *Env) Client(t *testing.T) *Client {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &Client{t: t, Base: e.URL, HTTP: &http.Client{
		Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
		Timeout: 30 * time.Second,
	}}
}

// NewClientLike is another browser on the same site as c, with an empty cookie jar: a
// device that never signed in.
func NewClientLike(c *Client) *Client {
	jar, err := cookiejar.New(nil)
	require.NoError(c.t, err)
	return &Client{t: c.t, Base: c.Base, HTTP: &http.Client{
		Jar:           jar,
		CheckRedirect: c.HTTP.CheckRedirect,
		Timeout:       c.HTTP.Timeout,
	}}
}

// Response is an answer with its body read.
type Response struct {
	*http.Response
	Body string
}

// Do sends req and reads the answer.
func (c *Client) Do(req *http.Request) Response {
	c.t.Helper()
	res, err := c.HTTP.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		// Every page any handler test opens is checked for a repeated id: a second
		// element with an id breaks the label, aria-describedby or fragment that names it.
		if dup := RepeatedIDs(string(b)); len(dup) > 0 {
			c.t.Errorf("webtest: %s %s repeats the id(s) %q", req.Method, req.URL.Path, dup)
		}
	}
	return Response{res, string(b)}
}

// RepeatedIDs are the ids that more than one element of page has (in document order
// of their second use); a <template>'s content is its own document and not counted.
func RepeatedIDs(page string) []string {
	z := html.NewTokenizer(strings.NewReader(page))
	seen := map[string]int{}
	var dup []string
	inTemplate := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return dup
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if string(name) == "template" && tt == html.StartTagToken {
				inTemplate++
			}
			for hasAttr && inTemplate == 0 {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) == "id" {
					seen[string(v)]++
					if seen[string(v)] == 2 {
						dup = append(dup, string(v))
					}
				}
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "template" && inTemplate > 0 {
				inTemplate--
			}
		}
	}
}

// Get opens path.
func (c *Client) Get(path string) Response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.Base+path, nil)
	require.NoError(c.t, err)
	return c.Do(req)
}

// Post sends a same-origin form, as a browser would from our own page.
func (c *Client) Post(path string, form url.Values) Response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.Base+path, strings.NewReader(form.Encode()))
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", c.Base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return c.Do(req)
}

// PostFile sends the plain upload form (no JavaScript): one file part in the multipart
// field, as the pages' file inputs post it.
func (c *Client) PostFile(path, field, name string, content []byte) Response {
	c.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, err := w.CreateFormFile(field, name)
	require.NoError(c.t, err)
	_, err = part.Write(content)
	require.NoError(c.t, err)
	require.NoError(c.t, w.Close())
	req, err := http.NewRequest(http.MethodPost, c.Base+path, &body)
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.Do(req)
}

// Cookie is the value of the named cookie in the jar, or "".
func (c *Client) Cookie(name string) string {
	u, _ := url.Parse(c.Base)
	for _, ck := range c.HTTP.Jar.Cookies(u) {
		if ck.Name == name {
			return ck.Value
		}
	}
	return ""
}

// SignIn signs in with the test password through the sign-in form.
func (c *Client) SignIn(email string) {
	c.t.Helper()
	res := c.Post("/signin", url.Values{"email_address": {email}, "password": {Password}})
	require.Equal(c.t, http.StatusSeeOther, res.StatusCode, res.Body)
}

var buyerSeq atomic.Int64

// InboundMailDomain is the receiving addresses' domain in the handler tests.
const InboundMailDomain = "inbox.test.example"

// NewBuyer registers a buyer with one user (password Password, current terms) and a
// unique address. corporateNumber is used for corporations; "" gives them 7000012050002.
func NewBuyer(t *testing.T, form pay.BusinessForm, corporateNumber string) store.User {
	t.Helper()
	n := buyerSeq.Add(1)
	email := fmt.Sprintf("%s-%d-%d@test.example", strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")), n, time.Now().UnixNano()%1e6)
	nb := store.NewBuyer{
		BusinessForm: form, EmailAddress: email, PasswordHash: PasswordHash(), LastName: "山田", FirstName: "太郎",
		PhoneNumber: "0312345678", TermsVersion: account.TermsVersion,
		Details: store.BuyerDetails{TransferPersonName: "テストショウジ"},
	}
	if form == pay.Corporation {
		if corporateNumber == "" {
			corporateNumber = "7000012050002"
		}
		nb.CorporateName, nb.CorporateNumber = "テスト商事株式会社", corporateNumber
	} else {
		nb.BusinessName = "テスト工房"
	}
	u, err := db.Store.CreateBuyer(context.Background(), nb)
	require.NoError(t, err)
	return u
}
