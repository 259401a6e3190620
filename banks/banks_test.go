package banks

import (
	"bytes"
	"compress/gzip"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

// The data is build output. CI builds before testing, so missing data is a
// failure here, not a skip: a skipped test would let a server without bank
// search ship unnoticed.
func requireData(t *testing.T) {
	t.Helper()
	require.NoError(t, LoadError(), "run `npm run build` first: it writes banks/data/zengin.json.gz")
	require.True(t, Available())
}

func codes[T interface{ Bank | Branch }](items []T) []string {
	var out []string
	if len(items) > 0 {
		out = make([]string, len(items))
	}
	for i, it := range items {
		switch v := any(it).(type) {
		case Bank:
			out[i] = v.Code
		case Branch:
			out[i] = v.Code
		}
	}
	return out
}

func TestDataAvailable(t *testing.T) {
	requireData(t)
	banks, branches := Count()
	// zengin-code 1.0.0-p20260824 has 1146 and 28944; a range leaves room
	// for the next data update while catching a broken conversion.
	assert.Greater(t, banks, 1000)
	assert.Greater(t, branches, 25000)
}

func TestMajorAgreesWithPay(t *testing.T) {
	requireData(t)
	want := make([]Bank, len(pay.MajorBanks))
	for i, m := range pay.MajorBanks {
		want[i] = Bank{Code: m.Code, Name: m.Name, Kana: m.Kana}
		got, ok := ByCode(m.Code)
		assert.True(t, ok, m.Code)
		assert.Equal(t, want[i], got, "ByCode(%s) and pay.MajorBanks disagree", m.Code)
	}
	assert.Equal(t, want, Major())
	assert.Equal(t, []string{"0001", "0005", "0009", "0010", "0036", "0038", "0294", "9900"}, codes(Major()))
}

func TestByCode(t *testing.T) {
	requireData(t)
	tests := []struct {
		name string
		code string
		want Bank
	}{
		{"みずほ", "0001", Bank{"0001", "みずほ銀行", "ミズホ"}},
		{"full-width digits", "０００５", Bank{"0005", "三菱ＵＦＪ銀行", "ミツビシユ－エフジエイ"}},
		{"spaces around", " 0009 ", Bank{"0009", "三井住友銀行", "ミツイスミトモ"}},
		{"a regional bank", "0130", Bank{"0130", "常陽銀行", "ジヨウヨウ"}},
		{"a trust bank", "0288", Bank{"0288", "三菱ＵＦＪ信託銀行", "ミツビシＵＦＪシンタク"}},
		{"ゆうちょ", "9900", Bank{"9900", "ゆうちょ銀行", "ユウチヨ"}},
		{"a 信用金庫 keeps zengin's 信金", "1344", Bank{"1344", "城南信金", "ジヨウナンシンキン"}},
		{"信金中央金庫", "1000", Bank{"1000", "信金中央金庫", "シンキンチユウオウキンコ"}},
		{"a 信用組合", "2011", Bank{"2011", "北央信組", "ホクオウシンクミ"}},
		{"a 労働金庫", "2997", Bank{"2997", "沖縄県労金", "オキナワケンロウキン"}},
		{"a 農協", "5000", Bank{"5000", "かとり農協", "カトリノウキヨウ"}},
		{"商工中金", "2004", Bank{"2004", "商工中金", "シヨウコウチユウキン"}},
		{"a foreign bank named バンク", "0401", Bank{"0401", "シティバンク、エヌ・エイ", "シテイバンク"}},
		{"a foreign bank", "0411", Bank{"0411", "香港上海銀行", "ホンコンシヤンハイ"}},
		{"a funds-transfer company", "0200", Bank{"0200", "ワイズ・ペイメンツ・ジャパン", "ワイズ"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ByCode(tt.code)
			require.True(t, ok, tt.code)
			assert.Equal(t, tt.want, got)
		})
	}
	for _, code := range []string{"0002", "9999", "1", "001", "00001", "abcd", "", "００００", "0001x"} {
		t.Run("unknown "+code, func(t *testing.T) {
			got, ok := ByCode(code)
			assert.False(t, ok)
			assert.Zero(t, got)
		})
	}
}

func TestBranchByCode(t *testing.T) {
	requireData(t)
	tests := []struct {
		bank, branch string
		want         Branch
	}{
		{"0001", "001", Branch{"001", "東京営業部", "トウキヨウ"}},
		{"0001", "015", Branch{"015", "築地", "ツキヂ"}},
		{"０００１", "２１０", Branch{"210", "渋谷", "シブヤ"}},
		{"0005", "001", Branch{"001", "本店", "ホンテン"}},
		{"0005", "486", Branch{"486", "成田空港第２ビル出張所", "ナリタクウコウダイニビル"}},
		{"9900", "018", Branch{"018", "〇一八", "ゼロイチハチ"}},
		{"1344", "001", Branch{"001", "営業部本店", "ホンテン"}},
		{"0036", "201", Branch{"201", "ジャズ", "ジヤズ"}},
	}
	for _, tt := range tests {
		t.Run(tt.bank+"-"+tt.branch, func(t *testing.T) {
			got, ok := BranchByCode(tt.bank, tt.branch)
			require.True(t, ok)
			assert.Equal(t, tt.want, got)
		})
	}
	for _, c := range [][2]string{{"0001", "000"}, {"0001", "999"}, {"0001", "1"}, {"0001", "0001"}, {"9999", "001"}, {"", "001"}, {"0001", ""}} {
		t.Run("unknown "+c[0]+"-"+c[1], func(t *testing.T) {
			got, ok := BranchByCode(c[0], c[1])
			assert.False(t, ok)
			assert.Zero(t, got)
		})
	}
}

func TestSearchBanks(t *testing.T) {
	requireData(t)
	tests := []struct {
		name  string
		q     string
		limit int
		want  []string // the first codes answered, in order
		all   bool     // want is the whole answer
	}{
		{"kanji name", "みずほ", 0, []string{"0001", "0289", "4859"}, true},
		{"katakana", "ミズホ", 0, []string{"0001", "0289", "4859"}, true},
		{"half-width katakana", "ﾐｽﾞﾎ", 0, []string{"0001", "0289", "4859"}, true},
		{"display name with 銀行", "みずほ銀行", 0, []string{"0001"}, true},
		{"reading with ぎんこう", "みずほぎんこう", 0, []string{"0001"}, true},
		{"romaji", "mizuho", 0, []string{"0001", "0289", "4859"}, true},
		{"romaji upper case", "MIZUHO", 0, []string{"0001", "0289", "4859"}, true},
		{"full-width romaji", "ｍｉｚｕｈｏ", 0, []string{"0001", "0289", "4859"}, true},
		{"small kana, hiragana", "ゆうちょ", 0, []string{"9900"}, true},
		{"small kana, katakana", "ユウチョ", 0, []string{"9900"}, true},
		{"small kana, half-width", "ﾕｳﾁｮ", 0, []string{"9900"}, true},
		{"small っ", "ほっかいどうしんきん", 0, []string{"1001"}, true},
		{"long mark in the name", "ソニー", 0, []string{"0035"}, true},
		{"long mark in hiragana", "そにー", 0, []string{"0035"}, true},
		{"half-width long mark", "ｿﾆｰ", 0, []string{"0035"}, true},
		{"full-width letters typed half-width", "paypay", 0, []string{"0033"}, true},
		{"half-width letters in a name", "UFJ", 0, []string{"0005", "0288"}, true},
		{"信用金庫 in full", "北海道信用金庫", 0, []string{"1001"}, true},
		{"zengin's 信金", "城南信金", 0, []string{"1344"}, true},
		{"spaces ignored", " らく てん ", 0, []string{"0036"}, true},
		{"exact code", "0001", 0, []string{"0001"}, true},
		{"full-width code", "９９００", 0, []string{"9900"}, true},
		{"code prefix, majors first", "００", 8, []string{"0001", "0005", "0009", "0010", "0036", "0038", "0017", "0033"}, true},
		{"majors first, then by code", "信託", 0, []string{"0294", "0288", "0289", "0295"}, false},
		{"limit", "銀行", 3, []string{"0001", "0005", "0009"}, true},
		{"nothing", "ぜったいにないきんこう", 0, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := codes(SearchBanks(tt.q, tt.limit))
			if tt.all {
				assert.Equal(t, tt.want, got)
			} else {
				require.GreaterOrEqual(t, len(got), len(tt.want))
				assert.Equal(t, tt.want, got[:len(tt.want)])
			}
		})
	}

	t.Run("answers whole banks", func(t *testing.T) {
		assert.Equal(t, []Bank{{"1001", "北海道信金", "ホツカイドウシンキン"}}, SearchBanks("ほっかいどうしんきん", 5))
	})
	t.Run("default limit", func(t *testing.T) {
		assert.Len(t, SearchBanks("信金", 0), defaultLimit)
		assert.Len(t, SearchBanks("信金", -1), defaultLimit)
		assert.Len(t, SearchBanks("信金", 100), 100)
	})
	t.Run("empty query answers the majors", func(t *testing.T) {
		assert.Equal(t, Major(), SearchBanks("", 0))
		assert.Equal(t, Major(), SearchBanks(" 　", 20))
		assert.Equal(t, Major()[:3], SearchBanks("", 3))
	})
}

func TestSearchBranches(t *testing.T) {
	requireData(t)
	tests := []struct {
		name    string
		bank, q string
		limit   int
		want    []string
	}{
		{"kanji", "0001", "渋谷", 0, []string{"162", "210"}},
		{"with 支店", "0001", "渋谷支店", 0, []string{"162", "210"}},
		{"hiragana", "0001", "しぶや", 0, []string{"162", "210"}},
		{"romaji", "0001", "Shibuya", 0, []string{"162", "210"}},
		{"small kana, half-width", "0001", "ｼﾝｼﾞｭｸﾆｼｸﾞﾁ", 0, []string{"353"}},
		{"ヂ typed as じ", "0001", "つきじ", 0, []string{"015"}},
		{"kana, by code", "0001", "とうきょう", 3, []string{"001", "078", "110"}},
		{"code prefix", "0001", "00", 3, []string{"001", "004", "005"}},
		{"full-width code", "0001", "００１", 0, []string{"001"}},
		{"long mark and small kana", "2963", "しゅうちゅうせんたー", 0, []string{"230", "231", "232"}},
		{"ゆうちょ by kana", "9900", "ぜろいちはち", 0, []string{"018"}},
		{"full-width bank code", "９９００", "018", 0, []string{"018"}},
		{"nothing", "0001", "ぜったいにないしてん", 0, nil},
		{"unknown bank", "9999", "東京", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, codes(SearchBranches(tt.bank, tt.q, tt.limit)))
		})
	}
	t.Run("answers whole branches", func(t *testing.T) {
		assert.Equal(t, []Branch{{"001", "東京営業部", "トウキヨウ"}}, SearchBranches("0001", "001", 1))
	})
	t.Run("default limit and empty query", func(t *testing.T) {
		all := SearchBranches("0001", "", 0)
		assert.Len(t, all, defaultLimit)
		assert.Equal(t, "001", all[0].Code)
		assert.Len(t, SearchBranches("0005", "", 500), 500)
		assert.Equal(t, all[:5], SearchBranches("0001", " ", 5))
	})
}

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

// A small file in the format islands/zengin.mjs writes, for the rules the
// real data cannot show: a name that contains another entry's code.
const sample = `{"source":"zengin-code@test","banks":[
 ["0001","みずほ","ミズホ","","mizuho",[
   ["001","東京営業部","トウキヨウ","","toukiyou"],
   ["005","第１２５","ダイヒヤクニジユウゴ","","daihiyakunijiyuugo"],
   ["125","本店","ホンテン","","honten"]]],
 ["0017","第０１３０","ダイゼロイチサンゼロ","","daizeroichisanzero",[]],
 ["0130","常陽","ジヨウヨウ","","jiyouyou",[]],
 ["1001","北海道信金","ホツカイドウシンキン","","hotsukaidoushinkin",[]],
 ["9900","ゆうちょ","ユウチヨ","","yuuchiyo",[]]]}`

func TestParseSample(t *testing.T) {
	tab, err := parse(bytes.NewReader(gzipped(t, sample)))
	require.NoError(t, err)
	assert.Equal(t, 5, len(tab.banks))
	assert.Equal(t, 3, tab.branchCount)

	// The exact code before a name that contains it, majors before both.
	assert.Equal(t, []string{"0130", "0017"}, codes(tab.searchBanks("0130", 0)))
	assert.Equal(t, []string{"0001", "0017"}, codes(tab.searchBanks("00", 0)))
	assert.Equal(t, []string{"125", "005"}, codes(tab.searchBranches("0001", "125", 0)))

	// Major falls back to pay.MajorBanks for banks the data lacks.
	m := tab.major()
	require.Len(t, m, len(pay.MajorBanks))
	assert.Equal(t, Bank{"0001", "みずほ銀行", "ミズホ"}, m[0])
	assert.Equal(t, Bank{"0005", "三菱ＵＦＪ銀行", "ミツビシユ－エフジエイ"}, m[1])
}

func TestParseRejects(t *testing.T) {
	for name, s := range map[string]string{
		"other source":     `{"source":"x","banks":[["0001","a","ア","","a",[]]]}`,
		"no banks":         `{"source":"zengin-code@1","banks":[]}`,
		"short row":        `{"source":"zengin-code@1","banks":[["0001","a","ア","","a"]]}`,
		"bad bank code":    `{"source":"zengin-code@1","banks":[["001","a","ア","","a",[]]]}`,
		"unsorted banks":   `{"source":"zengin-code@1","banks":[["0002","a","ア","","a",[]],["0001","a","ア","","a",[]]]}`,
		"empty kana":       `{"source":"zengin-code@1","banks":[["0001","a","","","a",[]]]}`,
		"bad branch code":  `{"source":"zengin-code@1","banks":[["0001","a","ア","","a",[["01","b","イ","","b"]]]]}`,
		"unsorted branch":  `{"source":"zengin-code@1","banks":[["0001","a","ア","","a",[["002","b","イ","","b"],["001","b","イ","","b"]]]]}`,
		"duplicate branch": `{"source":"zengin-code@1","banks":[["0001","a","ア","","a",[["001","b","イ","","b"],["001","b","イ","","b"]]]]}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := parse(bytes.NewReader(gzipped(t, s)))
			assert.Error(t, err)
		})
	}
}

func TestWithoutData(t *testing.T) {
	tab, err := readData(fstest.MapFS{"data/.gitkeep": {}})
	assert.ErrorIs(t, err, pay.ErrNoEmbeddedData)
	assert.Nil(t, tab)

	// What the exported functions do on a binary built without the data.
	var none *table
	assert.Equal(t, codes(none.major()), []string{"0001", "0005", "0009", "0010", "0036", "0038", "0294", "9900"})
	assert.Equal(t, none.major(), none.searchBanks("", 0))
	assert.Nil(t, none.searchBanks("みずほ", 0))
	assert.Nil(t, none.searchBranches("0001", "", 0))
	_, ok := none.byCode("0001")
	assert.False(t, ok)
	_, ok = none.branchByCode("0001", "001")
	assert.False(t, ok)
}

func TestDisplayName(t *testing.T) {
	tests := []struct{ code, zengin, want string }{
		{"0001", "みずほ", "みずほ銀行"},
		{"0005", "三菱ＵＦＪ", "三菱ＵＦＪ銀行"},
		{"0403", "バンク・オブ・アメリカ・エヌ・エイ", "バンク・オブ・アメリカ・エヌ・エイ"},
		{"0617", "フィリピン・ナショナル・バンク", "フィリピン・ナショナル・バンク"},
		{"0200", "ワイズ・ペイメンツ・ジャパン", "ワイズ・ペイメンツ・ジャパン"},
		{"1001", "北海道信金", "北海道信金"},
		{"3000", "農林中金", "農林中金"},
		{"9450", "北海道信漁連", "北海道信漁連"},
		{"9900", "ゆうちょ", "ゆうちょ銀行"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, displayName(tt.code, tt.zengin), tt.code)
	}
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"みずほ", "ミズホ"},
		{"ﾐｽﾞﾎ", "ミズホ"},
		{"ゆうちょ", "ユウチヨ"},
		{"ユウチヨ", "ユウチヨ"},
		{"ソニ－", "ソニ-"}, // zengin's long mark, U+FF0D
		{"ソニー", "ソニ-"},
		{"ｿﾆｰ", "ソニ-"},
		{"ツキヂ", "ツキジ"},
		{"クレデイ．アグリコル", "クレデイアグリコル"},
		{"クレディ・アグリコル", "クレデイアグリコル"},
		{"ソシエテ　ジエネラル", "ソシエテジエネラル"},
		{"三菱ＵＦＪ", "三菱ufj"},
		{"Mizuho", "mizuho"},
		{"０１２３", "0123"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, fold(tt.in), tt.in)
	}
}

func TestDirectoryChecksRealAccounts(t *testing.T) {
	in := pay.AccountInput{BankCode: "0001", BranchCode: "001", AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ﾔﾏﾀﾞ ﾀﾛｳ"}
	got, errs := in.Check(Directory{})
	if len(errs) != 0 || got.BankName != "みずほ銀行" || got.BranchName != "東京営業部" {
		t.Fatalf("Check = %+v, %v; want みずほ銀行 東京営業部 without errors", got, errs)
	}
	in.BranchCode = "998"
	if _, errs := in.Check(Directory{}); errs.For("branch_code") == "" {
		t.Fatalf("branch 0001/998 should not exist")
	}
}

// Count answers how many banks and branches the data holds (0, 0 without data).
func Count() (banks, branches int) {
	t := load()
	if t == nil {
		return 0, 0
	}
	return len(t.banks), t.branchCount
}
