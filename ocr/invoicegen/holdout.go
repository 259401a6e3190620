package invoicegen

import (
	"fmt"
	"math/rand/v2"
)

// The holdout set: invoices the extractor (invoiceread) was not written against, for
// measuring it without tuning to it. Its generator (NewHoldout) draws other issuers (有限
// 会社 and 合同会社 too), buyers, items and banks, more date and amount forms and holders
// spelt as the supplier spells them; its layouts (HoldoutLayouts) differ in structure,
// label wordings and font (IPAex Mincho); its scans, faxes and photos are degraded in
// other ways (JPEG artefacts, blur, low contrast, more rotation, a fax's standard
// resolution). Keep it out of the tuning loop: look at its misses to learn what kind of
// thing fails, never to fit the extractor to these layouts' wordings.

// Set names a set of invoices: the generator's (the layouts invoiceread was written
// against) or the holdout.
type Set string

const (
	SetGenerator Set = "generator"
	SetHoldout   Set = "holdout"
)

// Sets lists the sets in the order a report shows them.
var Sets = []Set{SetGenerator, SetHoldout}

// New returns the set's generator for seed.
func (s Set) New(seed int64) *Generator {
	if s == SetHoldout {
		return NewHoldout(seed)
	}
	return New(seed)
}

// Layouts returns the set's layouts.
func (s Set) Layouts() []Layout {
	if s == SetHoldout {
		return HoldoutLayouts
	}
	return Layouts
}

// NewHoldout returns a generator of the holdout set. The same seed gives other invoices
// than New's (another stream), and the same ones on every run.
func NewHoldout(seed int64) *Generator {
	return &Generator{seed: seed, rng: rand.New(rand.NewPCG(uint64(seed), 0x401d0a7)), holdout: true}
}

// pool is what the invoices' content is drawn from.
type pool struct {
	companies []company
	buyers    []string
	addresses []string
	banks     []bank
	items10   []priced
	items8    []priced
}

type priced = struct {
	name  string
	price int64
}

func (g *Generator) pool() *pool {
	if g.holdout {
		return &holdoutPool
	}
	return &generatorPool
}

var generatorPool = pool{companies: companies, buyers: buyers, addresses: addresses, banks: banksList, items10: items10, items8: items8}

var holdoutEntities = []entity{
	kabushiki, kabushiki, kabushiki, kabushiki,
	{"有限会社", []string{"有限会社", "有限会社", "(有)", "㈲", "（有）"}, "ユ"},
	{"合同会社", []string{"合同会社"}, "ド"},
}

// Holdout names keep their kana as the company spells it (small kana, long marks);
// NormalizeHolderName gives the bank's form.
var holdoutPool = pool{
	companies: []company{
		{"松風商会", "マツカゼショウカイ"}, {"藤ノ木工業", "フジノキコウギョウ"}, {"海鳴テクノロジー", "ウミナリテクノロジー"},
		{"白樺ファーム", "シラカバファーム"}, {"千代田メディカル", "チヨダメディカル"}, {"朝日ビルメンテナンス", "アサヒビルメンテナンス"},
		{"ことぶき観光", "コトブキカンコウ"}, {"瀬戸内マリン", "セトウチマリン"}, {"北辰ソリューションズ", "ホクシンソリューションズ"},
		{"若葉デザイン事務所", "ワカバデザインジムショ"}, {"東邦キャリア", "トウホウキャリア"}, {"信濃ゼネラル", "シナノゼネラル"},
	},
	buyers: []string{
		"株式会社ミライ技研", "有限会社さとう精肉店", "株式会社オーシャンリンク", "合同会社フォレストワークス",
		"株式会社中野ホールディングス", "株式会社ジェイ・プラン", "株式会社やまびこ", "大阪機材株式会社",
	},
	addresses: []string{
		"千葉県船橋市本町1-3-1", "京都府京都市下京区四条通烏丸東入長刀鉾町20", "北海道札幌市中央区北4条西5-1",
		"茨城県水戸市南町2-5-5", "福岡県福岡市中央区天神1-10-20", "広島県広島市中区紙屋町1-3-8",
		"長野県長野市南長野新田町1282",
	},
	// Branch names and codes as the zengin tables have them.
	banks: []bank{
		{"千葉銀行", [][2]string{{"本店営業部", "100"}, {"船橋", "015"}, {"柏", "008"}}},
		{"京都銀行", [][2]string{{"本店営業部", "101"}, {"四条", "111"}}},
		{"常陽銀行", [][2]string{{"本店営業部", "004"}}},
		{"西日本シティ銀行", [][2]string{{"本店営業部", "010"}, {"天神", "001"}}},
		{"北洋銀行", [][2]string{{"本店営業部", "028"}}},
		{"広島銀行", [][2]string{{"本店営業部", "001"}}},
		{"楽天銀行", [][2]string{{"第一営業", "251"}}},
		{"みずほ銀行", [][2]string{{"新宿", "211"}}},
	},
	items10: []priced{
		{"清掃業務委託費（3月分）", 88000}, {"LED照明器具 交換工事", 46200}, {"名刺印刷 100枚", 1650},
		{"クラウドストレージ 年額", 26400}, {"デザイン制作費", 165000}, {"交通費実費", 3280},
		{"レンタルサーバー（月額）", 5500}, {"作業員派遣（人日）", 28000},
	},
	items8: []priced{
		{"リンゴ 5kg", 3980}, {"冷凍ギョーザ 50個入", 2160}, {"オレンジジュース 1L×12", 2980},
		{"米 10kg", 4580}, {"会議用茶菓子", 1540},
	},
}

// String is the set's name.
func (s Set) String() string { return string(s) }

// ParseSet reads a set's name.
func ParseSet(name string) (Set, error) {
	for _, s := range Sets {
		if string(s) == name {
			return s, nil
		}
	}
	return "", fmt.Errorf("invoicegen: unknown set %q (generator or holdout)", name)
}
