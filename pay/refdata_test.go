package pay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

func TestPrefectures(t *testing.T) {
	require.Len(t, pay.Prefectures, 47)
	seen := map[string]bool{}
	for i, p := range pay.Prefectures {
		assert.Equal(t, i+1, p.Code, "JIS order: %s", p.Name)
		assert.False(t, seen[p.Name], "duplicate %s", p.Name)
		seen[p.Name] = true
	}
	tests := []struct {
		code int
		name string
	}{
		{1, "北海道"}, {2, "青森県"}, {13, "東京都"}, {14, "神奈川県"}, {15, "新潟県"},
		{26, "京都府"}, {27, "大阪府"}, {30, "和歌山県"}, {46, "鹿児島県"}, {47, "沖縄県"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.name, pay.Prefectures[tt.code-1].Name)
	}
}

func TestPrefectureByName(t *testing.T) {
	tests := []struct {
		name     string
		wantCode int
		wantOK   bool
	}{
		{"北海道", 1, true},
		{"東京都", 13, true},
		{"京都府", 26, true},
		{"大阪府", 27, true},
		{"沖縄県", 47, true},
		{" 東京都 ", 13, true},
		{"東京", 0, false},
		{"京都", 0, false},
		{"Tokyo", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := pay.PrefectureByName(tt.name)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.wantCode, got.Code)
		})
	}
}

func TestMonths(t *testing.T) {
	require.Len(t, pay.Months, 12)
	tests := []struct {
		number int
		label  string
	}{
		{1, "1月"}, {2, "2月"}, {3, "3月"}, {4, "4月"}, {5, "5月"}, {6, "6月"},
		{7, "7月"}, {8, "8月"}, {9, "9月"}, {10, "10月"}, {11, "11月"}, {12, "12月"},
	}
	for i, tt := range tests {
		assert.Equal(t, pay.Month{Number: tt.number, Label: tt.label}, pay.Months[i])
	}
}

// Codes, names and kana as published in zengin-code 1.0.0-p20260824.
func TestMajorBanks(t *testing.T) {
	want := []pay.Bank{
		{Code: "0001", Name: "みずほ銀行", Kana: "ミズホ"},
		{Code: "0005", Name: "三菱ＵＦＪ銀行", Kana: "ミツビシユ－エフジエイ"},
		{Code: "0009", Name: "三井住友銀行", Kana: "ミツイスミトモ"},
		{Code: "0010", Name: "りそな銀行", Kana: "リソナ"},
		{Code: "0036", Name: "楽天銀行", Kana: "ラクテン"},
		{Code: "0038", Name: "ドコモＳＭＴＢネット銀行", Kana: "ドコモＳＭＴＢネツト"},
		{Code: "0294", Name: "三井住友信託銀行", Kana: "ミツイスミトモシンタク"},
		{Code: "9900", Name: "ゆうちょ銀行", Kana: "ユウチヨ"},
	}
	assert.Equal(t, want, pay.MajorBanks)
	for _, b := range pay.MajorBanks {
		assert.Len(t, b.Code, 4, b.Name)
	}
}
