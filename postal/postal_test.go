package postal_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/postal"
)

// The data is build output. CI builds before testing, so missing data is a
// failure here, not a skip: a skipped test would let a server without
// postal lookup ship unnoticed.
func requireData(t *testing.T) {
	t.Helper()
	require.NoError(t, postal.LoadError(), "run `npm run build` first: it writes postal/data/postal.json.gz")
	require.True(t, postal.Available())
}

func TestLookup(t *testing.T) {
	requireData(t)
	tokyo := func(city string) postal.Address {
		return postal.Address{PrefectureCode: 13, Prefecture: "東京都", City: city}
	}
	tests := []struct {
		name string
		code string
		want []postal.Address
	}{
		{"千代田", "1000001", []postal.Address{tokyo("千代田区")}},
		{"with hyphen", "100-0001", []postal.Address{tokyo("千代田区")}},
		{"with 〒 and full-width digits", "〒１００－０００１", []postal.Address{tokyo("千代田区")}},
		{"with spaces", " 100 0001 ", []postal.Address{tokyo("千代田区")}},
		{"IME long mark as hyphen", "１００ー０００１", []postal.Address{tokyo("千代田区")}},
		{"梅田, a ward of a designated city", "〒530-0001", []postal.Address{{PrefectureCode: 27, Prefecture: "大阪府", City: "大阪市北区"}}},
		{"Hokkaido's leading zero", "060-0000", []postal.Address{{PrefectureCode: 1, Prefecture: "北海道", City: "札幌市中央区"}}},
		{"沖縄県", "9000001", []postal.Address{{PrefectureCode: 47, Prefecture: "沖縄県", City: "那覇市"}}},
		{"a district town", "1900181", []postal.Address{tokyo("西多摩郡日の出町")}},
		{"shared by two cities", "190-0100", []postal.Address{tokyo("あきる野市"), tokyo("西多摩郡日の出町")}},
		{"shared by three towns", "2580000", []postal.Address{
			{PrefectureCode: 14, Prefecture: "神奈川県", City: "足柄上郡大井町"},
			{PrefectureCode: 14, Prefecture: "神奈川県", City: "足柄上郡松田町"},
			{PrefectureCode: 14, Prefecture: "神奈川県", City: "足柄上郡開成町"},
		}},
		{"a building's floor, listed by prefix", "100-6090", []postal.Address{tokyo("千代田区")}},
		{"another floor of the same building", "1006001", []postal.Address{tokyo("千代田区")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := postal.Lookup(tt.code)
			require.True(t, ok, tt.code)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLookupUnknownOrGarbage(t *testing.T) {
	requireData(t)
	for _, code := range []string{
		"0000000",  // seven digits no one was given
		"9999999",  // ditto
		"1000009",  // a gap between 千代田区's codes
		"1008994",  // a large business's own code (事業所個別番号): KEN_ALL, so the data, has none
		"",         // nothing
		"〒",        // the mark alone
		"100000",   // six digits
		"10000011", // eight digits
		"100-000a", // a letter
		"abcdefg",  // letters only
		"1OOOOO1",  // letter O for zero
		"１００\xff",  // invalid UTF-8
		"1.0e+06",  // seven characters, not a number to parse
		"+100001",  // not parsed as a signed number
	} {
		t.Run(code, func(t *testing.T) {
			got, ok := postal.Lookup(code)
			assert.False(t, ok)
			assert.Nil(t, got)
		})
	}
}

// Callers may change what Lookup returns without changing the data.
func TestLookupReturnsACopy(t *testing.T) {
	requireData(t)
	got, ok := postal.Lookup("1900100")
	require.True(t, ok)
	got[0].City = "changed"
	again, _ := postal.Lookup("1900100")
	assert.Equal(t, "あきる野市", again[0].City)
}

// A form pre-selects the prefecture by name from pay.Prefectures, so the
// names in the data must be the same strings.
func TestLookupPrefectureNamesMatchPay(t *testing.T) {
	requireData(t)
	// One code per prefecture, in its capital.
	capitals := []string{
		"0600000", "0300801", "0200021", "9800014", "0100001", "9900031", "9608041", "3100011",
		"3200806", "3710026", "3300063", "2600013", "1000001", "2310021", "9518068", "9300006",
		"9200962", "9100005", "4000031", "3800838", "5008076", "4200853", "4600001", "5140004",
		"5200044", "6020000", "5300001", "6500001", "6308001", "6408156", "6800011", "6900887",
		"7000822", "7300011", "7530071", "7700939", "7600018", "7900001", "7800850", "8100001",
		"8400801", "8500031", "8600001", "8700021", "8800001", "8900062", "9000001",
	}
	require.Len(t, capitals, 47)
	for i, code := range capitals {
		got, ok := postal.Lookup(code)
		if !assert.True(t, ok, code) {
			continue
		}
		want := pay.Prefectures[i] // in JIS order, as the capitals are
		assert.Equal(t, want.Code, got[0].PrefectureCode, code)
		assert.Equal(t, want.Name, got[0].Prefecture, code)
	}
}
