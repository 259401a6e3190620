package pay_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"cardpay/pay"
)

func TestSameCorporateName(t *testing.T) {
	for _, tc := range []struct {
		registered, typed string
		same              bool
	}{
		{"トヨタ自動車株式会社", "トヨタ自動車株式会社", true},
		{"トヨタ自動車株式会社", "トヨタ自動車（株）", true},
		{"トヨタ自動車株式会社", "トヨタ自動車㈱", true},
		{"トヨタ自動車株式会社", "トヨタ自動車(株)", true},
		{"トヨタ自動車株式会社", "株式会社トヨタ自動車", true},
		{"トヨタ自動車株式会社", "㈱トヨタ自動車", true},
		{"トヨタ自動車株式会社", "トヨタ自動車", true},
		{"トヨタ自動車株式会社", "トヨタ自動車　株式会社", true},
		{"トヨタ自動車株式会社", " トヨタ 自動車 株式会社 ", true},
		{"株式会社ＮＴＴドコモ", "株式会社NTTドコモ", true},
		{"株式会社ＮＴＴドコモ", "(株)nttドコモ", true},
		{"株式会社ＮＴＴドコモ", "ＮＴＴﾄﾞｺﾓ株式会社", true},
		{"ＡＢＣ合同会社", "ABC合同会社", true},
		{"ＡＢＣ合同会社", "ＡＢＣ（同）", true},
		{"有限会社山田屋", "山田屋㈲", true},
		// Different names and different company types are refused.
		{"トヨタ自動車株式会社", "テスト商事株式会社", false},
		{"トヨタ自動車株式会社", "トヨタ自動車販売株式会社", false},
		{"トヨタ自動車株式会社", "トヨタ自動車合同会社", false},
		{"トヨタ自動車株式会社", "トヨタ", false},
		{"トヨタ自動車株式会社", "株式会社", false},
		{"トヨタ自動車株式会社", "", false},
		{"", "", false},
		{"株式会社さくら製作所", "株式会社サクラ製作所", false}, // a different script is a different name
	} {
		assert.Equal(t, tc.same, pay.SameCorporateName(tc.registered, tc.typed), "%q ~ %q", tc.registered, tc.typed)
	}
}

func TestPrefectureOf(t *testing.T) {
	for address, want := range map[string]string{
		"東京都千代田区丸の内１丁目６－６": "東京都",
		"京都府京都市中京区":        "京都府",
		"愛知県豊田市トヨタ町１番地":    "愛知県",
		"アメリカ合衆国カリフォルニア州":  "",
		"": "",
	} {
		assert.Equal(t, want, pay.PrefectureOf(address), address)
	}
}
