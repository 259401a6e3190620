// Package invoicegen makes realistic Japanese invoices with known true fields, for
// measuring the OCR and extraction (task ocr:accuracy) and for the OCR tests. It renders
// the forms suppliers really print — 株式会社 before or after the name, (株) and ㈱,
// Western and 和暦 dates, ¥/￥/円/円也 amounts, 8 % and 10 % breakdowns, TEL and FAX
// numbers, ゆうちょ branches as 〇一八店, holder names in full- or half-width kana, a red
// seal over the issuer — as a text PDF and as the scans, faxes and phone photos buyers
// upload. Everything is drawn from one seed, so a failing case can be made again.
package invoicegen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"cardpay/pay"
)

// Truth is one invoice's true content: the values an extractor should read, in the
// forms invoiceread.Fields uses (dates "2006-01-02", yen as int64, the holder in the
// zengin form of pay.NormalizeHolderName), and beside them the strings as printed.
type Truth struct {
	Seed int64 // the generator's seed and the invoice's index make it again
	N    int

	IssuerName         string // canonical: 株式会社 spelled out, no spaces
	IssuerPrinted      string // as printed: (株)山田商事, 山田商事株式会社 …
	IssuerKana         string // the name's furigana without its form, as the NTA registry has it
	IssuerAddress      string
	RegistrationNumber string // "T" + 13 digits with a valid check digit
	TEL, FAX           string

	Addressee       string // the buyer's company, without 御中 / 様
	AddresseeSuffix string // 御中 or 様

	InvoiceNumber   string
	InvoiceDate     string // 2006-01-02
	DueDate         string
	InvoiceDateText string // as printed: 2026年1月5日, R8.1.5 …
	DueDateText     string

	Items      []Item
	Subtotal10 int64 // 10 % の対象（税抜）
	Subtotal8  int64 // 8 % の対象（税抜、軽減税率）
	Tax10      int64
	Tax8       int64
	Subtotal   int64
	Tax        int64
	Total      int64
	TotalText  string // as printed in the amount box: ¥1,234 / ￥1,234- / 1,234円 / 金 1,234 円也

	BankName      string // みずほ銀行, ゆうちょ銀行 …
	BranchName    string // without 支店 / 店: 渋谷, 〇一八
	BranchCode    string // 3 digits
	BranchPrinted string // 渋谷支店, 〇一八店
	AccountType   pay.AccountType
	AccountNumber string // 7 digits
	AccountHolder string // zengin form (half-width), as pay.NormalizeHolderName gives it
	HolderPrinted string // full- or half-width kana as printed

	Seal bool // a red 角印 drawn over the issuer name

	Holdout bool // drawn by a holdout generator (NewHoldout): other names, banks and forms

	// The forms the dates and the amount are printed in (DateForms, AmountForms): the
	// supplier's next invoice (Next) prints them alike.
	InvoiceDateForm, DueDateForm, TotalForm int
}

// Item is one line of the invoice.
type Item struct {
	Name      string
	Quantity  int64
	UnitPrice int64
	Amount    int64
	Reduced   bool // 8 % (軽減税率), marked ※ on the invoice
}

// Generator makes invoices from a seed; the same seed gives the same invoices in the
// same order. It is not safe for concurrent use.
type Generator struct {
	seed    int64
	n       int
	rng     *rand.Rand
	holdout bool
}

// New returns a generator whose invoices and degradations all follow from seed.
func New(seed int64) *Generator {
	return &Generator{seed: seed, rng: rand.New(rand.NewPCG(uint64(seed), 0x5eed1ce))}
}

type company struct{ name, kana string }

// entity is a company form: 株式会社, 有限会社 or 合同会社, with the abbreviations
// invoices print and the one banks put in the holder's kana (カ, ユ, ド).
type entity struct {
	form    string
	abbrevs []string
	kana    string
}

var kabushiki = entity{"株式会社", []string{"株式会社", "株式会社", "株式会社", "(株)", "㈱", "（株）"}, "カ"}

// Issuers and buyers: names with their kana as banks register them (small kana large).
var companies = []company{
	{"山田商事", "ヤマダシヨウジ"}, {"青葉産業", "アオバサンギヨウ"}, {"東和電機", "トウワデンキ"},
	{"北斗システム", "ホクトシステム"}, {"さくら物流", "サクラブツリユウ"}, {"日本橋印刷", "ニホンバシインサツ"},
	{"富士見建設", "フジミケンセツ"}, {"三和工業", "サンワコウギヨウ"}, {"ひかり食品", "ヒカリシヨクヒン"},
	{"中央技研", "チユウオウギケン"}, {"丸菱トレーディング", "マルビシトレ-デイング"}, {"大和精工", "ヤマトセイコウ"},
	{"みなと企画", "ミナトキカク"}, {"広瀬製作所", "ヒロセセイサクシヨ"}, {"緑川フーズ", "ミドリカワフ-ズ"},
	{"つばさ情報サービス", "ツバサジヨウホウサ-ビス"},
}

var buyers = []string{
	"株式会社ネクストリンク", "有限会社松本工務店", "株式会社アルファ設計", "合同会社ブルーオーシャン",
	"株式会社高橋製作所", "株式会社エムケイ商会", "株式会社しずく", "東京物産株式会社",
	"株式会社グリーンフィールド", "株式会社小林運輸",
}

var addresses = []string{
	"東京都渋谷区渋谷2-15-1", "東京都千代田区丸の内1-6-5", "大阪府大阪市北区梅田3-1-3",
	"神奈川県横浜市西区みなとみらい2-2-1", "愛知県名古屋市中村区名駅4-7-1", "福岡県福岡市博多区博多駅前2-1-1",
	"埼玉県さいたま市大宮区桜木町1-7-5", "静岡県静岡市葵区黒金町49",
}

type bank struct {
	name     string
	branches [][2]string // name (without 支店), code
}

var banksList = []bank{
	{"みずほ銀行", [][2]string{{"渋谷", "210"}, {"新宿", "211"}, {"丸の内", "110"}, {"横浜", "374"}}},
	{"三菱UFJ銀行", [][2]string{{"本店", "001"}, {"新宿", "006"}, {"梅田", "411"}, {"名古屋営業部", "251"}}},
	{"三井住友銀行", [][2]string{{"東京営業部", "001"}, {"渋谷", "654"}, {"大阪本店営業部", "101"}}},
	{"りそな銀行", [][2]string{{"東京営業部", "101"}, {"新宿", "115"}, {"大宮", "701"}}},
	{"横浜銀行", [][2]string{{"本店営業部", "100"}, {"川崎", "301"}}},
	{"静岡銀行", [][2]string{{"本店営業部", "101"}, {"浜松", "300"}}},
	{"福岡銀行", [][2]string{{"本店営業部", "101"}, {"博多駅前", "125"}}},
}

// ゆうちょ銀行 branches for transfers from other banks are named by their three-digit
// code in kanji numerals (〇一八 = 018).
var yuchoBranches = [][2]string{{"〇一八", "018"}, {"〇二八", "028"}, {"〇四八", "048"}, {"一〇八", "108"}, {"四〇八", "408"}}

var items10 = []struct {
	name  string
	price int64
}{
	{"コピー用紙 A4 500枚×5冊", 2480}, {"トナーカートリッジ", 12800}, {"保守サービス料（月額）", 33000},
	{"配送料", 1100}, {"ボールペン 黒 10本入", 980}, {"システム利用料", 50000}, {"作業費", 15000},
	{"ファイルボックス", 640}, {"出張費", 8000}, {"Webサイト更新作業", 120000},
}

var items8 = []struct {
	name  string
	price int64
}{
	{"コーヒー豆 200g", 1380}, {"緑茶ティーバッグ 50袋", 860}, {"お弁当（会議用）", 780},
	{"ミネラルウォーター 2L×6本", 1200}, {"焼菓子詰合せ", 3240}, {"牛乳 1L", 230},
}

func (g *Generator) pick(n int) int        { return g.rng.IntN(n) }
func (g *Generator) chance(p float64) bool { return g.rng.Float64() < p }

// Invoice draws the next invoice.
func (g *Generator) Invoice() Truth {
	g.n++
	t := Truth{Seed: g.seed, N: g.n}

	pool := g.pool()
	c := pool.companies[g.pick(len(pool.companies))]
	t.IssuerKana = c.kana
	ent := kabushiki
	if g.holdout {
		ent = holdoutEntities[g.pick(len(holdoutEntities))]
	}
	after := g.chance(0.3)
	if after {
		t.IssuerName = c.name + ent.form
	} else {
		t.IssuerName = ent.form + c.name
	}
	abbr := ent.abbrevs[g.pick(len(ent.abbrevs))]
	if after {
		t.IssuerPrinted = c.name + abbr
	} else if abbr == ent.form && g.chance(0.3) {
		t.IssuerPrinted = ent.form + " " + c.name
	} else {
		t.IssuerPrinted = abbr + c.name
	}
	t.IssuerAddress = "〒" + fmt.Sprintf("%03d-%04d ", 100+g.pick(800), g.pick(10000)) + pool.addresses[g.pick(len(pool.addresses))]
	t.RegistrationNumber = "T" + g.corporateNumber()
	area := []string{"03", "06", "045", "052", "092", "048", "054"}[g.pick(7)]
	local := 8 - len(area) + 2 // 10 digits in all
	mid := fmt.Sprintf("%0*d", local-4, g.pick(pow10(local-4)))
	last := g.pick(9000) + 1000
	t.TEL = fmt.Sprintf("%s-%s-%04d", area, mid, last)
	t.FAX = fmt.Sprintf("%s-%s-%04d", area, mid, last+1-2*g.pick(2))

	t.Addressee = pool.buyers[g.pick(len(pool.buyers))]
	t.AddresseeSuffix = []string{"御中", "御中", "様"}[g.pick(3)]
	t.InvoiceNumber = fmt.Sprintf("%s-%04d%02d-%03d", []string{"INV", "No", "SI"}[g.pick(3)], 2025+g.pick(2), 1+g.pick(12), g.pick(1000))

	start := time.Date(2025, 4, 1, 0, 0, 0, 0, time.UTC)
	issued := start.AddDate(0, 0, g.pick(640))
	var due time.Time
	switch {
	case g.holdout && g.chance(0.3): // 月末締め翌々月10日払い
		due = time.Date(issued.Year(), issued.Month()+2, 10, 0, 0, 0, 0, time.UTC)
	case g.chance(0.6): // 月末締め翌月末払い
		due = time.Date(issued.Year(), issued.Month()+2, 0, 0, 0, 0, 0, time.UTC)
	default:
		due = issued.AddDate(0, 0, []int{14, 30, 45, 60}[g.pick(4)])
	}
	forms := len(DateForms)
	if g.holdout {
		forms += len(HoldoutDateForms)
	}
	t.InvoiceDateForm = g.pick(forms)
	t.DueDateForm = t.InvoiceDateForm
	if g.chance(0.3) {
		t.DueDateForm = g.pick(forms)
	}
	g.dates(&t, issued, due)
	g.bill(&t, pool)
	amountForms := len(AmountForms)
	if g.holdout {
		amountForms += len(HoldoutAmountForms)
	}
	t.TotalForm = g.pick(amountForms)
	t.TotalText = amountText(t.Total, t.TotalForm)

	if g.chance(0.2) {
		t.BankName = "ゆうちょ銀行"
		b := yuchoBranches[g.pick(len(yuchoBranches))]
		t.BranchName, t.BranchCode, t.BranchPrinted = b[0], b[1], b[0]+"店"
		t.AccountType = pay.AccountOrdinary
	} else {
		b := pool.banks[g.pick(len(pool.banks))]
		br := b.branches[g.pick(len(b.branches))]
		t.BankName, t.BranchName, t.BranchCode = b.name, br[0], br[1]
		t.BranchPrinted = br[0]
		if !strings.HasSuffix(br[0], "営業部") && br[0] != "本店" {
			t.BranchPrinted += "支店"
		}
		t.AccountType = pay.AccountOrdinary
		if g.chance(0.2) {
			t.AccountType = pay.AccountCurrent
		}
	}
	t.AccountNumber = fmt.Sprintf("%07d", g.pick(10_000_000))
	holder := ent.kana + "）" + c.kana
	if after {
		holder = c.kana + "（" + ent.kana
	}
	if g.holdout && g.chance(0.3) {
		// As the supplier spells it: small kana and long marks, full-width.
		t.HolderPrinted = holder
	} else if g.chance(0.35) {
		hw, err := pay.NormalizeHolderName(holder)
		if err != nil {
			panic("invoicegen: holder " + holder + ": " + err.Error())
		}
		t.HolderPrinted = hw
	} else {
		t.HolderPrinted = holder
	}
	zengin, err := pay.NormalizeHolderName(holder)
	if err != nil {
		panic("invoicegen: holder " + holder + ": " + err.Error())
	}
	t.AccountHolder = zengin
	t.Seal = g.chance(0.5)
	t.Holdout = g.holdout
	return t
}

// dates sets the invoice's dates and prints them in t's forms.
func (g *Generator) dates(t *Truth, issued, due time.Time) {
	t.InvoiceDate, t.DueDate = issued.Format(time.DateOnly), due.Format(time.DateOnly)
	t.InvoiceDateText = dateText(issued, t.InvoiceDateForm)
	t.DueDateText = dateText(due, t.DueDateForm)
}

// bill draws the items and adds them up.
func (g *Generator) bill(t *Truth, pool *pool) {
	t.Items, t.Subtotal10, t.Subtotal8 = nil, 0, 0
	n := 1 + g.pick(6)
	withReduced := g.chance(0.5)
	for i := 0; i < n; i++ {
		var it Item
		if withReduced && (i%2 == 1 || (i == 0 && g.chance(0.3))) {
			p := pool.items8[g.pick(len(pool.items8))]
			it = Item{Name: p.name, UnitPrice: p.price, Reduced: true}
		} else {
			p := pool.items10[g.pick(len(pool.items10))]
			it = Item{Name: p.name, UnitPrice: p.price}
		}
		it.Quantity = int64(1 + g.pick(12))
		it.Amount = it.Quantity * it.UnitPrice
		t.Items = append(t.Items, it)
		if it.Reduced {
			t.Subtotal8 += it.Amount
		} else {
			t.Subtotal10 += it.Amount
		}
	}
	// One rounding per rate, per invoice (the インボイス rule); down, as most do.
	t.Tax10 = t.Subtotal10 * 10 / 100
	t.Tax8 = t.Subtotal8 * 8 / 100
	t.Subtotal = t.Subtotal10 + t.Subtotal8
	t.Tax = t.Tax10 + t.Tax8
	t.Total = t.Subtotal + t.Tax
}

// Next is the supplier's next invoice after t: the same issuer, addressee, bank account,
// seal and forms (a supplier prints its invoices alike), a month later, with other
// items and so another total and another number.
func (g *Generator) Next(t Truth) Truth {
	g.n++
	next := t
	next.N = g.n
	next.InvoiceNumber = fmt.Sprintf("%s-%04d%02d-%03d", strings.SplitN(t.InvoiceNumber, "-", 2)[0], 2025+g.pick(2), 1+g.pick(12), g.pick(1000))
	issued, _ := time.Parse(time.DateOnly, t.InvoiceDate)
	due, _ := time.Parse(time.DateOnly, t.DueDate)
	nextDue := due.AddDate(0, 1, 0)
	if due.AddDate(0, 0, 1).Day() == 1 { // 月末払い stays at the month's end
		nextDue = time.Date(due.Year(), due.Month()+2, 0, 0, 0, 0, 0, time.UTC)
	}
	g.dates(&next, issued.AddDate(0, 1, 0), nextDue)
	g.bill(&next, g.pool())
	next.TotalText = amountText(next.Total, t.TotalForm)
	return next
}

// corporateNumber draws 12 digits and puts the check digit in front.
func (g *Generator) corporateNumber() string {
	base := fmt.Sprintf("%d%011d", 1+g.pick(9), g.rng.Int64N(100_000_000_000))
	check, ok := pay.CorporateCheckDigit(base)
	if !ok {
		panic("invoicegen: bad corporate number base " + base)
	}
	return fmt.Sprintf("%d%s", check, base)
}

func pow10(n int) int {
	p := 1
	for range n {
		p *= 10
	}
	return p
}

// DateForms are the ways invoices print a date, in the order dateText takes them.
var DateForms = []string{"2026年1月5日", "2026/1/5", "令和8年1月5日", "R8.1.5", "2026.01.05"}

// HoldoutDateForms are the further date forms of the holdout set (NewHoldout), taken by
// dateText after DateForms: ISO, zero-padded 年月日 and 和暦 in full-width digits.
var HoldoutDateForms = []string{"2026-01-05", "2026年01月05日", "令和８年１月５日"}

func dateText(d time.Time, form int) string {
	y, m, day := d.Date()
	reiwa := y - 2018
	switch form {
	case 5:
		return d.Format(time.DateOnly)
	case 6:
		return fmt.Sprintf("%d年%02d月%02d日", y, m, day)
	case 7:
		return fullWidthDigits(fmt.Sprintf("令和%d年%d月%d日", reiwa, m, day))
	case 0:
		return fmt.Sprintf("%d年%d月%d日", y, m, day)
	case 1:
		return fmt.Sprintf("%d/%d/%d", y, m, day)
	case 2:
		return fmt.Sprintf("令和%d年%d月%d日", reiwa, m, day)
	case 3:
		return fmt.Sprintf("R%d.%d.%d", reiwa, m, day)
	default: // 4
		return fmt.Sprintf("%d.%02d.%02d", y, m, day)
	}
}

// AmountForms are the ways the amount due is printed, in the order amountText takes them.
var AmountForms = []string{"¥1,234", "￥1,234-", "1,234円", "金 1,234 円也", "¥1,234（税込）"}

// HoldoutAmountForms are the further amount forms of the holdout set, after AmountForms.
var HoldoutAmountForms = []string{"金1,234円（税込）", "¥1,234.-", "１，２３４円"}

func amountText(v int64, form int) string {
	s := Yen(v)
	switch form {
	case 5:
		return "金" + s + "円（税込）"
	case 6:
		return "¥" + s + ".-"
	case 7:
		return fullWidthDigits(s) + "円"
	case 0:
		return "¥" + s
	case 1:
		return "￥" + s + "-"
	case 2:
		return s + "円"
	case 3:
		return "金 " + s + " 円也"
	default: // 4
		return "¥" + s + "（税込）"
	}
}

// Yen writes v with thousands commas.
func Yen(v int64) string {
	s := fmt.Sprint(v)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fullWidthDigits writes the ASCII digits and commas of s full-width (１，２３４).
func fullWidthDigits(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= '0' && r <= '9':
			return r - '0' + '０'
		case r == ',':
			return '，'
		}
		return r
	}, s)
}
