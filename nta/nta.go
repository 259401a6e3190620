// Package nta asks the National Tax Agency's 法人番号システム Web-API (version 4) for
// corporations by number or by name. It is optional: without an application ID the
// adapter is off and the app searches only its own corporations table.
//
// Sources for the request and response shapes (the NTA's own PDF, "Web-API(Ver.4.0)の
// リクエストの設定方法及び提供データの内容について", could not be read from here):
// public clients that call the live API — github.com/fillin-inc/go-corp (Go, request
// builders and a recorded name_search.xml), yamayued/houjin-bangou-api-mcp and
// sugukurukabe/mcp-houjin-bangou (TypeScript, parameter tables citing 第二編 §2.1.3,
// §4.1.3, §4.6.2 and 別紙2), totechite/houjinbangou-api-wrapper (response types).
package nta

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"cardpay/pay"
)

const (
	// DefaultBaseURL is the live API; version and endpoint are appended ("/4/num").
	DefaultBaseURL = "https://api.houjin-bangou.nta.go.jp"

	// MaxResults caps what one search returns, like the local table's search.
	MaxResults = 20

	// maxBody bounds what is read of an answer. One page of a name search holds at
	// most 1,000 corporations of about 1.5 KB each; anything much larger is not an
	// answer we asked for.
	maxBody = 5 << 20

	// minNameRunes: a one-character partial match would ask for half the registry.
	minNameRunes = 2
	// maxNameRunes is the longest 商号又は名称 the name endpoint accepts (150
	// characters per the clients above, citing 第二編 §4.1.3; not checked against
	// the PDF). Nothing longer can match, so no request is made.
	maxNameRunes = 150

	// kinds asked for in name searches: 03 設立登記法人 (companies and other
	// registered bodies) and 04 外国会社等・その他. 01 国の機関 and 02 地方公共団体
	// are left out: they are not the suppliers whose invoices buyers pay here, and a
	// partial match such as "東京" would otherwise fill the 20 places with them.
	kinds = "03,04"
)

// ErrTooManyMatches is returned (wrapped) when the API refuses a name search because
// it matches too many corporations (HTTP 400, error code 180). The user should type
// more of the name.
var ErrTooManyMatches = errors.New("nta: too many matches")

// Config switches the adapter on. AppID is the アプリケーションID the NTA issues.
type Config struct {
	AppID   string
	BaseURL string       // default DefaultBaseURL; tests point it at a fake
	HTTP    *http.Client // default a client with a 5 s timeout
}

// Corporation is one current registry record: the adapter's own answer, which the
// caller (account.Corporations) keeps in its table.
type Corporation struct {
	CorporateNumber string
	Name            string
	NameKana        string // full-width katakana; empty when never registered
	Address         string // head office
}

// Client searches the NTA registry. A nil *Client is the adapter switched off.
type Client struct {
	appID string
	base  string
	http  *http.Client
}

// New returns a client, or nil when c.AppID is empty (the adapter is off).
func New(c Config) *Client {
	id := strings.TrimSpace(c.AppID)
	if id == "" {
		return nil
	}
	base := strings.TrimRight(strings.TrimSpace(c.BaseURL), "/")
	if base == "" {
		base = DefaultBaseURL
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Second}
	}
	return &Client{appID: id, base: base, http: hc}
}

// Enabled reports whether searches reach the NTA.
func (c *Client) Enabled() bool { return c != nil }

// Search looks q up in the registry: a 13-digit corporate number (full-width digits,
// spaces and hyphens allowed) through /4/num, anything else of two characters or
// more as a partial name match through /4/name. It returns at most MaxResults open,
// current corporations, in the API's order. Queries that cannot match — a number
// with a wrong check digit, other all-digit input, a name too short or too long —
// return (nil, nil) without a request. Transport failures, non-200 answers and
// malformed XML return an error starting "nta: ".
func (c *Client) Search(ctx context.Context, q string) ([]Corporation, error) {
	if c == nil {
		return nil, nil
	}
	q = strings.TrimSpace(q)
	if q == "" {
		return nil, nil
	}
	if code := pay.NormalizeCode(q); code != "" && pay.AllDigits(code) {
		return c.Numbers(ctx, []string{code})
	}
	n := utf8.RuneCountInString(q)
	if n < minNameRunes || n > maxNameRunes {
		return nil, nil
	}
	return c.get(ctx, "/4/name", url.Values{
		"id":   {c.appID},
		"name": {widen(q)},
		"type": {"12"},
		// 2 = partial match (1, the default, is prefix match): buyers type "トヨタ"
		// for トヨタ自動車株式会社 but also "自動車" or a name without 株式会社.
		"mode": {"2"},
		// 1 = JIS level 1–2 fuzzy search: the API folds hiragana to katakana and
		// lower- to upper-case and ignores 中点 and full-width spaces (§4.6.2).
		// 2 is an exact JIS 1–4 match, 3 the English names.
		"target": {"1"},
		"kind":   {kinds},
		"change": {"0"}, // match current names, not former ones
		"close":  {"0"}, // leave out closed corporations
		"divide": {"1"}, // first page; we keep only 20 anyway
	})
}

// Numbers looks several corporate numbers up at once through /4/num, which takes up to
// maxNumbers a request (the readings of a registration number read a digit wrong are up
// to eight: one request, where Search would make eight). It returns the open, current
// corporations among them, in the API's order. Numbers that cannot be one (not 13 digits,
// a wrong check digit) and repeats are left out without a request; none left, none asked.
// Errors are Search's.
func (c *Client) Numbers(ctx context.Context, numbers []string) ([]Corporation, error) {
	if c == nil {
		return nil, nil
	}
	var valid []string
	for _, n := range numbers {
		code := pay.NormalizeCode(n)
		if len(code) == 13 && pay.AllDigits(code) && pay.ValidCorporateNumber(code) && !slices.Contains(valid, code) {
			valid = append(valid, code)
		}
	}
	var out []Corporation
	for len(valid) > 0 {
		k := min(len(valid), maxNumbers)
		found, err := c.get(ctx, "/4/num", url.Values{
			"id":      {c.appID},
			"number":  {strings.Join(valid[:k], ",")},
			"type":    {"12"}, // XML, UTF-8
			"history": {"0"},  // the current record only
		})
		if err != nil {
			return nil, err
		}
		out, valid = append(out, found...), valid[k:]
	}
	return out, nil
}

// maxNumbers is how many corporate numbers /4/num answers in one request.
const maxNumbers = 10

func (c *Client) get(ctx context.Context, path string, query url.Values) ([]Corporation, error) {
	u := c.base + path + "?" + query.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("nta: %s: %w", path, redact(err))
	}
	req.Header.Set("Accept", "application/xml")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("nta: %s: %w", path, redact(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, fmt.Errorf("nta: %s: read answer: %w", path, err)
	}
	if len(body) > maxBody {
		return nil, fmt.Errorf("nta: %s: answer larger than %d bytes", path, maxBody)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, statusError(path, resp.StatusCode, body)
	}
	var doc corporationsXML
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("nta: %s: malformed answer: %w", path, err)
	}
	return doc.current(), nil
}

// statusError describes a refusal. The API answers errors with a short text body
// "NNN,message" (a three-digit code from 別紙2 and a Japanese message); 403 is its
// access-rate limit and 404 an unknown or lapsed application ID.
func statusError(path string, status int, body []byte) error {
	msg := strings.TrimSpace(string(body))
	if !utf8.ValidString(msg) {
		msg = strings.ToValidUTF8(msg, "?")
	}
	if r := []rune(msg); len(r) > 200 {
		msg = string(r[:200]) + "…"
	}
	var hint string
	switch status {
	case http.StatusBadRequest:
		if code, _, ok := strings.Cut(msg, ","); ok && code == "180" {
			return fmt.Errorf("%w: %s: %s", ErrTooManyMatches, path, msg)
		}
	case http.StatusForbidden:
		hint = " (rate limited)"
	case http.StatusNotFound:
		hint = " (application ID unknown or lapsed)"
	}
	return fmt.Errorf("nta: %s: HTTP %d%s: %s", path, status, hint, msg)
}

// redact keeps the application ID out of error messages, which end up in logs:
// net/http's errors quote the whole request URL.
func redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		cp := *ue
		if u, perr := url.Parse(ue.URL); perr == nil {
			q := u.Query()
			if q.Has("id") {
				q.Set("id", "REDACTED")
				u.RawQuery = q.Encode()
			}
			cp.URL = u.String()
		} else {
			cp.URL = "(unparsable URL)"
		}
		return &cp
	}
	return err
}

// corporationsXML is the type=12 answer: <corporations> with a header and one
// <corporation> per record (first page only). Fields we do not use are left out.
type corporationsXML struct {
	XMLName        xml.Name         `xml:"corporations"`
	LastUpdateDate string           `xml:"lastUpdateDate"`
	Count          string           `xml:"count"`
	DivideNumber   string           `xml:"divideNumber"`
	DivideSize     string           `xml:"divideSize"`
	Corporations   []corporationXML `xml:"corporation"`
}

type corporationXML struct {
	CorporateNumber string `xml:"corporateNumber"`
	Name            string `xml:"name"`
	Furigana        string `xml:"furigana"`
	PrefectureName  string `xml:"prefectureName"`
	CityName        string `xml:"cityName"`
	StreetNumber    string `xml:"streetNumber"`
	AddressOutside  string `xml:"addressOutside"`
	CloseDate       string `xml:"closeDate"`
	Latest          string `xml:"latest"`
}

// current keeps open corporations' latest records, at most MaxResults. The request
// already asks for these (history=0, change=0, close=0), but /num returns closed
// corporations whatever is asked, and what we save must be current whatever the
// API sends.
func (d corporationsXML) current() []Corporation {
	var list []Corporation
	for _, x := range d.Corporations {
		if len(list) == MaxResults {
			break
		}
		number := strings.TrimSpace(x.CorporateNumber)
		name := strings.TrimSpace(x.Name)
		if strings.TrimSpace(x.CloseDate) != "" || strings.TrimSpace(x.Latest) != "1" ||
			!pay.ValidCorporateNumber(number) || name == "" {
			continue
		}
		address := strings.TrimSpace(x.PrefectureName) + strings.TrimSpace(x.CityName) + strings.TrimSpace(x.StreetNumber)
		if address == "" {
			address = strings.TrimSpace(x.AddressOutside) // head office abroad
		}
		list = append(list, Corporation{
			CorporateNumber: number,
			Name:            name,
			// The registry's フリガナ is already full-width katakana (empty for
			// corporations that never registered one).
			NameKana: strings.TrimSpace(x.Furigana),
			Address:  address,
		})
	}
	return list
}

// widen turns half-width ASCII into full-width: the registry stores names in
// full-width characters (株式会社ＮＴＴドコモ) and the callers above convert before
// asking, some noting that the name parameter must be full-width.
func widen(s string) string {
	var b bytes.Buffer
	b.Grow(len(s) * 3)
	for _, r := range s {
		switch {
		case r == ' ':
			r = '　'
		case r > ' ' && r <= '~':
			r += '！' - '!'
		}
		b.WriteRune(r)
	}
	return b.String()
}
