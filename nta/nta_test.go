package nta

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

const testAppID = "KtestAppID001"

var (
	toyota = Corporation{
		CorporateNumber: "1180301018771",
		Name:            "トヨタ自動車株式会社",
		NameKana:        "トヨタジドウシャ",
		Address:         "愛知県豊田市トヨタ町１番地",
	}
	toyotaShisaku = Corporation{
		CorporateNumber: "3180301099991",
		Name:            "トヨタ試作工業株式会社",
		NameKana:        "トヨタシサクコウギョウ",
		Address:         "愛知県豊田市元町１番地９",
	}
	sony = Corporation{
		CorporateNumber: "5010401067252",
		Name:            "ソニーグループ株式会社",
		NameKana:        "ソニーグループ",
		Address:         "東京都港区港南１丁目７番１号",
	}
	docomo = Corporation{
		CorporateNumber: "1010001067912",
		Name:            "株式会社ＮＴＴドコモ",
		NameKana:        "エヌティティドコモ",
		Address:         "東京都千代田区永田町２丁目１１番１号",
	}
)

// record is one <corporation> of the API's type=12 answer, every field in the order
// the API sends them.
type record struct {
	SequenceNumber           int    `xml:"sequenceNumber"`
	CorporateNumber          string `xml:"corporateNumber"`
	Process                  string `xml:"process"`
	Correct                  string `xml:"correct"`
	UpdateDate               string `xml:"updateDate"`
	ChangeDate               string `xml:"changeDate"`
	Name                     string `xml:"name"`
	NameImageID              string `xml:"nameImageId"`
	Kind                     string `xml:"kind"`
	PrefectureName           string `xml:"prefectureName"`
	CityName                 string `xml:"cityName"`
	StreetNumber             string `xml:"streetNumber"`
	AddressImageID           string `xml:"addressImageId"`
	PrefectureCode           string `xml:"prefectureCode"`
	CityCode                 string `xml:"cityCode"`
	PostCode                 string `xml:"postCode"`
	AddressOutside           string `xml:"addressOutside"`
	AddressOutsideImageID    string `xml:"addressOutsideImageId"`
	CloseDate                string `xml:"closeDate"`
	CloseCause               string `xml:"closeCause"`
	SuccessorCorporateNumber string `xml:"successorCorporateNumber"`
	ChangeCause              string `xml:"changeCause"`
	AssignmentDate           string `xml:"assignmentDate"`
	Latest                   string `xml:"latest"`
	EnName                   string `xml:"enName"`
	EnPrefectureName         string `xml:"enPrefectureName"`
	EnCityName               string `xml:"enCityName"`
	EnAddressOutside         string `xml:"enAddressOutside"`
	Furigana                 string `xml:"furigana"`
	Hihyoji                  string `xml:"hihyoji"`
}

type answer struct {
	XMLName        xml.Name `xml:"corporations"`
	LastUpdateDate string   `xml:"lastUpdateDate"`
	Count          int      `xml:"count"`
	DivideNumber   int      `xml:"divideNumber"`
	DivideSize     int      `xml:"divideSize"`
	Corporations   []record `xml:"corporation"`
}

// fakeNTA answers like api.houjin-bangou.nta.go.jp version 4: GET /4/num and
// /4/name, parameters checked as the API checks them, errors as HTTP status with a
// "NNN,message" text body (codes from 別紙2 as cited by public clients; the messages
// here are our own wording), results as UTF-8 XML. It serves testdata/registry.xml.
type fakeNTA struct {
	t       *testing.T
	records []record
	updated string
	// tooMany: name searches matching more are refused with code 180. The real
	// threshold is much higher; tests lower it.
	tooMany int
	// ignoreFilters answers name searches as if change=0 and close=0 had not been
	// given, so that the client's own checks are seen at work.
	ignoreFilters bool

	mu   sync.Mutex
	seen []url.URL
}

func newFake(t *testing.T) (*fakeNTA, *httptest.Server) {
	t.Helper()
	raw, err := os.ReadFile("testdata/registry.xml")
	require.NoError(t, err)
	var reg answer
	require.NoError(t, xml.Unmarshal(raw, &reg))
	f := &fakeNTA{t: t, records: reg.Corporations, updated: reg.LastUpdateDate, tooMany: 2000}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeNTA) requests() []url.URL {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.URL(nil), f.seen...)
}

func (f *fakeNTA) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.seen = append(f.seen, *r.URL)
	f.mu.Unlock()
	if r.Method != http.MethodGet {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	if r.URL.Path != "/4/num" && r.URL.Path != "/4/name" {
		http.NotFound(w, r)
		return
	}
	if q.Get("id") != testAppID {
		// An unknown or lapsed application ID is answered 404.
		http.NotFound(w, r)
		return
	}
	if q.Get("type") != "12" {
		// 01 and 02 are CSV; the client must never ask for them.
		f.t.Errorf("type=%q requested; only 12 (XML, UTF-8) is expected", q.Get("type"))
		refuse(w, "070", "応答形式の指定が正しくありません。")
		return
	}
	if r.URL.Path == "/4/num" {
		f.num(w, q)
	} else {
		f.name(w, q)
	}
}

func refuse(w http.ResponseWriter, code, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	w.WriteHeader(http.StatusBadRequest)
	fmt.Fprintf(w, "%s,%s", code, msg)
}

func (f *fakeNTA) num(w http.ResponseWriter, q url.Values) {
	numbers := strings.Split(q.Get("number"), ",")
	if q.Get("number") == "" || len(numbers) > 10 {
		refuse(w, "040", "法人番号の指定が正しくありません。")
		return
	}
	for _, n := range numbers {
		if !pay.ValidCorporateNumber(n) {
			refuse(w, "041", "法人番号の指定が正しくありません。")
			return
		}
	}
	history := q.Get("history")
	if history != "" && history != "0" && history != "1" {
		refuse(w, "050", "変更履歴要否の指定が正しくありません。")
		return
	}
	var out []record
	for _, n := range numbers {
		for _, r := range f.records {
			// /num returns closed corporations too: close= is a name-search parameter.
			if r.CorporateNumber == n && (history == "1" || r.Latest == "1") {
				out = append(out, r)
			}
		}
	}
	f.write(w, out, 1)
}

func (f *fakeNTA) name(w http.ResponseWriter, q url.Values) {
	name := q.Get("name")
	param := func(key, def string, allowed ...string) (string, bool) {
		v := q.Get(key)
		if v == "" {
			return def, true
		}
		for _, a := range allowed {
			if v == a {
				return v, true
			}
		}
		return "", false
	}
	mode, okMode := param("mode", "1", "1", "2")
	target, okTarget := param("target", "1", "1", "2", "3")
	change, okChange := param("change", "0", "0", "1")
	closed, okClose := param("close", "1", "0", "1")
	divide := 1
	if v := q.Get("divide"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 99999 {
			refuse(w, "170", "分割番号の指定が正しくありません。")
			return
		}
		divide = n
	}
	kinds := map[string]bool{}
	if k := q.Get("kind"); k != "" {
		for _, v := range strings.Split(k, ",") {
			if v != "01" && v != "02" && v != "03" && v != "04" {
				refuse(w, "130", "法人種別の指定が正しくありません。")
				return
			}
			kinds[v] = true
		}
	}
	switch {
	case name == "" || len([]rune(name)) > 150:
		refuse(w, "100", "商号又は名称の指定が正しくありません。")
		return
	case !okMode:
		refuse(w, "110", "検索方式の指定が正しくありません。")
		return
	case !okTarget:
		refuse(w, "111", "検索対象の指定が正しくありません。")
		return
	case !okChange || !okClose:
		refuse(w, "140", "変更履歴・登記記録の閉鎖等の指定が正しくありません。")
		return
	}
	var out []record
	for _, r := range f.records {
		var hay, needle string
		switch target {
		case "1":
			hay, needle = fold(r.Name), fold(name)
		case "2":
			hay, needle = r.Name, name
		case "3":
			hay, needle = strings.ToUpper(r.EnName), strings.ToUpper(name)
		}
		match := strings.HasPrefix(hay, needle)
		if mode == "2" {
			match = strings.Contains(hay, needle)
		}
		if !match || (len(kinds) > 0 && (r.Kind == "" || !kinds["0"+r.Kind[:1]])) {
			continue
		}
		if !f.ignoreFilters && ((change == "0" && r.Latest != "1") || (closed == "0" && r.CloseDate != "")) {
			continue
		}
		out = append(out, r)
	}
	if len(out) > f.tooMany {
		refuse(w, "180", "検索結果件数が多いため結果をお返しできません。検索条件を変更してください。")
		return
	}
	f.write(w, out, divide)
}

// fold is target=1's fuzzy comparison: hiragana as katakana, letters upper-case,
// 中点 and full-width spaces ignored.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '・' || r == '　':
			continue
		case r >= 'ぁ' && r <= 'ゖ':
			r += 'ァ' - 'ぁ'
		case r >= 'ａ' && r <= 'ｚ':
			r -= 'ａ' - 'Ａ'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// write sends one page (1,000 records a page) of out.
func (f *fakeNTA) write(w http.ResponseWriter, out []record, divide int) {
	const pageSize = 1000
	size := max(1, (len(out)+pageSize-1)/pageSize)
	from, to := min(len(out), (divide-1)*pageSize), min(len(out), divide*pageSize)
	page := append([]record(nil), out[from:to]...)
	for i := range page {
		page[i].SequenceNumber = from + i + 1
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	if err := enc.Encode(answer{LastUpdateDate: f.updated, Count: len(out), DivideNumber: divide, DivideSize: size, Corporations: page}); err != nil {
		f.t.Errorf("encode: %v", err)
	}
	w.Header().Set("Content-Type", "application/xml; charset=UTF-8")
	_, _ = w.Write(buf.Bytes())
}

func newTestClient(srv *httptest.Server) *Client {
	return New(Config{AppID: testAppID, BaseURL: srv.URL + "/", HTTP: srv.Client()})
}

func TestNewSwitchedOff(t *testing.T) {
	for _, id := range []string{"", "   "} {
		c := New(Config{AppID: id, BaseURL: "http://127.0.0.1:1"})
		assert.Nil(t, c)
		assert.False(t, c.Enabled())
		list, err := c.Search(context.Background(), "トヨタ")
		assert.NoError(t, err)
		assert.Nil(t, list)
	}
}

func TestNewDefaults(t *testing.T) {
	c := New(Config{AppID: "abc"})
	require.NotNil(t, c)
	assert.True(t, c.Enabled())
	assert.Equal(t, "https://api.houjin-bangou.nta.go.jp", c.base)
	assert.Equal(t, 5*time.Second, c.http.Timeout)
}

func TestSearchByNumber(t *testing.T) {
	for _, q := range []string{"1180301018771", " １１８０３０１０１８７７１ ", "1-1803-0101-8771", "1180 3010 18771"} {
		t.Run(q, func(t *testing.T) {
			f, srv := newFake(t)
			list, err := newTestClient(srv).Search(context.Background(), q)
			require.NoError(t, err)
			assert.Equal(t, []Corporation{toyota}, list)

			reqs := f.requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, "/4/num", reqs[0].Path)
			assert.Equal(t, url.Values{
				"id":      {testAppID},
				"number":  {"1180301018771"},
				"type":    {"12"},
				"history": {"0"},
			}, reqs[0].Query())
		})
	}
}

func TestSearchByNumberNothingCurrent(t *testing.T) {
	for name, q := range map[string]string{
		"closed corporation":         "4180301099990", // /num still returns it, with its closeDate
		"number not in the registry": "2180001099995",
	} {
		t.Run(name, func(t *testing.T) {
			f, srv := newFake(t)
			list, err := newTestClient(srv).Search(context.Background(), q)
			require.NoError(t, err)
			assert.Empty(t, list)
			assert.Len(t, f.requests(), 1)
		})
	}
}

func TestSearchByName(t *testing.T) {
	cases := []struct {
		q        string
		sentName string
		want     []Corporation
	}{
		// 株式会社とよた部品販売 matches too but is closed: close=0 leaves it out.
		{"トヨタ", "トヨタ", []Corporation{toyota, toyotaShisaku}},
		{"とよた", "とよた", []Corporation{toyota, toyotaShisaku}}, // target=1 folds kana
		{"自動車", "自動車", []Corporation{toyota}},                // partial, not prefix
		{"ntt", "ｎｔｔ", []Corporation{docomo}},                // sent full-width
		{"NTT ドコモ", "ＮＴＴ　ドコモ", []Corporation{docomo}},
		// The former name ソニー株式会社 is history: change=0 leaves it out.
		{"ソニー", "ソニー", []Corporation{sony}},
		// 国税庁 is 国の機関 (kind 101), outside kind=03,04.
		{"国税", "国税", nil},
	}
	for _, c := range cases {
		t.Run(c.q, func(t *testing.T) {
			f, srv := newFake(t)
			list, err := newTestClient(srv).Search(context.Background(), c.q)
			require.NoError(t, err)
			assert.Equal(t, c.want, list)

			reqs := f.requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, "/4/name", reqs[0].Path)
			assert.Equal(t, url.Values{
				"id":     {testAppID},
				"name":   {c.sentName},
				"type":   {"12"},
				"mode":   {"2"},
				"target": {"1"},
				"kind":   {"03,04"},
				"change": {"0"},
				"close":  {"0"},
				"divide": {"1"},
			}, reqs[0].Query())
		})
	}
}

func TestSearchByNameEncodesJapanese(t *testing.T) {
	f, srv := newFake(t)
	_, err := newTestClient(srv).Search(context.Background(), "トヨタ")
	require.NoError(t, err)
	reqs := f.requests()
	require.Len(t, reqs, 1)
	assert.Contains(t, reqs[0].RawQuery, "name=%E3%83%88%E3%83%A8%E3%82%BF")
	assert.Contains(t, reqs[0].RawQuery, "kind=03%2C04")
}

func TestSearchSkipsClosedAndHistoricRecords(t *testing.T) {
	f, srv := newFake(t)
	f.ignoreFilters = true // as if the API sent closed and former-name records anyway
	c := newTestClient(srv)

	list, err := c.Search(context.Background(), "トヨタ")
	require.NoError(t, err)
	assert.Equal(t, []Corporation{toyota, toyotaShisaku}, list)

	list, err = c.Search(context.Background(), "ソニー")
	require.NoError(t, err)
	assert.Equal(t, []Corporation{sony}, list)
}

func TestSearchDropsUnusableRecords(t *testing.T) {
	const body = `<?xml version="1.0" encoding="UTF-8"?>
<corporations><lastUpdateDate>2025-06-30</lastUpdateDate><count>4</count><divideNumber>1</divideNumber><divideSize>1</divideSize>
<corporation><sequenceNumber>1</sequenceNumber><corporateNumber>1180301018772</corporateNumber><name>検査用数字違い株式会社</name><latest>1</latest><closeDate/></corporation>
<corporation><sequenceNumber>2</sequenceNumber><corporateNumber>3180301099991</corporateNumber><name> </name><latest>1</latest><closeDate/></corporation>
<corporation><sequenceNumber>3</sequenceNumber><corporateNumber>2180001099995</corporateNumber><name>エーシーエムイー　インク</name><prefectureName/><cityName/><streetNumber/><addressOutside>アメリカ合衆国カリフォルニア州</addressOutside><closeDate/><latest>1</latest><furigana>エーシーエムイーインク</furigana></corporation>
<corporation><sequenceNumber>4</sequenceNumber><corporateNumber>1180301018771</corporateNumber><name>トヨタ自動車株式会社</name><prefectureName>愛知県</prefectureName><cityName>豊田市</cityName><streetNumber>トヨタ町１番地</streetNumber><closeDate/><latest>1</latest><furigana>トヨタジドウシャ</furigana></corporation>
</corporations>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml; charset=UTF-8")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	list, err := newTestClient(srv).Search(context.Background(), "株式会社")
	require.NoError(t, err)
	assert.Equal(t, []Corporation{
		{CorporateNumber: "2180001099995", Name: "エーシーエムイー　インク", NameKana: "エーシーエムイーインク", Address: "アメリカ合衆国カリフォルニア州"},
		toyota,
	}, list)
}

func TestSearchCapsResults(t *testing.T) {
	f, srv := newFake(t)
	for i := range 30 {
		base := fmt.Sprintf("0104010%05d", 90000+i)
		check, ok := pay.CorporateCheckDigit(base)
		require.True(t, ok)
		f.records = append(f.records, record{
			CorporateNumber: fmt.Sprint(check) + base, Name: fmt.Sprintf("テスト商事%02d株式会社", i),
			Kind: "301", PrefectureName: "東京都", CityName: "港区", StreetNumber: "芝公園１丁目", Latest: "1",
		})
	}
	list, err := newTestClient(srv).Search(context.Background(), "テスト商事")
	require.NoError(t, err)
	require.Len(t, list, MaxResults)
	assert.Equal(t, "テスト商事00株式会社", list[0].Name)
	assert.Equal(t, "テスト商事19株式会社", list[19].Name)
}

func TestSearchWithoutRequest(t *testing.T) {
	for _, q := range []string{
		"", "   ",
		"2180301018771", "２１８０３０１０１８７７１", "1180-3010-18772", // wrong check digit
		"118030101877", "11803010187711", "12345", "１２３", "123-456", // digits, not 13 or not a number
		"ト", " ト ", // too short
		strings.Repeat("あ", 151), // longer than any registered name
	} {
		t.Run(q, func(t *testing.T) {
			f, srv := newFake(t)
			list, err := newTestClient(srv).Search(context.Background(), q)
			assert.NoError(t, err)
			assert.Nil(t, list)
			assert.Empty(t, f.requests())
		})
	}
}

func TestSearchErrors(t *testing.T) {
	toyotaXML, err := os.ReadFile("testdata/registry.xml")
	require.NoError(t, err)
	canned := func(status int, contentType, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}
	}
	cases := []struct {
		name    string
		handler http.Handler
		appID   string
		q       string
		want    string
		is      error
	}{
		{name: "rate limited", handler: canned(http.StatusForbidden, "text/html", "<html><body>403 Forbidden</body></html>"), q: "トヨタ", want: "HTTP 403 (rate limited)"},
		{name: "server error", handler: canned(http.StatusInternalServerError, "text/html", "<html>500</html>"), q: "1180301018771", want: "HTTP 500"},
		{name: "unknown application ID", appID: "KwrongAppID99", q: "トヨタ", want: "HTTP 404"},
		{name: "too many matches", q: "株式会社", want: "180,", is: ErrTooManyMatches},
		{name: "truncated XML", handler: canned(http.StatusOK, "application/xml; charset=UTF-8", string(toyotaXML[:len(toyotaXML)/2])), q: "トヨタ", want: "malformed answer"},
		{name: "HTML with 200", handler: canned(http.StatusOK, "text/html", "<!DOCTYPE html><html><body>メンテナンス中</body></html>"), q: "トヨタ", want: "malformed answer"},
		{name: "other XML", handler: canned(http.StatusOK, "application/xml", `<?xml version="1.0"?><error>x</error>`), q: "トヨタ", want: "malformed answer"},
		{name: "Shift_JIS XML", handler: canned(http.StatusOK, "application/xml", `<?xml version="1.0" encoding="Shift_JIS"?><corporations></corporations>`), q: "トヨタ", want: "malformed answer"},
		{name: "empty 200", handler: canned(http.StatusOK, "application/xml", ""), q: "トヨタ", want: "malformed answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, srv := newFake(t)
			f.tooMany = 2
			if c.handler != nil {
				srv = httptest.NewServer(c.handler)
				defer srv.Close()
			}
			appID := testAppID
			if c.appID != "" {
				appID = c.appID
			}
			client := New(Config{AppID: appID, BaseURL: srv.URL, HTTP: srv.Client()})
			list, err := client.Search(context.Background(), c.q)
			require.Error(t, err)
			assert.Nil(t, list)
			assert.True(t, strings.HasPrefix(err.Error(), "nta: "), err.Error())
			assert.Contains(t, err.Error(), c.want)
			assert.NotContains(t, err.Error(), appID)
			if c.is != nil {
				assert.ErrorIs(t, err, c.is)
			}
		})
	}
}

func TestSearchUnreachableHidesAppID(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	list, err := newTestClient(srv).Search(context.Background(), "トヨタ")
	require.Error(t, err)
	assert.Nil(t, list)
	assert.True(t, strings.HasPrefix(err.Error(), "nta: /4/name: "), err.Error())
	assert.NotContains(t, err.Error(), testAppID)
}

func TestSearchCancelled(t *testing.T) {
	cases := map[string]struct {
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		"deadline": {func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, context.DeadlineExceeded},
		"cancel": {func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			return ctx, cancel
		}, context.Canceled},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select { // a registry that does not answer
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			}))
			defer srv.Close()
			ctx, cancel := c.ctx()
			defer cancel()
			start := time.Now()
			list, err := newTestClient(srv).Search(ctx, "トヨタ")
			assert.Less(t, time.Since(start), 2*time.Second)
			require.Error(t, err)
			assert.Nil(t, list)
			assert.ErrorIs(t, err, c.want)
			assert.True(t, strings.HasPrefix(err.Error(), "nta: "), err.Error())
			assert.NotContains(t, err.Error(), testAppID)
		})
	}
}

func TestSearchBodyLimit(t *testing.T) {
	// A valid one-corporation answer padded with a comment to exactly n bytes.
	padded := func(n int) []byte {
		head := xml.Header + `<corporations><lastUpdateDate>2025-06-30</lastUpdateDate><count>1</count><divideNumber>1</divideNumber><divideSize>1</divideSize>` +
			`<corporation><sequenceNumber>1</sequenceNumber><corporateNumber>1180301018771</corporateNumber><name>トヨタ自動車株式会社</name>` +
			`<prefectureName>愛知県</prefectureName><cityName>豊田市</cityName><streetNumber>トヨタ町１番地</streetNumber><closeDate></closeDate><latest>1</latest><furigana>トヨタジドウシャ</furigana></corporation></corporations>`
		pad := n - len(head) - len("<!---->")
		return []byte(head + "<!--" + strings.Repeat("x", pad) + "-->")
	}
	for _, c := range []struct {
		size int
		ok   bool
	}{{maxBody, true}, {maxBody + 1, false}, {3 * maxBody, false}} {
		t.Run(fmt.Sprint(c.size), func(t *testing.T) {
			body := padded(c.size)
			require.Len(t, body, c.size)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/xml; charset=UTF-8")
				_, _ = w.Write(body)
			}))
			defer srv.Close()
			list, err := newTestClient(srv).Search(context.Background(), "1180301018771")
			if c.ok {
				require.NoError(t, err)
				assert.Equal(t, []Corporation{toyota}, list)
				return
			}
			require.Error(t, err)
			assert.Nil(t, list)
			assert.Contains(t, err.Error(), "larger than")
		})
	}
}

// Numbers asks for several numbers in one request, ten at most a request: the open
// corporations among them answer; numbers that cannot be one, and repeats, are not sent.
func TestNumbers(t *testing.T) {
	f, srv := newFake(t)
	c := newTestClient(srv)
	list, err := c.Numbers(context.Background(), []string{"1180301018771", "4180301099990", "1180301018772", "１１８０３０１０１８７７１", "2180001099995"})
	require.NoError(t, err)
	assert.Equal(t, []Corporation{toyota}, list, "the closed one and the unknown one answer nothing")
	reqs := f.requests()
	require.Len(t, reqs, 1, "one request")
	assert.Equal(t, "/4/num", reqs[0].Path)
	assert.Equal(t, "1180301018771,4180301099990,2180001099995", reqs[0].Query().Get("number"),
		"a wrong check digit and a repeat (full-width) left out")

	// Twelve numbers: ten, then two.
	var many []string
	for i := 0; len(many) < 12; i++ {
		for d := 1; d <= 9; d++ {
			if n := fmt.Sprintf("%d%012d", d, 2000000000+i); pay.ValidCorporateNumber(n) {
				many = append(many, n)
				break
			}
		}
	}
	_, err = c.Numbers(context.Background(), many)
	require.NoError(t, err)
	reqs = f.requests()[1:]
	require.Len(t, reqs, 2)
	assert.Equal(t, strings.Join(many[:10], ","), reqs[0].Query().Get("number"))
	assert.Equal(t, strings.Join(many[10:], ","), reqs[1].Query().Get("number"))

	// Nothing that can be a number: no request.
	list, err = c.Numbers(context.Background(), []string{"123", "1180301018772"})
	require.NoError(t, err)
	assert.Empty(t, list)
	assert.Len(t, f.requests(), 3)

	// Switched off: nothing.
	list, err = (*Client)(nil).Numbers(context.Background(), []string{"1180301018771"})
	require.NoError(t, err)
	assert.Empty(t, list)
}
