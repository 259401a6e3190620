package securitysuite_test

// Bad input (DESIGN.md §5: "Bad input gets a clear Japanese message and changes
// nothing; no 500 for anything a user can type or upload"), generated: every unsafe
// route of the echo router gets
//   - page forms (POST, pages and /ops): the form's fields as the site's own pages
//     render them (the fields of every <form> found on the pages, matched to the route
//     by its action; a route whose form is not on a page reachable without a journey in
//     progress gets every field name the site uses), all set to one bad value per
//     request — wrong-type text ("-1", "99999999999999999999999", "1e309", "NaN"), a
//     1 MB string, invalid UTF-8, control characters (NUL, ESC, U+202E, zero-width),
//     SQL and HTML fragments, path traversal — and malformed bodies (empty, no body,
//     JSON, text/plain, multipart without a boundary or broken, invalid percent
//     encoding, bracketed and repeated names); upload forms also bad files;
//   - /api/v1 (JSON): the body of the route's OpenAPI schema with every leaf set to one
//     bad JSON value per request (numbers where strings are expected and the other way
//     round, 1e309, 99999999999999999999999, booleans, null, arrays, objects, the bad
//     strings above, invalid UTF-8 as raw bytes), each property alone with the wrong
//     type, and malformed bodies (empty, truncated, top-level array, string or null,
//     two objects, 10,000 levels of nesting, a byte-order mark, duplicate keys, a
//     Shift_JIS body, wrong Content-Types, 1 MB);
//   - path parameters: bad ids ("0", "-1", "abc", 99999999999999999999999, "1e309",
//     SQL, HTML, %ff, %00, U+202E). Routes whose action is the path itself (delete,
//     cancel, default, end, the console's screening and transfer actions, DELETE) only
//     ever get bad ids, so that every request of the run is invalid; the others get the
//     buyer's own ids, so that their bodies are read.
// plus three values per route from a seeded generator (badInputSeed), so the run is the
// same every time. Signed-in routes are sent as a signed-in corporation buyer with data
// of every kind (its browser also signed in to the console with every role; the API in
// cookie mode), with a payment journey left in progress on its invoice step so that the
// journey's steps read what they are sent; public ones as a visitor that is signed out.
//
// Expected: no answer is a 5xx; nothing that should not be stored is: after any request
// carrying HTML or control characters that was not refused (below 400), and at the end,
// no row of any table (the app's and the sandbox PSP's, every column read as the row's
// text) holds an HTML/script fragment or a control character (storedBad) that was not
// there before the run — each route's dangerous values carry a mark of the route, so a
// stored one names its route (routeMark); the row counts of the tables holding buyer data are the
// same as before (every input was invalid; buyerDataCounts says which tables are not
// counted, and why); the buyer stays signed in; and the pages that show the buyer's
// data show no fragment unescaped.
//
// Not sent: the routes whose whole job needs no input — POST /signout, /ops/signout,
// /api/v1/logout and /myaccount/security/sessions/end-others — which end sessions
// whatever they receive.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html"
	"maps"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/labstack/echo/v5"
	"github.com/stretchr/testify/require"

	"cardpay/handlers"
	"cardpay/handlers/api"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
)

// badInputSeed seeds the generated part of the run.
const badInputSeed = 15

// badInputWorkers routes are attacked at once (each route's requests in order).
const badInputWorkers = 4

// noInputRoutes act on any request by design; they are not sent.
var noInputRoutes = []string{"POST /signout", "POST /ops/signout", "POST " + api.Prefix + "/logout", "POST /myaccount/security/sessions/end-others",
	// Renewing the receiving address takes no input: any request gives a new one.
	"POST /receipt-invoices/address/renew", "POST " + api.Prefix + "/receipt_invoices/address"}

// storedBad matches what must never be stored: HTML/script fragments, and control and
// invisible formatting characters (C0 controls but tab, newline and carriage return; DEL;
// the bidirectional overrides and isolates; zero-width space; BOM), raw or as a JSON
// escape inside a jsonb column.
var storedBad = regexp.MustCompile(`(?i)<script|onerror=|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x{200b}\x{202a}-\x{202e}\x{2066}-\x{2069}\x{feff}]|\\u00[01][0-9a-f]`)

type badValue struct {
	label     string
	s         string
	dangerous bool // HTML or control characters: must never be stored
	huge      bool // set in one field only
}

var badStrings = []badValue{
	{label: "empty"},
	{label: "1 MB", s: strings.Repeat("a", 1<<20), huge: true},
	{label: "10,000 full-width characters", s: strings.Repeat("あ", 10000)},
	{label: "invalid UTF-8", s: "\xff\xfe\xfd"},
	{label: "truncated UTF-8", s: "abc\xe3\x81"},
	{label: "overlong UTF-8", s: "\xc0\xaf\xe0\x80\xaf"},
	{label: "NUL", s: "a\x00b", dangerous: true},
	{label: "ESC", s: "\x1b[2J\x1b[31mred", dangerous: true},
	{label: "U+202E", s: "invoice\u202efdp.exe", dangerous: true},
	{label: "zero-width and BOM", s: "\u200b\ufeff1", dangerous: true},
	{label: "CR LF", s: "a\r\nSet-Cookie: injected=1"},
	{label: "SQL quote", s: "' OR 1=1 --"},
	{label: "SQL statement", s: "'; DROP TABLE users; --"},
	{label: "HTML script", s: "<script>alert(1)</script>", dangerous: true},
	{label: "HTML attribute", s: `"><img src=x onerror=alert(1)>`, dangerous: true},
	{label: "-1", s: "-1"},
	{label: "huge integer", s: "99999999999999999999999"},
	{label: "1e309", s: "1e309"},
	{label: "NaN", s: "NaN"},
	{label: "-Infinity", s: "-Infinity"},
	{label: "path traversal", s: "../../../../etc/passwd"},
	{label: "percent NUL", s: "%00"},
	{label: "template", s: "{{.}}${7*7}<%= 7*7 %>"},
}

// badJSONLeaves are raw JSON values; badStrings are added as JSON strings.
var badJSONLeaves = []badValue{
	{label: "number", s: "1"}, {label: "negative", s: "-1"}, {label: "zero", s: "0"}, {label: "fraction", s: "1.5"},
	{label: "huge integer", s: "99999999999999999999999"}, {label: "1e309", s: "1e309"}, {label: "-1e309", s: "-1e309"},
	{label: "true", s: "true"}, {label: "false", s: "false"}, {label: "null", s: "null"},
	{label: "empty array", s: "[]"}, {label: "array", s: `[1,"a",null,{}]`}, {label: "empty object", s: "{}"},
	{label: "object", s: `{"a":{"b":[1]}}`}, {label: "bare NaN", s: "NaN"},
}

// badPathIDs replace path parameters.
var badPathIDs = []string{"0", "-1", "abc", "99999999999999999999999", "1e309", "NaN", "%27%20OR%201%3D1%20--",
	"%3Cscript%3Ealert(1)%3C%2Fscript%3E", "%ff%fe", "%00", "%E2%80%AE1"}

// badFiles are uploads that must all be refused.
var badFiles = []struct{ name, content string }{
	{"invoice.pdf", "%PDF-1.7\n<script>alert(1)</script>\n%%EOF"},
	{"<script>alert(1)</script>.png", "\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x01\x86\xa0\x00\x01\x86\xa0\x08\x02\x00\x00\x00"},
	{"../../../../etc/passwd.jpg", "\xff\xd8\xff\xe0garbage"},
	{"a\x00b.pdf", "\x00\x01\x02\x03"},
	{"empty.pdf", ""},
	{"invoice.exe", "MZ\x90\x00"},
	{"big.pdf", "%PDF-1.4\n" + strings.Repeat("\x00", 1<<20)},
}

// badTarget is a route with how to reach it.
type badTarget struct {
	route      echo.RouteInfo
	api        bool
	public     bool
	pathAction bool
	fields     []string       // page forms
	multipart  bool           // the form uploads a file
	op         map[string]any // the API operation
}

func (bt badTarget) key() string { return bt.route.Method + " " + bt.route.Path }

type badRequest struct {
	label       string
	method      string
	path        string
	contentType string
	body        []byte
	dangerous   bool
}

func TestBadInputGeneratedOverEveryFormAndAPIBody(t *testing.T) {
	env := webtest.New(t)
	v := newVictim(t, env)
	anon := env.Client(t)

	forms, union := discoverForms(t, env, v)
	var targets []badTarget
	var skipped []string
	formsFound := 0
	for _, r := range unsafeRoutes(env) {
		bt := badTarget{route: r, api: strings.HasPrefix(r.Path, api.Prefix+"/")}
		if slices.Contains(noInputRoutes, bt.key()) {
			skipped = append(skipped, bt.key())
			continue
		}
		bt.pathAction = pathAction(r)
		if bt.api {
			bt.op = apiOperation(r)
			bt.public = !signedInAPI(r)
		} else {
			var found bool
			bt.public = publicPage(r.Path)
			bt.fields, bt.multipart, found = formFields(r.Path, forms, union)
			if found {
				formsFound++
			}
		}
		targets = append(targets, bt)
	}
	require.Greater(t, len(targets), 100)

	marks := map[string]string{}
	for _, bt := range targets {
		marks[routeMark(bt.key())] = bt.key()
	}
	require.Len(t, marks, len(targets), "each route has a mark of its own")

	ctx := context.Background()
	env.Settle(t)
	baseline, err := storedFindings(ctx)
	require.NoError(t, err)
	countsBefore := buyerDataCounts(t)

	var (
		mu        sync.Mutex
		sent      int
		byClass   = map[int]int{}
		failures  []string
		signedOut []string
		seen      = map[string]bool{} // stored rows holding a fragment, found so far
		storedBy  []string            // the requests after which a new such row appeared
		scanMu    sync.Mutex
	)
	for _, rows := range baseline {
		for _, r := range rows {
			seen[r] = true
		}
	}
	// scan looks for rows holding a fragment that were not there before; what names
	// the request that was just answered.
	scan := func(what string) {
		scanMu.Lock()
		defer scanMu.Unlock()
		found, err := storedFindings(ctx)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			failures = append(failures, "scan: "+err.Error())
			return
		}
		for table, rows := range found {
			for _, r := range rows {
				if seen[r] {
					continue
				}
				seen[r] = true
				// The route's mark names it; a request of another route may have
				// triggered this scan.
				by := "a request answered before " + what
				for _, m := range markRe.FindAllString(r, -1) {
					if route, ok := marks[m]; ok {
						by = route
						break
					}
				}
				storedBy = append(storedBy, fmt.Sprintf("%s: %s, from %s", table, fragmentKind(r), by))
			}
		}
	}

	jobs := make(chan badTarget)
	var wg sync.WaitGroup
	for range badInputWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for bt := range jobs {
				c := v.c
				if bt.public {
					c = webtest.NewClientLike(anon)
				}
				headers := map[string]string{"Origin": env.URL, "Sec-Fetch-Site": "same-origin"}
				if bt.api && !bt.public {
					headers["X-Requested-With"] = "fetch"
				}
				for _, br := range badRequests(bt, v.ids) {
					a, err := sendRaw(c, br.method, br.path, br.contentType, br.body, headers)
					mu.Lock()
					sent++
					switch {
					case err != nil:
						failures = append(failures, fmt.Sprintf("%s %s [%s]: %v (Content-Type %q, body %s)", br.method, br.path, br.label, err, br.contentType, preview(br)))
					case a.status >= 500:
						failures = append(failures, fmt.Sprintf("%s %s [%s]: %d (Content-Type %q, body %s)", br.method, br.path, br.label, a.status, br.contentType, preview(br)))
					}
					if err == nil {
						byClass[a.status/100]++
					}
					mu.Unlock()
					if err == nil && br.dangerous && a.status < 400 {
						scan(fmt.Sprintf("%s %s [%s] → %d", br.method, br.path, br.label, a.status))
					}
				}
				if !bt.public && !signedInNow(c, bt) {
					mu.Lock()
					signedOut = append(signedOut, bt.key())
					mu.Unlock()
				}
			}
		}()
	}
	for _, bt := range targets {
		jobs <- bt
	}
	close(jobs)
	wg.Wait()
	env.Settle(t)
	scan("the run")
	countsAfter := buyerDataCounts(t)

	pages := 0
	for _, bt := range targets {
		if !bt.api {
			pages++
		}
	}
	if len(failures) > 0 {
		t.Errorf("%d requests failed (5xx or no answer); the first ones:\n%s", len(failures), strings.Join(failures[:min(10, len(failures))], "\n"))
	}
	answered := byClass[1] + byClass[2] + byClass[3] + byClass[4] + byClass[5]
	record(t, "bad input", "generated bad input (seed 15): every form, API body, path parameter",
		fmt.Sprintf("%d requests to %d routes (%d page forms, %d of them found on a page; %d API): 2xx %d, 3xx %d, 4xx %d, 5xx %d, no answer %d; not sent: %d no-input routes",
			sent, len(targets), pages, formsFound, len(targets)-pages, byClass[2], byClass[3], byClass[4], byClass[5], sent-answered, len(skipped)),
		len(failures) == 0)

	tables, from := map[string]bool{}, map[string]bool{}
	for _, s := range storedBy {
		table, _, _ := strings.Cut(s, ":")
		tables[table] = true
		_, route, _ := strings.Cut(s, ", from ")
		from[route] = true
	}
	if len(storedBy) > 0 {
		t.Errorf("HTML or control characters stored:\n%s", strings.Join(storedBy, "\n"))
	}
	record(t, "bad input", "nothing stored that should not be (HTML/script, control characters)",
		fmt.Sprintf("%d tables scanned after each accepted dangerous value and at the end: %d new rows with a fragment %v, from %v",
			len(baseline), len(storedBy), slices.Sorted(maps.Keys(tables)), slices.Sorted(maps.Keys(from))),
		len(storedBy) == 0)

	var changed []string
	for table, n := range countsAfter {
		if countsBefore[table] != n {
			changed = append(changed, fmt.Sprintf("%s %d → %d", table, countsBefore[table], n))
		}
	}
	sort.Strings(changed)
	if len(changed) > 0 {
		t.Errorf("buyer data row counts changed: %s", strings.Join(changed, "; "))
	}
	record(t, "bad input", "row counts of the buyer-data tables unchanged (every input invalid)",
		fmt.Sprintf("%d tables: %d changed (not counted: drafts, kept as typed; request_key_misses, counts each unknown key)", len(countsAfter), len(changed)),
		len(changed) == 0)

	// What is stored is shown escaped: the pages of the buyer's data hold no raw fragment.
	var raw []string
	showPages := []string{"/myaccount", "/myaccount/company", "/myaccount/creditcards", "/suppliers?status=enable",
		"/suppliers/" + v.ids["supplier"], "/payments/draft", "/payments/review", "/payments/review/" + v.ids["invoice"],
		"/notifications", "/collections/draft", "/toppage"}
	for _, p := range showPages {
		res := v.c.Get(p)
		for _, frag := range []string{"<script>alert(1)</script>", "<img src=x onerror=alert(1)>"} {
			if strings.Contains(res.Body, frag) {
				raw = append(raw, p)
			}
		}
	}
	if len(signedOut) > 0 {
		t.Errorf("the session had ended after: %v", signedOut)
	}
	record(t, "bad input", "the buyer's pages show no fragment unescaped; the buyer stays signed in",
		fmt.Sprintf("%d pages: %d with a raw fragment; routes after which the session had ended: %d", len(showPages), len(raw), len(signedOut)),
		len(raw) == 0 && len(signedOut) == 0)
}

// signedInNow says whether c is still signed in where bt needs it: through the API in
// cookie mode, which (unlike a page) leaves no journey in progress.
func signedInNow(c *webtest.Client, bt badTarget) bool {
	path, h := api.Prefix+"/users/information", map[string]string{"X-Requested-With": "fetch"}
	if strings.HasPrefix(bt.route.Path, "/ops") {
		path, h = "/ops/audit", nil
	}
	a, err := sendRaw(c, http.MethodGet, path, "", nil, h)
	return err == nil && a.status == http.StatusOK
}

func preview(br badRequest) string {
	b := br.body
	if len(b) > 160 {
		return fmt.Sprintf("%q… (%d bytes)", b[:160], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// publicPage says whether a page route is for visitors who are signed out.
func publicPage(path string) bool {
	for _, p := range []string{"/signin", "/signup", "/onetime-password", "/registration", "/password/", "/ops/signin"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// pathAction says whether the route's action is its path: such routes get bad ids only.
func pathAction(r echo.RouteInfo) bool {
	if len(r.Parameters) == 0 && !strings.Contains(r.Path, ":") {
		return false
	}
	if r.Method == http.MethodDelete || strings.HasPrefix(r.Path, "/ops/screening/") || strings.HasPrefix(r.Path, "/ops/transfers/") {
		return true
	}
	for _, s := range []string{"/delete", "/default", "/cancel", "/end", "/confirmation"} {
		if strings.HasSuffix(r.Path, s) {
			return true
		}
	}
	return false
}

// badRequests are the requests sent to bt.
func badRequests(bt badTarget, ids map[string]string) []badRequest {
	h := fnv.New64a()
	h.Write([]byte(bt.key()))
	rng := rand.New(rand.NewPCG(badInputSeed, h.Sum64()))
	values := slices.Clone(badStrings)
	for i := range 3 {
		values = append(values, randomValue(rng, i))
	}
	// Each route's dangerous values carry the route's own mark, so that a stored one
	// names the route that stored it.
	for i := range values {
		if values[i].dangerous {
			values[i].s += " " + routeMark(bt.key())
		}
	}

	var out []badRequest
	hasParams := strings.Contains(bt.route.Path, ":")
	paths := []string{fillPath(bt.route.Path, ids)}
	if bt.pathAction {
		paths = nil
	}
	if hasParams {
		for _, id := range badPathIDs {
			paths = append(paths, echoParam.ReplaceAllString(bt.route.Path, id))
		}
	}
	m := bt.route.Method
	for i, path := range paths {
		// The full set on the route's real path (or the first bad one); the others get
		// a few bodies each.
		full := i == 0
		var reqs []badRequest
		if bt.api {
			reqs = apiBadRequests(bt, values, full)
		} else {
			reqs = formBadRequests(bt, values, full)
		}
		for _, r := range reqs {
			r.method, r.path = m, path
			if i > 0 || bt.pathAction {
				r.label += " (path " + path + ")"
			}
			out = append(out, r)
		}
	}
	return out
}

// routeMark is the mark of a route's dangerous values.
func routeMark(key string) string {
	h := fnv.New32a()
	h.Write([]byte(key))
	return fmt.Sprintf("#%06x", h.Sum32()&0xffffff)
}

var markRe = regexp.MustCompile(`#[0-9a-f]{6}`)

// fragmentKind says what storedBad found in a row.
func fragmentKind(row string) string {
	switch m := strings.ToLower(storedBad.FindString(row)); {
	case m == "<script":
		return "HTML script"
	case m == "onerror=":
		return "HTML attribute"
	default:
		return fmt.Sprintf("control character %q", m)
	}
}

// randomValue is a seeded string: bytes of every kind, or characters of every plane.
func randomValue(rng *rand.Rand, i int) badValue {
	n := 1 + rng.IntN(48)
	var b strings.Builder
	if i%2 == 0 {
		for range n {
			b.WriteByte(byte(rng.IntN(256)))
		}
	} else {
		for range n {
			b.WriteRune(rune(rng.IntN(0x10FFFF)))
		}
	}
	s := b.String()
	return badValue{label: fmt.Sprintf("random %d", i), s: s, dangerous: storedBad.MatchString(strings.ToValidUTF8(s, ""))}
}

const formCT = "application/x-www-form-urlencoded"

func valueLabeled(values []badValue, label string) badValue {
	for _, v := range values {
		if v.label == label {
			return v
		}
	}
	panic("no bad value " + label)
}

func formBadRequests(bt badTarget, values []badValue, full bool) []badRequest {
	var out []badRequest
	fill := func(v badValue) url.Values {
		f := url.Values{}
		for i, name := range bt.fields {
			s := v.s
			if v.huge && i > 0 {
				s = "x"
			}
			f.Set(name, s)
		}
		return f
	}
	if !full {
		return []badRequest{
			{label: "HTML script", contentType: formCT, body: []byte(fill(valueLabeled(values, "HTML script")).Encode()), dangerous: true},
			{label: "empty body", contentType: formCT},
		}
	}
	for _, v := range values {
		out = append(out, badRequest{label: v.label, contentType: formCT, body: []byte(fill(v).Encode()), dangerous: v.dangerous})
		if bt.multipart && !v.huge {
			ct, body := multipartBody(fill(v), nil)
			out = append(out, badRequest{label: v.label + " (multipart)", contentType: ct, body: body, dangerous: v.dangerous})
		}
	}
	first := "x"
	if len(bt.fields) > 0 {
		first = bt.fields[0]
	}
	out = append(out,
		badRequest{label: "empty body", contentType: formCT},
		badRequest{label: "no body, no Content-Type"},
		badRequest{label: "JSON body", contentType: "application/json", body: []byte(`{"` + first + `":"<script>alert(1)</script>"}`)},
		badRequest{label: "text/plain", contentType: "text/plain", body: []byte(first + "=1")},
		badRequest{label: "multipart without a boundary", contentType: "multipart/form-data", body: []byte("--x\r\n\r\n")},
		badRequest{label: "broken multipart", contentType: "multipart/form-data; boundary=xyz", body: []byte("--xyz\r\nContent-Disposition: form-data; name=\"" + first + "\"\r\n\r\nvalue")},
		badRequest{label: "invalid percent-encoding", contentType: formCT, body: []byte(first + "=%zz&%%=1&b=%")},
		badRequest{label: "names without values", contentType: formCT, body: []byte(strings.Join(bt.fields, "&"))},
		badRequest{label: "bracketed names", contentType: formCT, body: []byte(first + "[]=1&" + first + "[a]=2&" + first + "[0][b]=3")},
		badRequest{label: "1,000 repeats", contentType: formCT, body: []byte(strings.Repeat(url.QueryEscape(first)+"=-1&", 1000))},
		badRequest{label: "unknown Content-Type", contentType: "application/x-evil; charset=utf-7", body: []byte("+ADw-script+AD4-")},
	)
	if bt.multipart {
		for _, f := range badFiles {
			ct, body := multipartBody(url.Values{}, &f)
			out = append(out, badRequest{label: "bad file " + fmt.Sprintf("%q", f.name), contentType: ct, body: body})
		}
	}
	return out
}

// fileField is the upload forms' file field (pages and API).
const fileField = "invoice_file"

func multipartBody(fields url.Values, file *struct{ name, content string }) (string, []byte) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for k, vs := range fields {
		for _, v := range vs {
			_ = w.WriteField(k, v)
		}
	}
	if file != nil {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, fileField, strings.ReplaceAll(file.name, `"`, "")))
		h.Set("Content-Type", "application/pdf")
		p, _ := w.CreatePart(h)
		_, _ = p.Write([]byte(file.content))
	}
	_ = w.Close()
	return w.FormDataContentType(), buf.Bytes()
}

func apiBadRequests(bt badTarget, values []badValue, full bool) []badRequest {
	const jsonCT = "application/json"
	schema, kind := requestSchema(bt.op)
	if !full {
		body := "{}"
		if schema != nil {
			body = jsonFill(schema, `"<script>alert(1)</script>"`, 0)
		}
		return []badRequest{{label: "HTML script", contentType: jsonCT, body: []byte(body), dangerous: true}, {label: "empty body", contentType: jsonCT}}
	}
	var out []badRequest
	if schema != nil {
		leaves := slices.Clone(badJSONLeaves)
		for _, v := range values {
			if v.huge {
				continue // the "1 MB body" below, once rather than in every field
			}
			leaves = append(leaves, badValue{label: "string " + v.label, s: jsonString(v.s), dangerous: v.dangerous})
		}
		for _, l := range leaves {
			out = append(out, badRequest{label: "every field " + l.label, contentType: jsonCT, body: []byte(jsonFill(schema, l.s, 0)), dangerous: l.dangerous})
		}
		for _, l := range []string{"1", "null", `"x"`, "[]"} {
			out = append(out, badRequest{label: "every field flat " + l, contentType: jsonCT, body: []byte(jsonFlat(schema, l))})
		}
		for _, p := range sortedProps(schema) {
			wrong := wrongTypeFor(propSchema(schema, p))
			out = append(out,
				badRequest{label: p + " alone, wrong type", contentType: jsonCT, body: []byte(`{"` + p + `":` + wrong + `}`)},
				badRequest{label: p + " alone, null", contentType: jsonCT, body: []byte(`{"` + p + `":null}`)})
		}
	}
	first := "x"
	if ps := sortedProps(schema); len(ps) > 0 {
		first = ps[0]
	}
	out = append(out,
		badRequest{label: "empty body", contentType: jsonCT},
		badRequest{label: "no body, no Content-Type"},
		badRequest{label: "truncated JSON", contentType: jsonCT, body: []byte(`{"` + first + `":`)},
		badRequest{label: "top-level array", contentType: jsonCT, body: []byte(`[1,2]`)},
		badRequest{label: "top-level string", contentType: jsonCT, body: []byte(`"<script>alert(1)</script>"`)},
		badRequest{label: "top-level null", contentType: jsonCT, body: []byte(`null`)},
		badRequest{label: "two objects", contentType: jsonCT, body: []byte(`{}{}`)},
		badRequest{label: "10,000 levels", contentType: jsonCT, body: []byte(strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000))},
		badRequest{label: "byte-order mark", contentType: jsonCT, body: []byte("\xef\xbb\xbf{}")},
		badRequest{label: "duplicate keys", contentType: jsonCT, body: []byte(`{"` + first + `":1,"` + first + `":"<script>alert(1)</script>"}`)},
		badRequest{label: "Shift_JIS body", contentType: "application/json; charset=shift_jis", body: []byte("{\"" + first + "\":\"\x82\xa0\x82\xa2\"}")},
		badRequest{label: "form Content-Type", contentType: formCT, body: []byte(first + "=1")},
		badRequest{label: "text/plain", contentType: "text/plain", body: []byte(`{}`)},
		badRequest{label: "multipart Content-Type", contentType: "multipart/form-data; boundary=xyz", body: []byte("--xyz\r\n\r\n{}")},
		badRequest{label: "1 MB body", contentType: jsonCT, body: []byte(`{"` + first + `":"` + strings.Repeat("a", 1<<20) + `"}`)},
	)
	switch kind {
	case "multipart/form-data":
		for _, f := range badFiles {
			ct, body := multipartBody(url.Values{}, &f)
			out = append(out, badRequest{label: "bad file " + fmt.Sprintf("%q", f.name), contentType: ct, body: body})
		}
		ct, body := multipartBody(url.Values{fileField: {"<script>alert(1)</script>"}}, nil)
		out = append(out, badRequest{label: "file field as text", contentType: ct, body: body})
	case "application/octet-stream":
		for _, f := range badFiles {
			out = append(out, badRequest{label: "bad bytes " + fmt.Sprintf("%q", f.name), contentType: kind, body: []byte(f.content)})
		}
	}
	return out
}

// requestSchema is the operation's request body schema (resolved) and its media type.
func requestSchema(op map[string]any) (map[string]any, string) {
	rb, _ := op["requestBody"].(map[string]any)
	content, _ := rb["content"].(map[string]any)
	for kind, c := range content {
		cm, _ := c.(map[string]any)
		s, _ := cm["schema"].(map[string]any)
		if kind != "application/json" {
			return nil, kind
		}
		return resolveSchema(s), kind
	}
	return nil, ""
}

// resolveSchema follows $ref, merges allOf and takes oneOf's object.
func resolveSchema(s map[string]any) map[string]any {
	if s == nil {
		return nil
	}
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		comp, _ := openAPIDoc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
		return resolveSchema(comp)
	}
	if all, ok := s["allOf"].([]any); ok {
		merged := map[string]any{"type": "object"}
		props := map[string]any{}
		for _, part := range all {
			p, _ := part.(map[string]any)
			for k, v := range schemaProps(resolveSchema(p)) {
				props[k] = v
			}
		}
		merged["properties"] = props
		return merged
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		if alts, ok := s[key].([]any); ok {
			for _, a := range alts {
				r := resolveSchema(a.(map[string]any))
				if r["type"] != "null" {
					return r
				}
			}
		}
	}
	return s
}

// propSchema is the resolved schema of s's property p.
func propSchema(s map[string]any, p string) map[string]any {
	ps, _ := schemaProps(s)[p].(map[string]any)
	return resolveSchema(ps)
}

func schemaProps(s map[string]any) map[string]any {
	p, _ := s["properties"].(map[string]any)
	return p
}

func sortedProps(s map[string]any) []string {
	return slices.Sorted(maps.Keys(schemaProps(s)))
}

// jsonFill is an object of s with every leaf (nested objects followed) set to leaf.
func jsonFill(s map[string]any, leaf string, depth int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range sortedProps(s) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + p + `":`)
		ps := propSchema(s, p)
		if ps["type"] == "object" && len(schemaProps(ps)) > 0 && depth < 3 {
			b.WriteString(jsonFill(ps, leaf, depth+1))
		} else {
			b.WriteString(leaf)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// jsonFlat is an object of s with every property, objects too, set to leaf.
func jsonFlat(s map[string]any, leaf string) string {
	var parts []string
	for _, p := range sortedProps(s) {
		parts = append(parts, `"`+p+`":`+leaf)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// wrongTypeFor is a JSON value of another type than s's.
func wrongTypeFor(s map[string]any) string {
	switch s["type"] {
	case "string":
		return "99999999999999999999999"
	case "integer", "number":
		return `"1e309"`
	case "boolean":
		return `"true"`
	case "array":
		return `{"0":1}`
	case "object":
		return `["<script>alert(1)</script>"]`
	}
	return "1e309"
}

// jsonString is s as a JSON string; invalid UTF-8 goes in raw (json.Marshal would
// replace it).
func jsonString(s string) string {
	if !utf8.ValidString(s) {
		return `"` + strings.NewReplacer(`"`, "", `\`, "").Replace(s) + `"`
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// discoverForms reads the forms of the site's pages: action → field names and whether
// it uploads, and the union of every field name.
func discoverForms(t *testing.T, env *webtest.Env, v *victim) (map[string]formInfo, []string) {
	t.Helper()
	anon := env.Client(t)
	type page struct{ path, body string }
	var bodies []page
	// Public pages as a visitor: opening the sign-in pages signs out.
	get := func(path string, public bool) {
		c := v.c
		if public {
			c = anon
		}
		bodies = append(bodies, page{path, c.Get(path).Body})
	}
	for _, p := range handlers.Pages() {
		get(p.Path, p.Access == web.Public || publicPage(p.Path))
	}
	for _, r := range unsafeRoutes(env) {
		if !strings.HasPrefix(r.Path, api.Prefix) {
			get(fillPath(r.Path, v.ids), publicPage(r.Path))
		}
	}
	for _, p := range []string{"/ops/screening/" + v.ids["invoice"], "/ops/suppliers/" + v.ids["supplier"], "/ops/operators", "/ops/transfers",
		"/suppliers/" + v.ids["supplier"], "/payments/review/" + v.ids["invoice"], "/payments/review/" + v.ids["invoice"] + "/cancel",
		"/myaccount/creditcards/" + v.ids["card"] + "/delete", "/suppliers/" + v.ids["supplier"] + "/delete", "/myaccount/security",
		"/myaccount/creditcards/" + v.ids["card"] + "/cycle", "/suppliers/" + v.ids["supplier"] + "/accounts/new",
		"/suppliers/" + v.ids["supplier"] + "/accounts/" + v.ids["account"] + "/edit"} {
		get(p, false)
	}
	require.True(t, v.c.SignedIn(), "the buyer is still signed in after the crawl")
	require.Equal(t, http.StatusOK, v.c.Get("/ops/audit").StatusCode, "and the operator")
	// Last, a payment journey left in progress (a registered supplier and its account
	// chosen), so that its steps show their forms and read the run's bodies: the run
	// opens no page, and only opening a page leaves a journey.
	v.c.Get("/payments/add/invoiceinfo?new=1")
	get("/payments/add/invoiceinfo", false)
	require.Equal(t, http.StatusSeeOther, v.c.Post("/payments/add/invoiceinfo", url.Values{"supplier": {v.ids["supplier"]}}).StatusCode)
	get("/payments/add/account", false)
	get("/payments/add/account/new", false)
	require.Equal(t, http.StatusSeeOther, v.c.Post("/payments/add/account", url.Values{"account": {v.ids["account"]}}).StatusCode)
	get("/payments/add/invoice", false)
	require.Equal(t, http.StatusOK, v.c.Get("/payments/add/invoice").StatusCode, "the journey waits on its invoice step")
	forms := map[string]formInfo{}
	all := map[string]bool{}
	for _, b := range bodies {
		for _, m := range formRe.FindAllStringSubmatch(b.body, -1) {
			attrs, inner := m[1], m[2]
			if !strings.Contains(strings.ToLower(attrs), `method="post"`) {
				continue
			}
			action := b.path // a form without an action posts to its page
			if a := actionRe.FindStringSubmatch(attrs); a != nil && a[1] != "" {
				action = html.UnescapeString(a[1])
			}
			action, _, _ = strings.Cut(action, "?")
			fi := forms[action]
			fi.multipart = fi.multipart || strings.Contains(attrs, "multipart/form-data")
			for _, n := range nameRe.FindAllStringSubmatch(inner, -1) {
				name := html.UnescapeString(n[1])
				if !slices.Contains(fi.fields, name) {
					fi.fields = append(fi.fields, name)
				}
				all[name] = true
			}
			forms[action] = fi
		}
	}
	return forms, slices.Sorted(maps.Keys(all))
}

type formInfo struct {
	fields    []string
	multipart bool
}

var (
	formRe   = regexp.MustCompile(`(?is)<form\b([^>]*)>(.*?)</form>`)
	actionRe = regexp.MustCompile(`(?i)\baction="([^"]*)"`)
	nameRe   = regexp.MustCompile(`(?i)<(?:input|select|textarea|button)\b[^>]*\bname="([^"]+)"`)
)

// formFields are the fields of the forms whose action matches the route, or every field
// name of the site when there are none; whether one of them uploads; and whether a form
// was found at all.
func formFields(route string, forms map[string]formInfo, union []string) ([]string, bool, bool) {
	re := regexp.MustCompile("^" + echoParam.ReplaceAllString(regexp.QuoteMeta(route), `[^/]+`) + "$")
	var fields []string
	multi, found := false, false
	for action, fi := range forms {
		if re.MatchString(action) {
			found = true
			for _, f := range fi.fields {
				if !slices.Contains(fields, f) {
					fields = append(fields, f)
				}
			}
			multi = multi || fi.multipart
		}
	}
	if len(fields) == 0 {
		return union, multi, found
	}
	sort.Strings(fields)
	return fields, multi, found
}

// storedFindings are, per table, the rows (as text) that storedBad matches.
func storedFindings(ctx context.Context) (map[string][]string, error) {
	db := webtest.Store().DB
	var tables []string
	if err := db.SelectContext(ctx, &tables, `
		SELECT table_schema || '.' || table_name FROM information_schema.tables
		WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, name := range tables {
		var rows []string
		if err := db.SelectContext(ctx, &rows, `SELECT t::text FROM `+quoteTable(name)+` t`); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = []string{}
		for _, r := range rows {
			if storedBad.MatchString(r) {
				out[name] = append(out[name], r)
			}
		}
	}
	return out, nil
}

// buyerDataCounts are the row counts of the tables holding buyer data: those with a
// buyer_id column, buyers, signups and operators. Not counted: the drafts, which keep
// answers as typed, valid or not (handlers/api/drafts.go), so a body of nulls is
// a valid empty draft; and request_key_misses, which records each unknown request key a
// buyer tries (the 10-an-hour rule), so an invalid key is meant to add a row.
func buyerDataCounts(t *testing.T) map[string]int {
	t.Helper()
	ctx := context.Background()
	var tables []string
	require.NoError(t, webtest.Store().DB.SelectContext(ctx, &tables, `
		SELECT DISTINCT c.table_schema || '.' || c.table_name FROM information_schema.columns c
		JOIN information_schema.tables t USING (table_schema, table_name)
		WHERE t.table_type = 'BASE TABLE' AND c.table_schema NOT IN ('pg_catalog', 'information_schema')
		  AND (c.column_name = 'buyer_id' OR c.table_name IN ('buyers', 'signups', 'operators'))
		  AND c.table_name NOT IN ('drafts', 'request_key_misses')`))
	out := map[string]int{}
	for _, name := range tables {
		var n int
		require.NoError(t, webtest.Store().DB.GetContext(ctx, &n, `SELECT count(*) FROM `+quoteTable(name)))
		out[name] = n
	}
	return out
}
