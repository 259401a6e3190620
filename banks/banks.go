// Package banks knows the Japanese banks and their branches by zengin code,
// so bank-account forms can offer a search instead of asking for codes.
//
// The data comes from the npm package zengin-code (the 全銀協 code list as
// zengin-code/source-data publishes it). `npm run build` converts it with
// islands/zengin.mjs into data/zengin.json.gz, which is embedded here; the
// file is build output and not committed. A binary built without it still
// runs: nothing is found, Available reports false and Major falls back to
// pay.MajorBanks, so the shortcuts still work and forms ask for the codes.
package banks

import (
	"cmp"
	"compress/gzip"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"cardpay/pay"
)

// "all:" embeds data/.gitkeep too, so the package compiles before the build
// has written the data file.
//
//go:embed all:data
var dataFS embed.FS

const dataFile = "data/zengin.json.gz"

// Bank is a financial institution in the zengin system: its four-digit
// code, the name people read (see displayName) and zengin's kana, the form
// transfer data uses (small kana written large, full-width long mark －).
type Bank struct {
	Code string `json:"code"`
	Name string `json:"name"`
	Kana string `json:"kana"`
}

// Branch is a branch of one bank: its three-digit code, zengin's name (as
// the bank registers it, without 支店: 東京営業部, 渋谷, 市役所出張所) and
// zengin's kana.
type Branch struct {
	Code string `json:"code"`
	Name string `json:"name"`
	Kana string `json:"kana"`
}

// defaultLimit is how many results a search answers when the caller gives
// no limit: more than a screen of suggestions, fewer than a slow phone
// would like to render.
const defaultLimit = 20

// maxQueryRunes bounds the work one search does; no bank or branch name
// comes close.
const maxQueryRunes = 64

// Available reports whether the bank data was built into this binary and
// reads correctly.
func Available() bool { return load() != nil }

// LoadError says why the data is unavailable, or nil when it is available.
// Nothing in the app calls Available or LoadError (a search without data
// answers nothing); the tests of the packages that need the data do, so that
// they fail saying to build it.
func LoadError() error {
	_, err := loadTable()
	return err
}

// Major answers the eight banks offered as shortcuts (SPEC §3), in SPEC
// order, as the data names them. pay.MajorBanks holds the same values
// (a test keeps the two equal); without data Major answers those.
func Major() []Bank { return load().major() }

func (t *table) major() []Bank {
	out := make([]Bank, 0, len(pay.MajorBanks))
	for _, m := range pay.MajorBanks {
		if t != nil {
			if b := t.bank(m.Code); b != nil {
				out = append(out, b.Bank)
				continue
			}
		}
		out = append(out, Bank{Code: m.Code, Name: m.Name, Kana: m.Kana})
	}
	return out
}

// ByCode finds a bank by its four-digit code, typed as people type it
// (full-width digits and spaces are accepted).
func ByCode(code string) (Bank, bool) { return load().byCode(code) }

func (t *table) byCode(code string) (Bank, bool) {
	if b := t.bank(normaliseCode(code, 4)); b != nil {
		return b.Bank, true
	}
	return Bank{}, false
}

// BranchByCode finds a branch of a bank by the bank's four-digit and the
// branch's three-digit code.
func BranchByCode(bankCode, branchCode string) (Branch, bool) {
	return load().branchByCode(bankCode, branchCode)
}

func (t *table) branchByCode(bankCode, branchCode string) (Branch, bool) {
	b := t.bank(normaliseCode(bankCode, 4))
	if b == nil {
		return Branch{}, false
	}
	code := normaliseCode(branchCode, 3)
	if i, found := slices.BinarySearchFunc(b.branches, code, func(e branchEntry, c string) int {
		return strings.Compare(e.Code, c)
	}); found {
		return b.branches[i].Branch, true
	}
	return Branch{}, false
}

// SearchBanks answers up to limit banks (20 when limit <= 0) matching what a
// person typed: the start of a code, or part of the name (みずほ銀行, 三菱UFJ,
// 北海道信用金庫 as well as zengin's 北海道信金), of the kana in hiragana or
// katakana, full- or half-width, with or without small kana and long marks,
// or of the romaji (case-insensitive). The eight major banks come first, in
// SPEC order, then a bank whose code is the query, then the rest by code.
// An empty query answers Major.
func SearchBanks(q string, limit int) []Bank { return load().searchBanks(q, limit) }

func (t *table) searchBanks(q string, limit int) []Bank {
	if limit <= 0 {
		limit = defaultLimit
	}
	q = strings.TrimSpace(q)
	if q == "" {
		m := t.major()
		return m[:min(limit, len(m))]
	}
	if t == nil {
		return nil
	}
	code, text := parseQuery(q, 4, bankAliases)
	var found []*bankEntry
	for i := range t.banks {
		b := &t.banks[i]
		if matches(b.Code, b.key, code, text) {
			found = append(found, b)
		}
	}
	slices.SortStableFunc(found, func(a, b *bankEntry) int {
		return cmp.Or(
			cmp.Compare(majorRank(a.Code), majorRank(b.Code)),
			exactFirst(a.Code, b.Code, code),
			strings.Compare(a.Code, b.Code),
		)
	})
	out := make([]Bank, 0, min(limit, len(found)))
	for _, b := range found[:min(limit, len(found))] {
		out = append(out, b.Bank)
	}
	return out
}

// SearchBranches answers up to limit branches (20 when limit <= 0) of one
// bank matching q as SearchBanks matches banks: the start of a code, or part
// of the name (支店 is ignored: zengin's names have none), kana
// or romaji. A branch whose code is the query comes first, then the rest by
// code. An empty query answers the bank's first branches by code; an
// unknown bank answers nothing.
func SearchBranches(bankCode, q string, limit int) []Branch {
	return load().searchBranches(bankCode, q, limit)
}

func (t *table) searchBranches(bankCode, q string, limit int) []Branch {
	if limit <= 0 {
		limit = defaultLimit
	}
	b := t.bank(normaliseCode(bankCode, 4))
	if b == nil {
		return nil
	}
	code, text := parseQuery(strings.TrimSpace(q), 3, branchAliases)
	var found []*branchEntry
	for i := range b.branches {
		br := &b.branches[i]
		if (code == "" && text == "") || matches(br.Code, br.key, code, text) {
			found = append(found, br)
		}
	}
	// found is in code order already; only the exact code moves forward.
	slices.SortStableFunc(found, func(x, y *branchEntry) int { return exactFirst(x.Code, y.Code, code) })
	out := make([]Branch, 0, min(limit, len(found)))
	for _, br := range found[:min(limit, len(found))] {
		out = append(out, br.Branch)
	}
	return out
}

// loadTable reads the embedded data the first time it is needed, so servers
// that never show a bank form do not spend the time at start-up.
var loadTable = sync.OnceValues(func() (*table, error) { return readData(dataFS) })

// load is the data, or nil when there is none (LoadError says why).
func load() *table {
	t, _ := loadTable()
	return t
}

func readData(fsys fs.FS) (*table, error) {
	return pay.ReadEmbedded(fsys, "banks", dataFile, "islands/zengin.mjs", parse)
}

// dataJSON is the file islands/zengin.mjs writes; the script documents it.
// A bank row is [code, name, kana, hira, roma, branches], a branch row
// [code, name, kana, hira, roma].
type dataJSON struct {
	Source string              `json:"source"`
	Banks  [][]json.RawMessage `json:"banks"`
}

type table struct {
	banks       []bankEntry // by code
	branchCount int
}

type bankEntry struct {
	Bank
	key      string        // searchable text, folded; see searchKey
	branches []branchEntry // by code
}

type branchEntry struct {
	Branch
	key string
}

func parse(r io.Reader) (*table, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	var d dataJSON
	if err := json.NewDecoder(zr).Decode(&d); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(d.Source, "zengin-code@") {
		return nil, fmt.Errorf("unexpected source %q", d.Source)
	}
	t := &table{banks: make([]bankEntry, 0, len(d.Banks))}
	for i, row := range d.Banks {
		if len(row) != 6 {
			return nil, fmt.Errorf("bank %d: %d fields, want 6", i, len(row))
		}
		var f [5]string
		for j := range f {
			if err := json.Unmarshal(row[j], &f[j]); err != nil {
				return nil, fmt.Errorf("bank %d field %d: %w", i, j, err)
			}
		}
		var rows [][5]string
		if err := json.Unmarshal(row[5], &rows); err != nil {
			return nil, fmt.Errorf("bank %s branches: %w", f[0], err)
		}
		if err := check(f, 4, i > 0, func() string { return t.banks[i-1].Code }); err != nil {
			return nil, fmt.Errorf("bank %d: %w", i, err)
		}
		name := displayName(f[0], f[1])
		b := bankEntry{
			Bank:     Bank{Code: f[0], Name: name, Kana: f[2]},
			branches: make([]branchEntry, len(rows)),
		}
		kana, roma := f[2], f[4]
		if name != f[1] { // + 銀行: find ぎんこう and ginkou too
			kana, roma = kana+"ギンコウ", roma+"ginkou"
		}
		b.key = searchKey(name, f[1], kana, f[3], roma)
		for j, br := range rows {
			if err := check(br, 3, j > 0, func() string { return rows[j-1][0] }); err != nil {
				return nil, fmt.Errorf("bank %s branch %d: %w", f[0], j, err)
			}
			b.branches[j] = branchEntry{
				Branch: Branch{Code: br[0], Name: br[1], Kana: br[2]},
				key:    searchKey(br[1], br[2], br[3], br[4]),
			}
		}
		t.banks = append(t.banks, b)
		t.branchCount += len(rows)
	}
	if len(t.banks) == 0 {
		return nil, errors.New("no banks")
	}
	return t, nil
}

// check validates one [code, name, kana, hira, roma] row: a code of the
// given number of ASCII digits, above the previous row's, and a name and
// kana.
func check(f [5]string, digits int, hasPrev bool, prev func() string) error {
	if len(f[0]) != digits || !pay.AllDigits(f[0]) {
		return fmt.Errorf("code %q is not %d digits", f[0], digits)
	}
	if hasPrev && f[0] <= prev() {
		return fmt.Errorf("code %s after %s: codes must ascend", f[0], prev())
	}
	if f[1] == "" || f[2] == "" {
		return fmt.Errorf("code %s: empty name or kana", f[0])
	}
	return nil
}

// displayName is the name a person reads. zengin lists banks without 銀行
// (みずほ, 三菱ＵＦＪ, ゆうちょ) and every other institution with its kind
// already in the name, abbreviated as zengin abbreviates it (北海道信金,
// 札幌中央信組, 中央労金, かとり農協, 北海道信連, 大分県漁協, 商工中金,
// 信金中央金庫). So 銀行 is added to the banks (codes 0001–0999, where
// zengin puts 都市・地方・信託・ネット and foreign banks, and ゆうちょ 9900),
// with zengin's full-width letters kept (三菱ＵＦＪ銀行: pay.MajorBanks says
// the same), and to nothing else. Two kinds of bank-range names already
// read in full: foreign banks whose Japanese name says バンク itself
// (シティバンク、エヌ・エイ, ナショナル・オーストラリア・バンク・リミテッド),
// and 0200 ワイズ・ペイメンツ・ジャパン, a funds-transfer company, not a bank.
func displayName(code, name string) string {
	isBankRange := code < "1000" || code == "9900"
	if !isBankRange || code == "0200" || strings.Contains(name, "バンク") {
		return name
	}
	return name + "銀行"
}

// majorRank orders the major banks first, in SPEC order.
func majorRank(code string) int {
	for i, m := range pay.MajorBanks {
		if m.Code == code {
			return i
		}
	}
	return len(pay.MajorBanks)
}

func exactFirst(a, b, code string) int {
	switch {
	case code == "" || (a == code) == (b == code):
		return 0
	case a == code:
		return -1
	}
	return 1
}

func (t *table) bank(code string) *bankEntry {
	if t == nil || code == "" {
		return nil
	}
	if i, found := slices.BinarySearchFunc(t.banks, code, func(b bankEntry, c string) int {
		return strings.Compare(b.Code, c)
	}); found {
		return &t.banks[i]
	}
	return nil
}

// normaliseCode reduces a code as typed to ASCII digits, or "" when it is
// not the given number of digits.
func normaliseCode(s string, digits int) string {
	c := pay.NormalizeCode(s)
	if len(c) != digits || !pay.AllDigits(c) {
		return ""
	}
	return c
}

// parseQuery reads a query as a code prefix (when it is up to the given
// number of digits) and as folded text, the long forms of the kinds of
// institution rewritten to zengin's abbreviations.
func parseQuery(q string, digits int, aliases *strings.Replacer) (code, text string) {
	if utf8.RuneCountInString(q) > maxQueryRunes {
		q = string([]rune(q)[:maxQueryRunes])
	}
	if c := pay.NormalizeCode(q); len(c) <= digits && pay.AllDigits(c) {
		code = c
	}
	text = fold(q)
	if t := aliases.Replace(text); t != "" {
		text = t
	}
	return code, text
}

func matches(entryCode, key, code, text string) bool {
	return (code != "" && strings.HasPrefix(entryCode, code)) ||
		(text != "" && strings.Contains(key, text))
}

// bankAliases turns the full names of the kinds of institution, in kanji
// and in folded kana, into the abbreviations zengin writes (北海道信用金庫
// finds 北海道信金).
var bankAliases = strings.NewReplacer(
	"信用金庫", "信金", "信用組合", "信組", "労働金庫", "労金",
	"農業協同組合", "農協", "漁業協同組合", "漁協",
	"シンヨウキンコ", "シンキン", "シンヨウクミアイ", "シンクミ", "ロウドウキンコ", "ロウキン",
	"ノウギヨウキヨウドウクミアイ", "ノウキヨウ", "ギヨギヨウキヨウドウクミアイ", "ギヨキヨウ",
)

// branchAliases drops 支店, which people add and zengin's names leave out
// (渋谷支店 finds 渋谷). It applies anywhere in the query, which is harmless:
// no branch name contains 支店. When the query is 支店 alone, parseQuery
// keeps it.
var branchAliases = strings.NewReplacer("支店", "", "シテン", "", "shiten", "")

// searchKey joins the folded fields of an entry with a line break, which a
// folded query never contains, so a match never spans two fields. A field
// already contained in the key (the hiragana, which folds to the kana) is
// left out. An empty hira field means zengin's hiragana is the kana in
// hiragana (islands/zengin.mjs), which folds to the kana: nothing to add.
func searchKey(fields ...string) string {
	var b strings.Builder
	for _, f := range fields {
		if f = fold(f); f == "" || strings.Contains(b.String(), f) {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f)
	}
	return b.String()
}

// fold brings the ways a name or reading can be typed to one form, applied
// to the data and to queries alike: hiragana and half-width katakana become
// full-width katakana (pay.ToFullWidthKatakana), small kana become large
// (zengin writes ッ, ャ as ツ, ヤ), ヂ and ヅ become ジ and ズ (zengin's ツキヂ
// is typed つきじ), every long mark and dash (ー, zengin's －, ｰ, -) becomes
// "-", full-width letters and digits become ASCII, letters lower case, and
// spaces and the separators ・ ． 、 are dropped (zengin's kana writes
// クレデイ．アグリコル where the name has クレディ・アグリコル).
func fold(s string) string {
	s = pay.ToFullWidthKatakana(s)
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r >= '！' && r <= '～' {
			// The full-width ASCII block sits at a fixed offset from ASCII.
			r -= '！' - '!'
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			continue
		}
		switch r {
		case '・', '.', '、', ',':
			continue
		case 'ー', '‐', '‑', '‒', '–', '—', '―', '−':
			r = '-'
		}
		if l, ok := largeKana[r]; ok {
			r = l
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

var largeKana = map[rune]rune{
	'ァ': 'ア', 'ィ': 'イ', 'ゥ': 'ウ', 'ェ': 'エ', 'ォ': 'オ', 'ッ': 'ツ',
	'ャ': 'ヤ', 'ュ': 'ユ', 'ョ': 'ヨ', 'ヮ': 'ワ', 'ヵ': 'カ', 'ヶ': 'ケ',
	'ヂ': 'ジ', 'ヅ': 'ズ',
}
