package pay

import "strings"

// Prefecture is one of Japan's 47 prefectures with its JIS X 0401 code.
type Prefecture struct {
	Code int
	Name string
}

// Prefectures lists the prefectures in JIS order (code 1 北海道 to 47 沖縄県),
// the order address forms offer them in. Do not modify.
var Prefectures = []Prefecture{
	{1, "北海道"}, {2, "青森県"}, {3, "岩手県"}, {4, "宮城県"}, {5, "秋田県"},
	{6, "山形県"}, {7, "福島県"}, {8, "茨城県"}, {9, "栃木県"}, {10, "群馬県"},
	{11, "埼玉県"}, {12, "千葉県"}, {13, "東京都"}, {14, "神奈川県"}, {15, "新潟県"},
	{16, "富山県"}, {17, "石川県"}, {18, "福井県"}, {19, "山梨県"}, {20, "長野県"},
	{21, "岐阜県"}, {22, "静岡県"}, {23, "愛知県"}, {24, "三重県"}, {25, "滋賀県"},
	{26, "京都府"}, {27, "大阪府"}, {28, "兵庫県"}, {29, "奈良県"}, {30, "和歌山県"},
	{31, "鳥取県"}, {32, "島根県"}, {33, "岡山県"}, {34, "広島県"}, {35, "山口県"},
	{36, "徳島県"}, {37, "香川県"}, {38, "愛媛県"}, {39, "高知県"}, {40, "福岡県"},
	{41, "佐賀県"}, {42, "長崎県"}, {43, "熊本県"}, {44, "大分県"}, {45, "宮崎県"},
	{46, "鹿児島県"}, {47, "沖縄県"},
}

// PrefectureByName finds a prefecture by its full name ("東京都"), as forms
// and the postal-code data write it. Short forms ("東京") are not accepted
// because 京都 would then be ambiguous to a reader of the stored value.
func PrefectureByName(name string) (Prefecture, bool) {
	name = strings.TrimSpace(name)
	for _, p := range Prefectures {
		if p.Name == name {
			return p, true
		}
	}
	return Prefecture{}, false
}

// Month is a choice in month pickers (birthdays, card expiry).
type Month struct {
	Number int
	Label  string
}

// Months lists 1月 to 12月. Do not modify.
var Months = []Month{
	{1, "1月"}, {2, "2月"}, {3, "3月"}, {4, "4月"}, {5, "5月"}, {6, "6月"},
	{7, "7月"}, {8, "8月"}, {9, "9月"}, {10, "10月"}, {11, "11月"}, {12, "12月"},
}

// Bank is a bank as the zengin system registers it: four-digit code, name
// and the kana name used in transfer data.
type Bank struct {
	Code string
	Name string
	Kana string
}

// MajorBanks are the eight banks offered as shortcuts on the bank step
// (SPEC §3). Codes, names and kana are copied from the npm zengin-code data
// (1.0.0-p20260824), which is the same source as the embedded bank list, so
// a shortcut and a search result show the same text: the name is zengin's
// plus 銀行, with its full-width letters, and the kana is zengin's own form
// (small kana written large, full-width long mark). 0038 was renamed from
// 住信SBIネット銀行 to ドコモSMTBネット銀行 in 2026. Do not modify.
var MajorBanks = []Bank{
	{Code: "0001", Name: "みずほ銀行", Kana: "ミズホ"},
	{Code: "0005", Name: "三菱ＵＦＪ銀行", Kana: "ミツビシユ－エフジエイ"},
	{Code: "0009", Name: "三井住友銀行", Kana: "ミツイスミトモ"},
	{Code: "0010", Name: "りそな銀行", Kana: "リソナ"},
	{Code: "0036", Name: "楽天銀行", Kana: "ラクテン"},
	{Code: "0038", Name: "ドコモＳＭＴＢネット銀行", Kana: "ドコモＳＭＴＢネツト"},
	{Code: "0294", Name: "三井住友信託銀行", Kana: "ミツイスミトモシンタク"},
	{Code: "9900", Name: "ゆうちょ銀行", Kana: "ユウチヨ"},
}
