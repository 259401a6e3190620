// Package invoiceread reads the fields a payment needs out of an invoice's text: the
// issuer and its registration number, the dates, the total and tax, the addressee and
// the account to pay into. It is pure rules on text (OCR or a PDF's text layer comes in
// as lines with a confidence each): no tool, no storage, so every rule is a table test.
// Match then finds what was read among the buyer's suppliers and the banks, and Evidence
// compares what the buyer entered with the invoice before a payment goes to screening.
package invoiceread

import (
	"fmt"
	"image"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/width"

	"cardpay/banks"
	"cardpay/pay"
)

// Line is one line of text with the confidence (0..1) of the OCR that read it; a PDF's
// text layer is certain (1).
type Line struct {
	Text       string
	Confidence float64
	// Page, Box and Words place an OCR line on the page image it was read from (all
	// empty for a PDF's text layer): where Rereads asks for a field to be read again.
	Page  int
	Box   image.Rectangle
	Words []Word
}

// Word is one of OCR's words with its box on the page image.
type Word struct {
	Text string
	Box  image.Rectangle
}

// Field is one value read from the invoice. Confidence is the line's OCR confidence times
// how sure the rule that found it is (a label next to it, or a guess from its shape).
type Field[T any] struct {
	Value      T       `json:"value"`
	Confidence float64 `json:"confidence"`
	Found      bool    `json:"found"`
}

// Fields are what Extract reads. Dates are "2006-01-02", amounts yen, AccountType pay's
// codes (2 普通, 1 当座), AccountNumber seven digits, AccountHolder in the zengin
// half-width form of pay.NormalizeHolderName.
type Fields struct {
	IssuerName         Field[string] `json:"issuer_name"`
	RegistrationNumber Field[string] `json:"registration_number"`
	// IssuerFromRegistry: IssuerName is the registry's name for the corporate number in
	// RegistrationNumber (UseRegisteredIssuer), not the name read.
	IssuerFromRegistry bool          `json:"issuer_from_registry,omitempty"`
	InvoiceDate        Field[string] `json:"invoice_date"`
	DueDate            Field[string] `json:"due_date"`
	Total              Field[int64]  `json:"total"`
	Tax                Field[int64]  `json:"tax"`
	// Addressee is the 宛名 without its honorific; AddresseeHonorific says which one
	// was printed (御中 for a company or department, 様 for a person).
	Addressee          Field[string] `json:"addressee"`
	AddresseeHonorific string        `json:"addressee_honorific,omitempty"`
	BankName           Field[string] `json:"bank_name"`
	BranchName         Field[string] `json:"branch_name"`
	// BranchCode is set when the invoice prints the branch's number: ゆうちょ's 記号 and
	// 〇一八店, or a number after the branch name.
	BranchCode    Field[string]          `json:"branch_code"`
	AccountType   Field[pay.AccountType] `json:"account_type"`
	AccountNumber Field[string]          `json:"account_number"`
	AccountHolder Field[string]          `json:"account_holder"`
	// RegistrationCandidates are the corporate numbers a registration number read with
	// a digit wrong may be (registrationCandidates), for ChooseRegistration; not kept.
	RegistrationCandidates []string `json:"-"`
}

// How sure each kind of rule is, before the line's own confidence.
const (
	sureLabel     = 0.95 // the value right after its label
	sureNextLine  = 0.9  // factor when the value is on a line below its label
	sureShape     = 0.85 // a value whose form says what it is (T-number, 御中, 記号番号)
	surePosition  = 0.75 // found where invoices put it (the kana after an account number)
	sureGuess     = 0.5  // no label: the largest ¥ amount, the first date
	nextLineReach = 3    // lines below a label searched for its value
)

type labelDef struct {
	field string
	rank  int // for totals: 3 billed amount, 2 taxed total, 1 plain 合計
}

// labels are the words invoices print before values, by field. Words that are not
// wanted (小計, TEL, 振込先) are labels too: they end the value of the label before them.
var labels = map[string]labelDef{}

func addLabels(field string, rank int, words ...string) {
	for _, w := range words {
		labels[w] = labelDef{field, rank}
	}
}

func init() {
	addLabels("total", 3, "ご請求金額", "御請求金額", "請求金額", "ご請求額", "御請求額", "請求額",
		"今回ご請求額", "今回ご請求金額", "今回請求額", "ご請求合計", "お支払金額", "お支払い金額", "御支払金額", "支払金額")
	addLabels("total", 2, "税込合計", "税込合計金額", "総合計", "合計金額", "合計額", "総額", "税込金額", "合計(税込)")
	addLabels("total", 1, "合計")
	addLabels("other", 0, "小計", "税抜合計", "税抜金額", "対象金額", "対象額", "税抜", "本体価格", "単価", "数量", "前回ご請求額", "ご入金額", "繰越金額")
	addLabels("tax", 0, "消費税", "消費税等", "消費税額", "消費税額等", "内消費税", "うち消費税", "内税", "税額",
		"消費税合計", "消費税額合計", "消費税額計", "消費税計")
	addLabels("invoice_date", 0, "請求日", "請求書発行日", "発行日", "請求年月日", "発行年月日", "請求書日付", "日付")
	addLabels("due", 0, "支払期日", "お支払期日", "お支払い期日", "御支払期日", "支払期限", "お支払期限", "お支払い期限",
		"お振込期限", "お振込み期限", "振込期限", "お振込期日", "振込期日", "支払予定日", "お支払日", "お支払い日", "支払日", "お振込日",
		// What OCR leaves of お支払期限 when it loses the last characters in a ruled cell.
		"お支払", "お支払い",
		// And of お振込期日 with its first characters misread (お畠入期日). 期日 alone is
		// no label: 「期日までにお振込みください」.
		"込期日", "入期日", "込期限")
	addLabels("account_number", 0, "口座番号", "口座No", "口座NO", "口座No.")
	addLabels("holder", 0, "口座名義", "口座名義人", "名義人", "名義", "口座名", "受取人名", "受取人")
	addLabels("phone", 0, "TEL", "Tel", "tel", "FAX", "Fax", "fax", "電話番号", "電話", "携帯")
	addLabels("registration", 0, "登録番号", "適格請求書発行事業者登録番号", "インボイス登録番号", "事業者登録番号")
	addLabels("bank", 0, "振込先", "お振込先", "お振込み先", "振込口座", "お振込口座", "銀行名", "金融機関名", "金融機関")
	addLabels("branch", 0, "支店名")
	addLabels("type", 0, "預金種目", "預金種別", "口座種別", "種別", "科目")
	addLabels("issuer", 0, "発行元", "請求元", "発行者", "請求者", "差出人")
	addLabels("addressee", 0, "宛名", "請求先", "ご請求先")
	words := make([]string, 0, len(labels))
	for w := range labels {
		words = append(words, w)
	}
	labelRe = regexp.MustCompile(alternation(words))
}

var labelRe *regexp.Regexp

// labelRepair puts back the 口 of 口座 that OCR reads as 日 or as the katakana ロ (both
// the same bytes long, so the label's place on the line stays): no word of an invoice
// begins with 日座 or ロ座, and read so the account's number and holder labels are lost
// (a holdout ledger's header row 「日座番号 日座名義」).
var labelRepair = strings.NewReplacer("日座", "口座", "ロ座", "口座")

type hit struct {
	labelDef
	start, end int
	seg        string // the text from the label to the next label on the line
}

type line struct {
	text string
	conf float64
	hits []hit
	src  int // the index of the Line it came from
}

func prepare(text string, in []Line) []line {
	if len(in) == 0 {
		for _, t := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\f' || r == '\r' }) {
			in = append(in, Line{Text: t, Confidence: 1})
		}
	}
	out := make([]line, 0, len(in))
	for src, l := range in {
		t := labelRepair.Replace(strings.TrimSpace(norm(l.Text)))
		if t == "" {
			continue
		}
		c := min(max(l.Confidence, 0), 1)
		ln := line{text: t, conf: c, src: src}
		ms := labelRe.FindAllStringIndex(t, -1)
		for i, m := range ms {
			def := labels[removeSpaces(t[m[0]:m[1]])]
			// A phone label glued to a word (Total) is no label.
			if def.field == "phone" && m[0] > 0 && isASCIILetter(t[m[0]-1]) {
				continue
			}
			end := len(t)
			if i+1 < len(ms) {
				end = ms[i+1][0]
			}
			// A label in brackets against the one before it qualifies that one
			// (対象金額(税抜)): no column of its own, or a header row's values go one
			// column off (the tax taking the next cell's value).
			if k := len(ln.hits) - 1; k >= 0 && m[0] > 0 && t[m[0]-1] == '(' && ln.hits[k].end == m[0]-1 {
				ln.hits[k].seg = t[ln.hits[k].end:end]
				continue
			}
			// Two labels of a field written as one (請求額合計 is 請求額 and 合計): one
			// label, of the higher rank. Apart, the first had no value of its own and
			// took the next line's.
			if k := len(ln.hits) - 1; k >= 0 && ln.hits[k].end == m[0] && ln.hits[k].field == def.field {
				ln.hits[k].end, ln.hits[k].rank, ln.hits[k].seg = m[1], max(ln.hits[k].rank, def.rank), t[m[1]:end]
				continue
			}
			ln.hits = append(ln.hits, hit{labelDef: def, start: m[0], end: m[1], seg: t[m[1]:end]})
		}
		out = append(out, ln)
	}
	return out
}

func isASCIILetter(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }

// Extract reads the fields of an invoice from its text. lines, when given, are OCR's
// lines with their confidences (text is then only their join); without them text is
// split into lines read with certainty.
func Extract(text string, lines []Line) Fields {
	ls := prepare(text, lines)
	var f Fields
	readAmountsAndDates(ls, &f)
	readRegistration(ls, &f)
	if !f.RegistrationNumber.Found {
		f.RegistrationCandidates = registrationCandidates(ls)
	}
	readAddressee(ls, &f)
	readIssuer(ls, &f)
	guessAddressee(ls, &f)
	readAccount(ls, &f)
	issuerByHolder(&f)
	restoreHolderMark(&f)
	holderByIssuer(&f)
	return f
}

// nameKanaRe is a run of kana in a name (ことぶき of ことぶき観光, ファーム of 白樺ファーム).
var nameKanaRe = regexp.MustCompile(`[\p{Hiragana}\p{Katakana}ー]{2,}`)

// holderByIssuer puts back in the holder the voiced, semi-voiced and long marks OCR
// confused or lost (ｺﾄﾌﾟｷ for ｺﾄﾌﾞｷ, ﾌｱﾑ for ﾌｱ-ﾑ, ﾂﾊｻ for ﾂﾊﾞｻ) from the kana of the
// issuer's own name: the account is held in the issuer's name, and the kana it writes its
// name with spell the holder's exactly. Only a part of the holder that reads as the
// name's kana but for those marks is respelt; a holder that is some other name stays as
// read. (The kanji of a name would need a reading dictionary.)
func holderByIssuer(f *Fields) {
	if !f.AccountHolder.Found || !f.IssuerName.Found {
		return
	}
	h := f.AccountHolder.Value
	for _, z := range holderKana(f.IssuerName.Value) {
		if len(skeleton([]rune(z))) >= 3 {
			h = respell(h, z)
		}
	}
	f.AccountHolder.Value = h
}

// holderKana are the kana runs of a name written as a zengin holder writes them
// (白樺ファーム: ﾌｱ-ﾑ), for comparing a name with its account's holder.
func holderKana(name string) []string {
	var out []string
	for _, part := range nameKanaRe.FindAllString(name, -1) {
		if z, err := pay.NormalizeHolderName(part); err == nil {
			out = append(out, z)
		}
	}
	return out
}

// isKanaMark says whether r is a mark that OCR drops or confuses in a half-width holder:
// the voiced and semi-voiced marks and the long mark (zengin's -).
func isKanaMark(r rune) bool { return r == 'ﾞ' || r == 'ﾟ' || r == '-' }

// skeleton is rs without its kana marks.
func skeleton(rs []rune) []rune {
	return slices.DeleteFunc(slices.Clone(rs), isKanaMark)
}

// respell replaces the first run of holder h that is z but for its kana marks with z.
func respell(h, z string) string {
	hr := []rune(h)
	var skel []rune
	var at []int // where each rune of skel is in hr
	for i, r := range hr {
		if !isKanaMark(r) {
			skel, at = append(skel, r), append(at, i)
		}
	}
	zs := skeleton([]rune(z))
	for k := 0; k+len(zs) <= len(skel); k++ {
		if !slices.Equal(skel[k:k+len(zs)], zs) {
			continue
		}
		from, to := at[k], at[k+len(zs)-1]+1
		for to < len(hr) && isKanaMark(hr[to]) {
			to++ // the marks of the run's last kana, z's own
		}
		return string(hr[:from]) + z + string(hr[to:])
	}
	// Then a run that is z with one kana too many inside it (ﾂﾊﾞﾊﾟｻ for ﾂﾊﾞｻ: a photo's
	// kana read twice, once voiced and once semi-voiced); its first and last are z's.
	for k := 0; k+len(zs)+1 <= len(skel); k++ {
		w := skel[k : k+len(zs)+1]
		for j := 1; j < len(zs); j++ {
			if !slices.Equal(w[:j], zs[:j]) || !slices.Equal(w[j+1:], zs[j:]) {
				continue
			}
			from, to := at[k], at[k+len(zs)]+1
			for to < len(hr) && isKanaMark(hr[to]) {
				to++
			}
			return string(hr[:from]) + z + string(hr[to:])
		}
	}
	return h
}

// restoreHolderMark puts back the legal-form mark OCR lost from a holder's bracket
// (")ﾋｶﾘｼﾖｸﾋﾝ", "ﾎｸﾄｼｽﾃﾑ(") or read as another form's (ｶ)ﾄｳﾎｳｷﾔﾘｱ of a 有限会社): the
// issuer's own name says which (株式会社 ｶ, 有限会社 ﾕ, 合同会社 ﾄﾞ), before the holder's
// name when it is before the issuer's, after it when after. The value is a little less
// sure for it.
func restoreHolderMark(f *Fields) {
	h, issuer := f.AccountHolder.Value, f.IssuerName.Value
	if !f.AccountHolder.Found || !f.IssuerName.Found {
		return
	}
	forms := holderForms
	// A mark read as another form's (ｶ) for ﾕ), the half-width kana a few dots apart):
	// the issuer's form, read as four kanji, is the surer; its account is in its name.
	// Not when the issuer's kana are not the holder's (株式会社やまびこ over ﾕ)ﾄｳﾎｳｷﾔﾘｱ):
	// the name read is another company's, the addressee's whose 様 was lost.
	for _, form := range forms {
		if !strings.HasPrefix(issuer, form.name) || strings.HasPrefix(h, form.kana+")") || kanaAgreement(issuer, h) < 0 {
			continue
		}
		for _, other := range forms {
			if rest, ok := strings.CutPrefix(h, other.kana+")"); ok && other != form {
				f.AccountHolder.Value, f.AccountHolder.Confidence = form.kana+")"+rest, round2(f.AccountHolder.Confidence*0.9)
				return
			}
		}
	}
	for _, form := range forms {
		switch {
		case strings.HasPrefix(h, ")") && strings.Contains(issuer, form.name):
			// Where the issuer prints its form does not say where its account's holder
			// does (三和工業株式会社's ｶ)ｻﾝﾜｺｳｷﾞﾖｳ): the bracket does.
			h = form.kana + h
		case !strings.ContainsAny(h, "()") && strings.HasPrefix(issuer, form.name) && strings.HasPrefix(h, form.kana+"ﾘ") &&
			!startsKari(strings.TrimPrefix(issuer, form.name)):
			// The bracket read as ﾘ, the kana it looks like (ｶﾘﾂﾊﾞｻ for ｶ)ﾂﾊﾞｻ on a fax):
			// a 株式会社's account is ｶ) and its name, unless the name starts with カリ.
			h = form.kana + ")" + strings.TrimPrefix(h, form.kana+"ﾘ")
		case !strings.ContainsAny(h, "()") && strings.HasPrefix(issuer, form.name) && bracketReadAsKana(h, form.kana, strings.TrimPrefix(issuer, form.name)):
			// The bracket read as another kana (ｶｶﾂﾊﾞｻ for ｶ)ﾂﾊﾞｻ on a clean image): the
			// name's own kana begin right after it.
			_, rest, _ := strings.Cut(h, form.kana)
			h = form.kana + ")" + string([]rune(rest)[1:])
		case strings.HasSuffix(h, "(") && strings.Contains(issuer, form.name):
			h += form.kana
		default:
			continue
		}
		f.AccountHolder.Value, f.AccountHolder.Confidence = h, round2(f.AccountHolder.Confidence*0.9)
		return
	}
}

// bracketReadAsKana says whether holder h is mark k, one kana that stands for its
// bracket, and then the kana the name (without its form) begins with (ﾂﾊﾞｻ of ツバサ情報
// サービス), not the mark and the name's kana at once (ｶｶﾞﾜ of 加賀和 stays: nothing
// tells). A name that begins with kanji tells nothing.
func bracketReadAsKana(h, k, name string) bool {
	rest, ok := strings.CutPrefix(h, k)
	if !ok {
		return false
	}
	name = strings.TrimSpace(name)
	first := nameKanaRe.FindString(name)
	if first == "" || !strings.HasPrefix(name, first) {
		return false
	}
	kana := holderKana(first)
	if len(kana) == 0 || strings.HasPrefix(rest, kana[0]) {
		return false
	}
	rs := []rune(rest)
	return len(rs) > 1 && !isKanaMark(rs[1]) && strings.HasPrefix(string(rs[1:]), kana[0])
}

// startsKari says whether a name starts with カリ (かり, ｶﾘ): its holder does too.
func startsKari(name string) bool {
	name = fullKana(strings.TrimSpace(name))
	return strings.HasPrefix(name, "カリ") || strings.HasPrefix(name, "かり")
}

// guessAddressee reads the addressee whose 御中 or 様 OCR did not read (株式会社サンプル tk):
// the first other company at the head of the invoice, where the addressee is printed,
// at a guess.
func guessAddressee(ls []line, f *Fields) {
	if f.Addressee.Found || !f.IssuerName.Found {
		return
	}
	issuer := nameKey(f.IssuerName.Value)
	for _, ln := range ls[:min(len(ls), 12)] {
		for _, c := range chunks(ln.text) {
			if notIssuerRe.MatchString(c) || sentenceRe.MatchString(c) {
				continue
			}
			if name := companyIn(c); name != "" && nameKey(name) != issuer {
				f.Addressee = found(name, ln.conf*sureGuess)
				return
			}
		}
	}
}

func found[T any](v T, conf float64) Field[T] {
	return Field[T]{Value: v, Confidence: round2(conf), Found: true}
}

func round2(x float64) float64 { return float64(int(x*100+0.5)) / 100 }

// ---- dates ----

var (
	// OCR reads 令 of 令和 as 今, 合, 信, 命 or 冷, and on a fax as any kanji (傘和, 谷和):
	// with 年 and 月 written out, a kanji and 和 before them is 令和 (昭和 aside), never an
	// address (大和1-2-3).
	eraDateRe = regexp.MustCompile(`([令今合信命冷]和|平成|R|H)\s*(\d{1,2}|元)\s*[年./-]\s*(\d{1,2})\s*[月./-]\s*(\d{1,2})\s*日?|([^\P{Han}昭]和)\s*(\d{1,2}|元)\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日?`)
	// With 年 and 月 written out the day needs no 日 (a fax reads it 唱: 2026年6月30唱);
	// a digit after the day's makes it no date.
	// A speck read as a character between the year and 年 is no more than a speck
	// (2025人年11月19昌 on a photo's ledger).
	kanjiDate = regexp.MustCompile(`(\d{4})\s*[^\d\s年月日]?\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日?`)
	// splitDigitsRe is a month's or a day's two digits OCR set apart (令和8年4月 3 0日).
	splitDigitsRe = regexp.MustCompile(`([年月]\s*)(\d) (\d)(\s*[月日])`)
	numDateRe     = regexp.MustCompile(`(\d{4})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{1,2})`)
	// oneDotDateRe is a zero-padded date of which OCR lost one separator, or read it as a
	// comma (2026.1031, 202603.10, 2026,0831 for 2026.10.31, 2026.03.10, 2026.08.31): the
	// padded month and day still say where they part.
	oneDotDateRe = regexp.MustCompile(`(20\d\d)\s?[/.,-]\s?(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])|(20\d\d)(0[1-9]|1[0-2])\s?[/.,-]\s?(0[1-9]|[12]\d|3[01])`)
)

type dateTok struct {
	value      string
	start, end int
}

// datesIn answers the dates printed in s, in order: 2026年1月5日, 2026/1/5,
// 2026.01.05, 2026-01-05, 令和8年1月5日, R8.1.5 (平成 and H too). A date that does
// not exist (2026/2/30) is not one.
func datesIn(s string) []dateTok {
	// The digits joined and the space put after them: the same length, so the places
	// answered stay the string's.
	s = splitDigitsRe.ReplaceAllString(s, "$1$2$3 $4")
	var out []dateTok
	add := func(start, end, y, m, d int) {
		if y < 2000 || y > 2099 {
			return
		}
		t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
		if t.Year() != y || int(t.Month()) != m || t.Day() != d {
			return
		}
		for _, o := range out {
			if start < o.end && o.start < end {
				return
			}
		}
		out = append(out, dateTok{t.Format("2006-01-02"), start, end})
	}
	for _, m := range eraDateRe.FindAllStringSubmatchIndex(s, -1) {
		if m[2] < 0 { // the second form: a misread 令和
			m = append(m[:2], m[10:]...)
		}
		era := s[m[2]:m[3]]
		if (era == "R" || era == "H") && m[2] > 0 && isASCIILetter(s[m[2]-1]) {
			continue
		}
		n := 1
		if v := s[m[4]:m[5]]; v != "元" {
			n, _ = strconv.Atoi(v)
		}
		base := 2018 // 令和元年 is 2019
		if era == "平成" || era == "H" {
			base = 1988
		}
		mo, _ := strconv.Atoi(s[m[6]:m[7]])
		d, _ := strconv.Atoi(s[m[8]:m[9]])
		add(m[0], m[1], base+n, mo, d)
	}
	for _, re := range []*regexp.Regexp{kanjiDate, numDateRe} {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			if m[0] > 0 && s[m[0]-1] >= '0' && s[m[0]-1] <= '9' || m[1] < len(s) && s[m[1]] >= '0' && s[m[1]] <= '9' {
				continue
			}
			y, _ := strconv.Atoi(s[m[2]:m[3]])
			mo, _ := strconv.Atoi(s[m[4]:m[5]])
			d, _ := strconv.Atoi(s[m[6]:m[7]])
			add(m[0], m[1], y, mo, d)
		}
	}
	for _, m := range oneDotDateRe.FindAllStringSubmatchIndex(s, -1) {
		if m[0] > 0 && s[m[0]-1] >= '0' && s[m[0]-1] <= '9' || m[1] < len(s) && s[m[1]] >= '0' && s[m[1]] <= '9' {
			continue
		}
		if m[2] < 0 { // the second form
			m = append(m[:2], m[8:]...)
		}
		y, _ := strconv.Atoi(s[m[2]:m[3]])
		mo, _ := strconv.Atoi(s[m[4]:m[5]])
		d, _ := strconv.Atoi(s[m[6]:m[7]])
		add(m[0], m[1], y, mo, d)
	}
	// in reading order
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].start < out[j-1].start; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

var anyDateRe = []*regexp.Regexp{eraDateRe, kanjiDate, numDateRe, oneDotDateRe}

// ---- amounts ----

// amountRe reads a yen amount: ¥1,234 / ¥1,234- / 1,234円 / 金1,234円也, with OCR's
// stray spaces around the commas, or its first comma lost (a fax's ¥1454.860 for
// ¥1,454,860, read as 1454 before), or a speck beside a comma read as a dot (金918,.148円
// on a scan, Y130,.680 on a photo). The suffix group catches %, 点, 個 … so that rates
// and quantities are not amounts.
var amountRe = regexp.MustCompile(`(¥|金)?\s*(\d{1,3}(?:\s?[,.]{1,2}\s?\d{3})+|\d{4,6}(?:[,.]\d{3})+|\d+)(\s*(?:円也|円|-|%|点|個|件|枚|本|式|時間|ヶ月|か月|日|月|年|歳|名))?`)

type amountTok struct {
	value      int64
	marked     bool // ¥, 円 or 金 says it is money
	start, end int
}

// accountTypeBeforeRe is an account's type written out at the end of a text: the number
// after it is the account's.
var accountTypeBeforeRe = regexp.MustCompile(`(?:普通|当座)(?:預金)?\s*[:：]?\s*$`)

func amountsIn(s string) []amountTok {
	s = mask(s, append(anyDateRe, phoneRe)...)
	var out []amountTok
	for _, m := range amountRe.FindAllStringSubmatchIndex(s, -1) {
		suffix := ""
		if m[6] >= 0 {
			suffix = strings.TrimSpace(s[m[6]:m[7]])
		}
		switch suffix {
		case "", "円", "円也", "-":
		default:
			continue
		}
		// An item's or a document's code (A-100, SI-202608) is no amount.
		if at := m[4]; m[2] < 0 && at >= 2 && s[at-1] == '-' && isASCIILetter(s[at-2]) {
			continue
		}
		digits := strings.NewReplacer(",", "", ".", "", " ", "").Replace(s[m[4]:m[5]])
		if len(digits) > 12 {
			continue
		}
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			continue
		}
		// The number after 預金 (普通預金 1234567) is the account's: no amount, even
		// after a total's label on the same line (a fax's two columns read as one:
		// 「請求額合計 普通預金9257497」).
		if m[2] >= 0 && s[m[2]:m[3]] == "金" && strings.HasSuffix(s[:m[2]], "預") {
			continue
		}
		// So is an unmarked number after the account's type (a fax's 「御請求額 普通
		// 1224261」, the bank's column read into the total's line).
		if m[2] < 0 && !strings.HasPrefix(suffix, "円") && accountTypeBeforeRe.MatchString(s[:m[4]]) {
			continue
		}
		marked := m[2] >= 0 || strings.HasPrefix(suffix, "円")
		out = append(out, amountTok{value: v, marked: marked, start: m[0], end: m[1]})
	}
	return out
}

var perRateRe = regexp.MustCompile(`\d{1,2}\s*%|軽減|対象`)

type amountCand struct {
	field   string
	rank    int
	value   int64
	conf    float64
	perRate bool
	rateKey string
}

type dateCand struct {
	field string
	value string
	conf  float64
}

// readAmountsAndDates reads every labelled amount and date, then picks the total (the
// highest-ranked label, never 小計 or a per-rate line), the tax (the document's tax line,
// else the sum of the per-rate tax lines) and the two dates.
func readAmountsAndDates(ls []line, f *Fields) {
	var amounts []amountCand
	var dates []dateCand
	for i, ln := range ls {
		var pending []hit
		for _, h := range ln.hits {
			switch kindOf(h.field) {
			case "amount":
				toks := amountsIn(h.seg)
				if len(toks) == 0 {
					pending = append(pending, h)
					continue
				}
				before := ln.text[:h.start] + h.seg[:toks[0].start]
				amounts = append(amounts, amountCand{h.field, h.rank, toks[0].value, ln.conf * sureLabel,
					perRateRe.MatchString(before), rateKey(before)})
			case "date":
				ds := datesIn(h.seg)
				if len(ds) == 0 {
					pending = append(pending, h)
					continue
				}
				dates = append(dates, dateCand{h.field, ds[0].value, ln.conf * sureLabel})
			}
		}
		if len(pending) > 0 {
			a, d := valuesBelow(ls, i, pending)
			amounts = append(amounts, a...)
			dates = append(dates, d...)
		}
	}
	pickTotal(ls, amounts, f)
	pickTax(ls, amounts, f)
	if f.Total.Confidence < sureShape && f.Tax.Found {
		// No total line was read, only a guess: the subtotal and its tax, if the invoice
		// printed a 小計, say it better.
		// Only a tax of that subtotal at 8 to 10 %: a tax misread (a table's rule read as
		// 1) made 550,000 + 1 the total.
		if sub, conf, ok := subtotal(ls); ok && taxFits(sub, f.Tax.Value) {
			f.Total = found(sub+f.Tax.Value, min(conf, f.Tax.Confidence)*sureGuess)
		}
	}
	balance(ls, f)
	splitTotal(ls, f)
	for _, d := range dates {
		switch {
		case d.field == "due" && !f.DueDate.Found:
			f.DueDate = found(d.value, d.conf)
		case d.field == "invoice_date" && !f.InvoiceDate.Found:
			f.InvoiceDate = found(d.value, d.conf)
		}
	}
	guessDue(ls, f)
	if !f.InvoiceDate.Found {
		// Invoices print their date at the top, often without a label.
	first:
		for _, ln := range ls {
			for _, d := range datesIn(ln.text) {
				if d.value != f.DueDate.Value {
					f.InvoiceDate = found(d.value, ln.conf*sureGuess)
					break first
				}
			}
		}
		// Both labels lost (a grid's header cells read as noise), both dates read: the
		// later one is the due date.
		guessDue(ls, f)
	}
}

// guessDue: the due date's label was not read (お支払期唱): a later date within half a
// year of the invoice's is the due date, at a guess.
// repairYear puts right a date whose year OCR misread in one digit (2086.10.27 for
// 2026.10.27, a fax's 2 read 8): when no other date of the page is within a year of it,
// and the page's other dates name a year one digit and at least ten years away from its
// own that puts it within a year of one of them, that year is the date's. (A year a few
// apart may be a real one: a contract's 2028 beside an invoice of 2026.) A little less
// sure for it.
func repairYear(ls []line, fd *Field[string]) {
	if !fd.Found {
		return
	}
	t, err := time.Parse(time.DateOnly, fd.Value)
	if err != nil {
		return
	}
	var others []time.Time
	for _, ln := range ls {
		for _, d := range datesIn(ln.text) {
			if o, err := time.Parse(time.DateOnly, d.value); err == nil && d.value != fd.Value {
				others = append(others, o)
			}
		}
	}
	near := func(t time.Time) bool {
		for _, o := range others {
			if d := t.Sub(o); d < yearSpan && d > -yearSpan {
				return true
			}
		}
		return false
	}
	if len(others) == 0 || near(t) {
		return
	}
	mine := strconv.Itoa(t.Year())
	for _, o := range others {
		y := strconv.Itoa(o.Year())
		if y == mine || len(y) != len(mine) || digitsApart(y, mine) != 1 || abs(o.Year()-t.Year()) < 10 {
			continue
		}
		if fixed := t.AddDate(o.Year()-t.Year(), 0, 0); near(fixed) {
			*fd = found(fixed.Format(time.DateOnly), fd.Confidence*0.9)
			return
		}
	}
}

// yearSpan is how far apart an invoice's dates lie at most (its date and its due date).
const yearSpan = 366 * 24 * time.Hour

// digitsApart counts the places where two strings of digits of one length differ.
func digitsApart(a, b string) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

func guessDue(ls []line, f *Fields) {
	// A year misread puts the dates years apart, and the due date's guess finds none.
	repairYear(ls, &f.InvoiceDate)
	repairYear(ls, &f.DueDate)
	if f.DueDate.Found || !f.InvoiceDate.Found {
		return
	}
	issued, _ := time.Parse(time.DateOnly, f.InvoiceDate.Value)
	for _, ln := range ls {
		for _, d := range datesIn(ln.text) {
			t, err := time.Parse(time.DateOnly, d.value)
			if err == nil && t.After(issued) && t.Sub(issued) <= 183*24*time.Hour && (!f.DueDate.Found || d.value > f.DueDate.Value) {
				f.DueDate = found(d.value, ln.conf*sureGuess)
			}
		}
	}
	if f.DueDate.Found {
		return
	}
	// A fax's date whose dots were lost in the scan (支払期限 2025.07.31 read BA20250731):
	// eight digits on their own that are a date after the invoice's, within dateSpan,
	// and the only such on the page. Less sure than a date's shape.
	var due []string
	for _, ln := range ls {
		for _, m := range compactPageDateRe.FindAllStringSubmatch(ln.text, -1) {
			for _, d := range compactDate(m[1]) { // a crop's eight digits, as its rule reads them
				t, err := time.Parse(time.DateOnly, d.value)
				if err == nil && t.After(issued) && t.Sub(issued) <= dateSpan && !slices.Contains(due, d.value) {
					due = append(due, d.value)
				}
			}
		}
	}
	if len(due) == 1 {
		f.DueDate = found(due[0], sureGuess*sureGuess)
	}
}

// compactPageDateRe is eight digits that may be a date (20YYMMDD), not part of a longer
// run of digits (a telephone or account number) or of a number's grouping.
var compactPageDateRe = regexp.MustCompile(`(?:^|[^\d,.\-/])(20\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))(?:$|[^\d,.\-/])`)

func kindOf(field string) string {
	switch field {
	case "total", "tax", "other":
		return "amount"
	case "due", "invoice_date":
		return "date"
	}
	return ""
}

func rateKey(s string) string {
	if m := regexp.MustCompile(`(\d{1,2})\s*%`).FindAllStringSubmatch(s, -1); len(m) > 0 {
		return m[len(m)-1][1]
	}
	return ""
}

// valuesBelow reads the values for labels printed above them, as a table header: the
// k-th pending label of a kind takes the k-th value of that kind on the next line with
// values. Rows of a per-rate table (10% … / 8% …) are read one after another.
func valuesBelow(ls []line, i int, pending []hit) ([]amountCand, []dateCand) {
	var amounts []amountCand
	var dates []dateCand
	for j := i + 1; j < len(ls) && j <= i+nextLineReach; j++ {
		ln := ls[j]
		part := ln.text
		if len(ln.hits) > 0 {
			if ln.hits[0].start == 0 {
				break
			}
			part = ln.text[:ln.hits[0].start]
		}
		toks, ds := amountsIn(part), datesIn(part)
		if len(toks) == 0 && len(ds) == 0 {
			if len(ln.hits) > 0 {
				// A header row of its own (品番 数量 単価 金額): what is below it is its
				// rows', not the label's (御請求額 over a table took an item's 100).
				break
			}
			continue
		}
		na, nd := 0, 0
		conf := ln.conf * sureLabel * sureNextLine
		rate := perRateRe.MatchString(part)
		for _, h := range pending {
			switch kindOf(h.field) {
			case "amount":
				if na < len(toks) {
					// Under a header of several columns (数量 単価 請求金額) the value is one
					// row's, not the invoice's: any labelled total beats it.
					rank := h.rank
					if len(pending) > 1 && h.field == "total" {
						rank = 0
					}
					amounts = append(amounts, amountCand{h.field, rank, toks[na].value, conf, rate, rateKey(part)})
				}
				na++
			case "date":
				if nd < len(ds) {
					dates = append(dates, dateCand{h.field, ds[nd].value, conf})
				}
				nd++
			}
		}
		if !rate || len(ln.hits) > 0 {
			break
		}
	}
	return amounts, dates
}

var moneyLineRe = regexp.MustCompile(`(?:^|[\s:(])金\s*¥?\s*(\d{1,3}(?:\s?[,.]\s?\d{3})+|\d+)\s*円\s*(也)?`)

func pickTotal(ls []line, amounts []amountCand, f *Fields) {
	// OCR misreads one of an invoice's several statements of its total (ご請求金額 at the
	// top, 合計 at the foot); the value the invoice confirms elsewhere (printed twice, or
	// the sum of an amount and a tenth or less of it: 小計 + 消費税) wins over the label's rank.
	all := allAmounts(ls)
	best, bestOK := -1, false
	for i, a := range amounts {
		if a.field != "total" || a.perRate || a.value <= 0 {
			continue
		}
		ok := confirmed(a.value, all)
		if best < 0 || better(a, ok, amounts[best], bestOK) {
			best, bestOK = i, ok
		}
	}
	if best >= 0 {
		a := amounts[best]
		// A total the invoice nowhere backs up, beside a larger amount it prints as a
		// subtotal plus its tax: the label's value was another column's (今回御請求額 over
		// a ledger's row of 小計, 消費税, 合計 read as the first; 請求額合計 beside the
		// bank's column on a fax).
		// And a total that is the subtotal of that sum (its tax printed too, 請求額合計
		// heading a ledger's row of ¥204,480 ¥20,448 \224.928 took the first cell): the
		// total is what the tax is added to make.
		if v, conf, ok := taxedSum(ls); ok && v > a.value && (!bestOK || all[v-a.value] > 0 && taxFits(a.value, v-a.value)) {
			f.Total = found(v, conf*sureShape)
			return
		}
		sure := map[int]float64{3: 1, 2: 0.95, 1: 0.9}[a.rank]
		f.Total = found(a.value, a.conf*sure)
		return
	}
	// 金 1,234 円也 is how receipts and formal invoices state the sum.
	for _, ln := range ls {
		if m := moneyLineRe.FindStringSubmatch(ln.text); m != nil {
			v, err := strconv.ParseInt(strings.NewReplacer(",", "", ".", "", " ", "").Replace(m[1]), 10, 64)
			if err == nil && v > 0 {
				f.Total = found(v, ln.conf*sureShape)
				return
			}
		}
	}
	// No label: the largest amount the invoice prints as the sum of two others it
	// prints, the smaller 8 to 10 % of the larger (合計 = 小計 + 消費税, a ledger's totals
	// row whose headings were read as noise: 「¥178,540 » ¥16,619 195,159」, where the
	// largest ¥ amount is the subtotal).
	if v, conf, ok := taxedSum(ls); ok {
		f.Total = found(v, conf*sureShape)
		return
	}
	// Else the largest amount marked as money, outside the per-rate lines.
	var v int64
	var conf float64
	for _, ln := range ls {
		if perRateRe.MatchString(ln.text) {
			continue
		}
		for _, t := range amountsIn(ln.text) {
			if t.marked && t.value > v {
				v, conf = t.value, ln.conf*sureGuess
			}
		}
	}
	if v > 0 {
		f.Total = found(v, conf)
	}
}

// better says whether total candidate a (confirmed: ok) is to be taken over b: a
// confirmed one over one that is not, then one of ¥1,000 or more over a smaller one (a
// fax's 「91 965円」 below 御請求額 read as 91: no invoice here is for less, and 総合計
// ¥91,965 of a lower rank is the total), then the label's rank, then the larger.
func better(a amountCand, ok bool, b amountCand, bOK bool) bool {
	if ok != bOK {
		return ok
	}
	if big, bBig := a.value >= 1000, b.value >= 1000; big != bBig {
		return big
	}
	if a.rank != b.rank {
		return a.rank > b.rank
	}
	return a.value > b.value
}

// taxedSum is the largest amount printed that is the sum of two other printed amounts,
// the smaller a consumption tax of the larger (taxFits), with the confidence of the line
// that prints it. Below a thousand yen the yen a tax may round by lets any small numbers
// fit (1 + 1 = 2, a quantity and a row's number), so the subtotal is a thousand or more.
func taxedSum(ls []line) (v int64, conf float64, ok bool) {
	all := allAmounts(ls)
	for _, ln := range ls {
		for _, t := range amountsIn(ln.text) {
			if t.value <= v {
				continue
			}
			for a := range all {
				if b := t.value - a; a >= 1000 && all[b] > 0 && taxFits(a, b) {
					v, conf, ok = t.value, ln.conf, true
					break
				}
			}
		}
	}
	return v, conf, ok
}

// allAmounts is every amount printed on the invoice, with how often each is printed.
func allAmounts(ls []line) map[int64]int {
	all := map[int64]int{}
	for _, ln := range ls {
		for _, t := range amountsIn(ln.text) {
			if t.value > 0 {
				all[t.value]++
			}
		}
	}
	return all
}

// confirmed says whether the invoice backs v up: it prints v twice, or v is the sum of
// two amounts it prints of which the smaller is a tenth or less of the larger (a subtotal
// and its tax). A number under a thousand is backed by nothing: quantities and row
// numbers repeat and add up (a fax's 7 under 請求額合計, read from the items below; 3 of
// 3 8 6 2 0 read apart, "backed" by a 1 and a 2).
func confirmed(v int64, all map[int64]int) bool {
	if v < 1000 {
		return false
	}
	if all[v] >= 2 {
		return true
	}
	for a := range all {
		if b := v - a; b > 0 && b < a && b*10 <= a+10 && all[b] > 0 {
			return true
		}
	}
	return false
}

// subtotal is the amount labelled 小計 (the first one printed), with its line's confidence.
func subtotal(ls []line) (int64, float64, bool) {
	for _, ln := range ls {
		for _, h := range ln.hits {
			if ln.text[h.start:h.end] != "小計" {
				continue
			}
			if toks := amountsIn(h.seg); len(toks) > 0 && toks[0].value > 0 {
				return toks[0].value, ln.conf, true
			}
		}
		// 税抜合計, 税抜金額, 小計（税抜）: the amount before tax under another label.
		if m := preTaxRe.FindStringIndex(ln.text); m != nil {
			if toks := amountsIn(ln.text[m[1]:]); len(toks) > 0 && toks[0].value > 0 {
				return toks[0].value, ln.conf, true
			}
		}
	}
	return 0, 0, false
}

// preTaxRe is a label of the amount before tax other than a bare 小計.
var preTaxRe = regexp.MustCompile(`(?:税抜合計|税抜金額|税抜計|小計\s*[(（]税抜[)）])\s*[:：]?`)

// taxFits says whether tax is the consumption tax of sub: between 8 % and 10 % of it
// (the reduced and the standard rate, or a mix), rounding down per rate allowed.
func taxFits(sub, tax int64) bool {
	return sub > 0 && tax > 0 && tax*100 >= sub*8-100 && tax*100 <= sub*10+100
}

// balance uses total = subtotal + tax, what every invoice prints, to fill in or correct
// what OCR lost (issue 28: a fax reads 小計 and 合計 but not the 消費税 line; a total read
// from the wrong line while 税抜合計 and 消費税 read right): a missing tax is the total
// less the subtotal when that is a tax of it; a total that does not balance gives way to
// subtotal + tax when that sum is printed on the invoice.
func balance(ls []line, f *Fields) {
	sub, conf, ok := subtotal(ls)
	if !ok {
		return
	}
	switch {
	case !f.Tax.Found && f.Total.Found && taxFits(sub, f.Total.Value-sub):
		f.Tax = found(f.Total.Value-sub, min(conf, f.Total.Confidence)*sureShape)
	case f.Tax.Found && taxFits(sub, f.Tax.Value) && (!f.Total.Found || f.Total.Value != sub+f.Tax.Value) &&
		!(f.Total.Found && taxFits(sub, f.Total.Value-sub)) && printed(ls, sub+f.Tax.Value):
		f.Total = found(sub+f.Tax.Value, min(conf, f.Tax.Confidence)*sureShape)
	}
}

// splitTotal finds the tax when no 消費税 label gave one (read as noise in a ruled
// header: 「税率 WR 消費税 税抜金額 ae」), or when the one it gave is not the total less
// an amount the invoice prints: two printed amounts that add up to the total, the smaller
// 8 to 10 % of the larger, are the amount before tax and its tax.
func splitTotal(ls []line, f *Fields) {
	if !f.Total.Found || (f.Tax.Found && printed(ls, f.Total.Value-f.Tax.Value)) {
		return
	}
	all := allAmounts(ls)
	var sub int64
	for a := range all {
		if b := f.Total.Value - a; a > sub && all[b] > 0 && taxFits(a, b) {
			sub = a
		}
	}
	if sub > 0 {
		f.Tax = found(f.Total.Value-sub, f.Total.Confidence*sureShape)
	}
}

// printed says whether the amount v is printed somewhere on the invoice.
func printed(ls []line, v int64) bool {
	for _, ln := range ls {
		for _, t := range amountsIn(ln.text) {
			if t.value == v {
				return true
			}
		}
	}
	return false
}

func pickTax(ls []line, amounts []amountCand, f *Fields) {
	var whole *amountCand
	var sum int64
	var sumConf float64 = 1
	seen := map[string]int{} // a rate's key: the index of the tax counted for it
	for i := range amounts {
		a := &amounts[i]
		// Japanese consumption tax is 10 % at most: the tax of a total is at most 10/110
		// of it (a little more with rounding per line).
		if a.field != "tax" || a.value <= 0 || (f.Total.Found && a.value*100 > f.Total.Value*10) {
			continue
		}
		if !a.perRate || a.rateKey == "" {
			if whole == nil || a.value > whole.value {
				whole = a
			}
			continue
		}
		// Per-rate tax lines: each rate counted once, however often the invoice repeats it.
		// Where its lines disagree, the one that is the rate's tax of an amount the
		// invoice prints (its taxable base) is taken, else the first.
		key := a.rateKey
		if at, ok := seen[key]; ok {
			if !rateTaxOf(ls, key, amounts[at].value) && rateTaxOf(ls, key, a.value) {
				sum += a.value - amounts[at].value
				seen[key] = i
			}
			continue
		}
		seen[key] = i
		sum += a.value
		sumConf = min(sumConf, a.conf)
	}
	switch {
	case whole != nil && (sum == 0 || whole.value >= sum):
		f.Tax = found(whole.value, whole.conf)
	case sum > 0:
		f.Tax = found(sum, sumConf*0.95)
	}
}

// rateTaxOf says whether tax is the consumption tax at the rate of key (10, 8) of an
// amount the invoice prints: rounded down or to the nearest yen.
func rateTaxOf(ls []line, key string, tax int64) bool {
	rate, err := strconv.ParseInt(key, 10, 64)
	if err != nil || rate <= 0 || tax <= 0 {
		return false
	}
	for b := range allAmounts(ls) {
		if t := b * rate; b > tax && (t/100 == tax || (t+50)/100 == tax) {
			return true
		}
	}
	return false
}

// ---- registration number ----

var (
	tNumberRe = regexp.MustCompile(`(?:^|[^A-Za-z])T\s*[:-]?\s*([0-9OolI|][0-9OolI|\s-]{12,24})`)
	// regLabelRe takes 登録番号 with its 番 misread (登録詩号) too.
	regLabelRe = regexp.MustCompile(`登録[^\s\d]?号\s*[:：]?\s*(?:T\s*[:-]?)?\s*([0-9][0-9\s-]{12,24})`)
	// tAfterNoiseRe is a T-number run into OCR's noise (3hHT7263448954997): letters before
	// the T, exactly 13 digits after it.
	tAfterNoiseRe = regexp.MustCompile(`[A-Za-z]T([0-9]{13})(?:$|[^0-9])`)
	ocrDigitMap   = strings.NewReplacer("O", "0", "o", "0", "l", "1", "I", "1", "|", "1", " ", "", "-", "")
)

// thirteen answers the first 13 digits of s when they are a whole number (not the start
// of a longer one).
func thirteen(s string) (string, bool) {
	d := ocrDigitMap.Replace(s)
	if digitRun(d) != 13 {
		return "", false
	}
	return d[:13], true
}

// digitRun is how many digits s starts with.
func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

func readRegistration(ls []line, f *Fields) {
	for _, ln := range ls {
		for _, m := range tNumberRe.FindAllStringSubmatch(ln.text, -1) {
			if d, ok := thirteen(m[1]); ok && pay.ValidRegistrationNumber("T"+d) {
				f.RegistrationNumber = found("T"+d, ln.conf*0.98)
				return
			}
		}
	}
	// Some print the label and forget the T; OCR reads the T as 1, 7 or ( .
	for _, ln := range ls {
		if m := regLabelRe.FindStringSubmatch(ln.text); m != nil {
			if d, ok := thirteen(m[1]); ok && pay.ValidRegistrationNumber("T"+d) {
				f.RegistrationNumber = found("T"+d, ln.conf*sureShape)
				return
			}
			if d := ocrDigitMap.Replace(m[1]); len(d) >= 14 && strings.ContainsRune("17", rune(d[0])) {
				if d, ok := thirteen(d[1:]); ok && pay.ValidRegistrationNumber("T"+d) {
					f.RegistrationNumber = found("T"+d, ln.conf*sureShape*0.95)
					return
				}
			}
		}
	}
	// Then a T-number OCR ran into letters: the check digit says it is one.
	for _, ln := range ls {
		for _, m := range tAfterNoiseRe.FindAllStringSubmatch(ln.text, -1) {
			if pay.ValidRegistrationNumber("T" + m[1]) {
				f.RegistrationNumber = found("T"+m[1], ln.conf*sureShape*0.9)
				return
			}
		}
	}
	// Then a T and thirteen characters with up to three letters OCR reads for digits
	// (TA925651S08008 on a fax): the one reading of them whose check digit holds.
	for _, ln := range ls {
		for _, m := range tLettersRe.FindAllStringSubmatch(ln.text, -1) {
			if d, ok := digitsByCheck(m[1]); ok {
				f.RegistrationNumber = found("T"+d, ln.conf*sureShape*0.85)
				return
			}
		}
	}
	// Then a T and digits with a mark inside them (T5385518796&480, T3328362})73094 on a
	// scan and a photo): a mark among thirteen digits is a speck; among twelve it is a
	// digit misread, the one digit there whose check digit holds.
	for _, ln := range ls {
		for _, m := range tMarkInsideRe.FindAllStringSubmatch(ln.text, -1) {
			if d, ok := markInside(m[1]); ok {
				f.RegistrationNumber = found("T"+d, ln.conf*sureShape*0.85)
				return
			}
		}
	}
	// Then a T and fourteen digits, one of them read twice (T22914688604927 on a fax):
	// the one reading with a doubled digit read once whose check digit holds.
	for _, ln := range ls {
		for _, m := range tNumberRe.FindAllStringSubmatch(ln.text, -1) {
			if d, ok := undoubled(ocrDigitMap.Replace(m[1])); ok {
				f.RegistrationNumber = found("T"+d, ln.conf*sureShape*0.85)
				return
			}
		}
	}
	// Last, label and T both lost (read as noise, as +7 or as 1: 登録番号T5510… read
	// "@#2@8@S8 5510…"): thirteen digits standing alone, or fourteen of which the first
	// is the T read as 1 or 7, whose check digit holds. A thirteen-digit number with the
	// check digit of a T-number is one (or the issuer's corporate number, which is the
	// same digits); an item's barcode would pass one time in nine, hence last and less sure.
	for _, ln := range ls {
		for _, m := range bareDigitsRe.FindAllStringSubmatch(ln.text, -1) {
			d := m[1]
			if len(d) == 14 && (d[0] == '1' || d[0] == '7') {
				d = d[1:]
			}
			if len(d) == 13 && pay.ValidRegistrationNumber("T"+d) {
				f.RegistrationNumber = found("T"+d, ln.conf*sureShape*0.8)
				return
			}
		}
	}
}

// tMarkInsideRe is a T and digits with one or two marks (no letter, digit or space) among
// them, nothing of a number either side.
var tMarkInsideRe = regexp.MustCompile(`(?:^|[^A-Za-z0-9])T\s?([0-9]{1,12}[^\sA-Za-z0-9\p{Han}\p{Hiragana}\p{Katakana}]{1,2}[0-9]{1,12})(?:$|[^0-9])`)

// markInside reads s, digits with marks among them, as a registration number: the marks
// dropped when thirteen digits remain, or put as the one digit for them whose check
// digit holds when twelve do; none when no reading, or two, pass.
func markInside(s string) (string, bool) {
	at := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	end := strings.LastIndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if at < 0 {
		return "", false
	}
	_, w := utf8.DecodeRuneInString(s[end:])
	head, tail := s[:at], s[end+w:]
	switch len(head) + len(tail) {
	case 13:
		d := head + tail
		return d, pay.ValidRegistrationNumber("T" + d)
	case 12:
		var got string
		for c := '0'; c <= '9'; c++ {
			if d := head + string(c) + tail; pay.ValidRegistrationNumber("T" + d) {
				if got != "" {
					return "", false
				}
				got = d
			}
		}
		return got, got != ""
	}
	return "", false
}

// undoubled answers the thirteen digits of a registration number in s, fourteen digits
// (nothing more) with one digit read twice: the one reading of them with a pair of like
// digits read once (doubledOnce) whose check digit holds; none when none or two do.
func undoubled(s string) (string, bool) {
	if digitRun(s) != 14 {
		return "", false
	}
	var got string
	for _, d := range doubledOnce(s[:14]) {
		if !pay.ValidRegistrationNumber("T" + d) {
			continue
		}
		if got != "" {
			return "", false
		}
		got = d
	}
	return got, got != ""
}

// doubledOnce are the readings of digits d with one pair of like digits next to each
// other read once, each reading once (of 22914688604: 2914688604, 2291468604).
func doubledOnce(d string) []string {
	var out []string
	for i := 1; i < len(d); i++ {
		if d[i] == d[i-1] && (i == 1 || d[i-1] != d[i-2]) {
			out = append(out, d[:i]+d[i+1:])
		}
	}
	return out
}

// tLettersRe is a T and thirteen digits or the letters OCR reads for digits, nothing of
// a word either side.
var tLettersRe = regexp.MustCompile(`(?:^|[^A-Za-z0-9])T\s?([0-9ASsBRZzGbgqDQOoIl|]{13})(?:$|[^A-Za-z0-9])`)

// letterDigits are the digits a letter in a run of digits may stand for, likeliest first.
var letterDigits = map[byte]string{'A': "4", 'S': "5382", 's': "5", 'B': "83", 'R': "8", 'Z': "2", 'z': "2", 'G': "6", 'b': "6",
	'g': "9", 'q': "9", 'D': "0", 'Q': "0", 'O': "0", 'o': "0", 'I': "1", 'l': "1", '|': "1"}

// digitsByCheck reads s's letters as digits (letterDigits) and answers the one reading
// that is a registration number by its check digit: none when more than three letters
// (too many readings for the check digit to tell) or when two readings pass.
func digitsByCheck(s string) (string, bool) {
	letters := 0
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			letters++
		}
	}
	if letters == 0 || letters > 3 {
		return "", false
	}
	var found []string
	var try func(i int, acc []byte)
	try = func(i int, acc []byte) {
		if i == len(s) {
			if d := string(acc); pay.ValidRegistrationNumber("T" + d) {
				found = append(found, d)
			}
			return
		}
		if s[i] >= '0' && s[i] <= '9' {
			try(i+1, append(acc, s[i]))
			return
		}
		for _, d := range []byte(letterDigits[s[i]]) {
			try(i+1, append(acc, d))
		}
	}
	try(0, make([]byte, 0, len(s)))
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// bareDigitsRe is a run of 13 or 14 digits, no digit either side.
var bareDigitsRe = regexp.MustCompile(`(?:^|[^0-9])([0-9]{13,14})(?:$|[^0-9])`)

// ---- addressee and issuer ----

var (
	chunkSplit  = regexp.MustCompile(`\s{2,}`)
	honorificRe = regexp.MustCompile(`^(.*?[^\s])\s*(御\s*中|様)(?:\s|$|[)、。,])`)
	notAName    = regexp.MustCompile(`(お客|皆|各位|ご担当者|担当者|ご担当|貴社|様式)$`)
	leadLabelRe = regexp.MustCompile(`^(?:宛名|ご請求先|請求先|発行元|請求元|発行者|請求者|差出人|To|TO)\s*[:：]?\s*`)
)

func chunks(s string) []string { return chunkSplit.Split(s, -1) }

// aloneHonorificRe is 御中 or 様 set apart from the name by a wide gap (an addressee
// line ruled to the width of a column: 株式会社サンプル          御中).
var aloneHonorificRe = regexp.MustCompile(`^(御\s*中|様)$`)

func readAddressee(ls []line, f *Fields) {
	for _, ln := range ls {
		cs := chunks(ln.text)
		for i, c := range cs {
			if i > 0 && aloneHonorificRe.MatchString(strings.TrimSpace(c)) {
				c = cs[i-1] + " " + strings.TrimSpace(c)
			}
			m := honorificRe.FindStringSubmatch(c)
			if m == nil {
				continue
			}
			name := leadLabelRe.ReplaceAllString(strings.TrimSpace(m[1]), "")
			if name == "" || notAName.MatchString(name) || strings.ContainsAny(name, "0123456789") && !companyFormRe.MatchString(name) {
				continue
			}
			sure := sureShape + 0.05
			if m[2] == "様" {
				sure = sureShape
			}
			f.Addressee = found(cleanName(name), ln.conf*sure)
			f.AddresseeHonorific = removeSpaces(m[2])
			return
		}
	}
	// No honorific was read: two companies side by side on a line are the header of a
	// two-column invoice, the addressee on the left and the issuer on the right, as
	// Japanese invoices set them. The left one's 御中 is often what was lost, read as a
	// letter or two (株式会社やまびこ Hh  有限会社海鳴テクノロジー); without this the one
	// nearer the top (the addressee) was taken for the issuer.
	for _, ln := range ls {
		var names []string
		for _, c := range chunks(ln.text) {
			if notIssuerRe.MatchString(c) || sentenceRe.MatchString(c) {
				continue
			}
			if name := companyIn(c); name != "" && nameKey(name) != "" {
				names = append(names, name)
			}
		}
		if len(names) == 2 && nameKey(names[0]) != nameKey(names[1]) {
			f.Addressee = found(names[0], ln.conf*sureGuess)
			f.AddresseeHonorific = "御中" // a company's, printed but not read
			return
		}
	}
}

// sentenceRe finds the invoice's sentences (下記のとおりご請求申し上げます。), which are
// no one's name.
var sentenceRe = regexp.MustCompile(`ます|ください|下記|申し上げ|。|お問い合わせ|ありがとう|よろしく`)

var notIssuerRe = regexp.MustCompile(`御中|様|銀行|信用金庫|支店|名義|振込|口座|〒|TEL|FAX`)

// companyIn cuts the company's name out of a chunk of text: the word holding the legal
// form, joined with the next word when the form stands alone (株式会社 サンプル) or the
// word before when it ends the name (サンプル 株式会社).
func companyIn(c string) string {
	c = leadLabelRe.ReplaceAllString(c, "")
	words := strings.Fields(c)
	for i, w := range words {
		loc := companyFormRe.FindStringIndex(w)
		if loc == nil {
			continue
		}
		switch {
		case loc[0] == 0 && loc[1] == len(w) && i+1 < len(words) && i > 0 && !hasForm(words[i-1]) && isNameWord(words[i-1]) && !isNameWord(words[i+1]):
			return cleanName(words[i-1] + w)
		case loc[0] == 0 && loc[1] == len(w) && i+1 < len(words):
			return cleanName(w + words[i+1])
		case loc[0] == 0 && loc[1] == len(w) && i > 0:
			return cleanName(words[i-1] + w)
		}
		return cleanName(w)
	}
	return ""
}

func hasForm(w string) bool { return companyFormRe.MatchString(w) }

// isNameWord: a word that can be part of a name, not a title (代表取締役) or a number.
func isNameWord(w string) bool {
	return !strings.ContainsAny(w, "0123456789:〒") && !strings.Contains(w, "代表") && !strings.Contains(w, "取締役")
}

// regLine is the index of the first line with a registration number or its label, or -1.
func regLine(ls []line) int {
	for i, ln := range ls {
		if tNumberRe.MatchString(ln.text) || strings.Contains(ln.text, "登録番号") {
			return i
		}
	}
	return -1
}

func readIssuer(ls []line, f *Fields) {
	regLine := regLine(ls)
	// A label says it.
	for _, ln := range ls {
		for _, h := range ln.hits {
			if h.field == "issuer" {
				if name := cleanName(strings.Trim(h.seg, " :")); name != "" {
					if c := companyIn(name); c != "" {
						name = c
					}
					f.IssuerName = found(name, ln.conf*sureLabel)
					return
				}
			}
		}
	}
	// A company that is not the addressee, the nearest to the registration number.
	bestDist, best, bestConf := 1<<30, "", 0.0
	addrKey := nameKey(f.Addressee.Value)
	for i, ln := range ls {
		for _, c := range chunks(ln.text) {
			if notIssuerRe.MatchString(c) {
				continue
			}
			name := companyIn(c)
			if name == "" || (f.Addressee.Found && sameName(nameKey(name), addrKey)) {
				continue
			}
			dist := 1000 + i // without a registration number, the first company
			if regLine >= 0 {
				dist = abs(i - regLine)
			}
			if dist < bestDist {
				bestDist, best, bestConf = dist, name, ln.conf
			}
		}
	}
	if best != "" {
		sure := surePosition
		if bestDist <= 3 {
			sure = sureShape
		}
		f.IssuerName = found(best, bestConf*sure)
		return
	}
	// A sole proprietor: the name printed above the registration number.
	if regLine < 0 {
		return
	}
	// The block above it reads name (屋号), person, address, telephone: the topmost name
	// of the block, up to a labelled line or the addressee, is the business.
	for i := regLine - 1; i >= 0 && i >= regLine-5; i-- {
		ln := ls[i]
		if labelledOtherThanPhone(ln) || strings.Contains(ln.text, "請求書") ||
			(f.Addressee.Found && strings.Contains(ln.text, f.AddresseeHonorific)) {
			break
		}
		for _, c := range chunks(ln.text) {
			if notIssuerRe.MatchString(c) || strings.ContainsAny(c, "0123456789") || addressRe.MatchString(c) || sentenceRe.MatchString(c) {
				continue
			}
			f.IssuerName = found(cleanName(c), ln.conf*sureGuess)
		}
	}
}

// sameName says whether two name keys are one company's: equal, or one the other cut
// short (株式会社中野ホール, the addressee's 株式会社中野ホールディングス read on a line the
// seal or a column's edge cut) by three or more characters in common.
func sameName(a, b string) bool {
	if a == b {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return utf8.RuneCountInString(a) >= 3 && strings.HasPrefix(b, a)
}

func labelledOtherThanPhone(ln line) bool {
	for _, h := range ln.hits {
		if h.field != "phone" {
			return true
		}
	}
	return false
}

var addressRe = regexp.MustCompile(`^(東京都|北海道|大阪府|京都府|.{2,3}県)|[市区町村].*\d|丁目|番地`)

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ---- bank account ----

var (
	// bankRe takes ! among a bank's letters: OCR's J of 三菱UFJ銀行 (三菱UF!銀行), which
	// the zengin list then names (banks.Closest).
	bankRe = regexp.MustCompile(`([\p{Han}\p{Hiragana}\p{Katakana}A-Za-z・ー!]{1,20}?(?:銀行|信用金庫|信用組合|労働金庫|信金|信組|農業協同組合|農協))`)
	// branchRe reads the branch after the bank: 渋谷支店, 東京営業部, 本店, 〇一八店,
	// 018支店, with the branch number that some add in brackets (three digits, not the
	// start of the account number after the branch: 店営業部 5862799 is no branch 586).
	branchRe = regexp.MustCompile(`^\s*[:(]?\s*([\p{Han}\p{Hiragana}\p{Katakana}A-Za-z0-9〇ー・]{1,15}?)\s?(支店|出張所|営業部|支所|本店|店)\s*(?:\(?\s*(?:店番|No\.?)?\s*(\d{3})\b\s*\)?)?`)
	// A kanji before 通預金 OCR could not read is 普 (六通預金, 凌通預金): no other type of
	// account ends so.
	// A fax's 当座預金 reads 当席痕金, 当座靖金: 当, 座 or a kanji like it, and 金.
	typeRe = regexp.MustCompile(`普通預金|当座預金|普通|当座|総合|\p{Han}通預金|当[座席庫]\p{Han}?金|\(\s?普\s?\)|\(\s?当\s?\)|普\.|当\.`)
	// markRe is the bracketed mark of the account type between the branch and the
	// number (渋谷支店 (普) 1234567) when OCR could not read the character in it.
	markRe     = regexp.MustCompile(`(?:(?:支店|営業部|出張所|本店|店)\s*\(\s?[^\s()\d]{1,2}\s?\)\s*(?:No\.?\s*)?\d{4,8}|(?:口座種別|預金種目|種別)\s*[:：|]?\s*\|?\s*\(\s?[^\s()]{1,2}\s?\))`)
	acctDigits = regexp.MustCompile(`\d(?:[\d\s-]{0,10}\d)?`)
	kanaRunRe  = regexp.MustCompile(`[\p{Katakana}ｦ-ﾟー\-()\.･・A-Z\s~゛゜°”]+`)
	// misreadMarkRe is a holder's legal-form mark カ) read as letters or digits (A),
	// hh), 5), BRASH)) before the name's kana; strayBeforeKanaRe a stray letter or
	// digit (a table's rule) directly before the kana.
	misreadMarkRe     = regexp.MustCompile(`^([0-9A-Za-z]{1,5}\))\s?[\p{Katakana}ｦ-ﾟ]`)
	strayBeforeKanaRe = regexp.MustCompile(`^[0-9A-Za-z][\p{Katakana}ｦ-ﾟ]`)
	// formCoRe is a legal-form mark whose full-width bracket was read as コ and a
	// bracket (ユ） read ユコ)): no mark is two kana so.
	formCoRe = regexp.MustCompile(`^(カ|ユ|メ|ド|ｶ|ﾕ|ﾒ|ﾄﾞ)[コｺ]\)`)
	// doubledMarkRe is a legal-form mark read twice (ｶｶ)ｼﾗｶﾊﾞ): a mark is one kana.
	doubledMarkRe = regexp.MustCompile(`^(カ|ユ|メ|ｶ|ﾕ|ﾒ)(?:カ|ユ|メ|ｶ|ﾕ|ﾒ)\)`)
	// labelWordBeforeKanaRe is the holder's label read as a word of letters before the
	// kana (BRA ﾏﾂｶｾﾞｼﾖｳｶｲ(ｶ for 名義人 ﾏﾂｶｾﾞ…), its gap kept.
	labelWordBeforeKanaRe = regexp.MustCompile(`^[A-Za-z]{2,5}\s+[\p{Katakana}ｦ-ﾟ]`)
	wideGapRe             = regexp.MustCompile(`\s{2,}`)
	// gapBeforeMarkRe is a gap between a kana and a closing bracket or a long mark that
	// a kana follows: no holder's name has a space there.
	gapBeforeMarkRe = regexp.MustCompile(`([\p{Katakana}ｦ-ﾟ])\s+([)ーｰ-][\p{Katakana}ｦ-ﾝ])`)
	// smallKanaTwice undoes tesseract's reading a small kana as itself and its large form
	// (チュユウ for チュウ, ショヨ for ショ).
	smallKanaTwice = strings.NewReplacer("ャヤ", "ャ", "ュユ", "ュ", "ョヨ", "ョ")
	// markRepair turns the marks OCR reads for a half-width (semi-)voiced mark back into it.
	markRepair = strings.NewReplacer("~", "ﾞ", "゛", "ﾞ", "”", "ﾞ", "゜", "ﾟ", "°", "ﾟ")
	yuchoRe    = regexp.MustCompile(`記号\s*(?:番号)?\s*[:：]?\s*(\d{5})\s*(?:-|\s|番号\s*[:：]?)\s*(\d{1,8})\b`)
	yuchoBare  = regexp.MustCompile(`(?:^|[^\d-])(1\d{3}0)\s*-\s*(\d{2,7}1)(?:$|[^\d-])`)
	furikaeRe  = regexp.MustCompile(`(?:^|[^\d-])(0\d{4})\s*-\s*(\d)\s*-\s*(\d{1,6})(?:$|[^\d-])`)
	bankPrefix = []string{"お振込み先", "お振込先", "振込先", "お振込口座", "振込口座", "金融機関名", "金融機関", "銀行名", "振込", "口座"}
)

// printedBank is a zengin bank's name as invoices print it: its full-width letters
// half-width (三菱ＵＦＪ銀行: 三菱UFJ銀行).
func printedBank(b banks.Bank) string { return width.Fold.String(b.Name) }

// bankAtEnd is the bank whose name ends name (at least four characters of it, as
// banks.Closest takes them), the longest first.
func bankAtEnd(name string) (banks.Bank, bool) {
	rs := []rune(name)
	for i := 1; len(rs)-i >= 4; i++ {
		if b, ok := banks.Closest(string(rs[i:])); ok {
			return b, true
		}
	}
	return banks.Bank{}, false
}

func readAccount(ls []line, f *Fields) {
	bankLine := -1
	for i, ln := range ls {
		if m := bankRe.FindStringIndex(ln.text); m != nil {
			name := ln.text[m[0]:m[1]]
			for _, p := range bankPrefix {
				name = strings.TrimPrefix(name, p)
			}
			if name == "銀行" || strings.HasSuffix(name, "日本銀行") && len(name) > len("日本銀行") {
				continue
			}
			conf := ln.conf * sureShape
			// OCR misreads a character of the name now and then (みずは銀行); the zengin
			// list knows the real one.
			if b, ok := banks.Closest(name); ok && printedBank(b) != name {
				name, conf = printedBank(b), conf*0.9
			} else if !ok {
				// A label glued before the name (お支払先口座みずほ銀行): the longest end
				// of it that the zengin list knows.
				if b, ok := bankAtEnd(name); ok {
					name, conf = printedBank(b), conf*0.9
				}
			}
			f.BankName = found(name, conf)
			bankLine = i
			readBranch(ln, ln.text[m[1]:], f)
			break
		}
	}
	if bankLine < 0 {
		// The bank's name read as noise ([WUT for 三菱UFJ銀行), the rest of its line read:
		// a branch, a type and seven digits (名古屋営業部 (普) No.9984630) are the account's
		// line, and place its block as the bank's line would.
		for i, ln := range ls {
			if loc := accountLineRe.FindStringIndex(ln.text); loc != nil {
				start := strings.LastIndexAny(ln.text[:loc[0]], " |｜:") + 1
				if readBranch(ln, ln.text[start:], f) {
					bankLine = i
					break
				}
			}
		}
	}
	if bankLine < 0 {
		bankLine = branchAlone(ls, f)
	}
	if bankLine < 0 {
		bankLine = shortBank(ls, f)
	}
	readYucho(ls, f)
	if bankLine >= 0 && !f.BranchName.Found {
		for j := bankLine + 1; j < len(ls) && j <= bankLine+2; j++ {
			text := ls[j].text
			for _, h := range ls[j].hits {
				if h.field == "branch" {
					text = h.seg
				}
			}
			if readBranch(ls[j], text, f) {
				break
			}
		}
	}
	if !f.BranchName.Found {
		// The bank's name was not read, but 支店名 labels the branch.
	branches:
		for _, ln := range ls {
			for _, h := range ln.hits {
				if h.field == "branch" && readBranch(ln, h.seg, f) {
					break branches
				}
			}
		}
	}
	// The bank's block: where the type, number and holder are printed when no label
	// names them. Without a bank name, only labels are trusted.
	from, to := 0, 0
	if bankLine >= 0 {
		from, to = max(bankLine-1, 0), min(bankLine+7, len(ls))
	}
	readType(ls[from:to], f)
	readNumber(ls, from, to, f)
	readHolder(ls, from, to, f)
	bankOfBranch(f)
	agreeBranch(f)
	branchByName(f)
}

// branchWordRe is where a branch's name ends.
var branchWordRe = regexp.MustCompile(`支店|営業部|出張所`)

// branchAlone finds the account's block by its branch when the bank's name read as noise
// and the branch's line has no type and number after it (a fax's 「RAR 第一営業支店」 over
// 「-CBRE = 普通 1999915」): a branch that only one bank has (bankOfBranch), with seven
// digits on its line or the next two. The bank is that one, a little less sure than a
// name read; the block's line is answered (-1: none).
func branchAlone(ls []line, f *Fields) int {
	for i, ln := range ls {
		for _, loc := range branchWordRe.FindAllStringIndex(ln.text, -1) {
			start := strings.LastIndexAny(ln.text[:loc[0]], " |｜:") + 1
			var g Fields
			if !readBranch(ln, ln.text[start:], &g) || !sevenDigitsFrom(ls, i) {
				continue
			}
			if bankOfBranch(&g); !g.BankName.Found {
				continue
			}
			f.BankName, f.BranchName, f.BranchCode = g.BankName, g.BranchName, g.BranchCode
			return i
		}
	}
	return -1
}

// shortBank finds the account's block by a major bank's name written without 銀行 (ゆうちょ,
// みずほ, 三井住友: people write them so, and a ledger's cell wall cuts 銀行 off:
// 「| ゆうちょ本  MOB  HhHie  9513921」) on a line that prints seven digits after it: a
// shop or company named after one (みずほ商事) prints no account number beside its name.
// The block's line is answered (-1: none).
func shortBank(ls []line, f *Fields) int {
	for i, ln := range ls {
		for _, b := range pay.MajorBanks {
			name := width.Fold.String(b.Name)
			at := strings.Index(ln.text, strings.TrimSuffix(name, "銀行"))
			if at < 0 || !loneSevenRe.MatchString(mask(ln.text[at:], append(anyDateRe, phoneRe)...)) {
				continue
			}
			f.BankName = found(name, ln.conf*sureGuess)
			return i
		}
	}
	return -1
}

// sevenDigitsFrom says whether a lone seven-digit number is printed on line i or the two
// after it.
func sevenDigitsFrom(ls []line, i int) bool {
	for _, ln := range ls[i:min(i+3, len(ls))] {
		if loneSevenRe.MatchString(mask(ln.text, append(anyDateRe, phoneRe)...)) {
			return true
		}
	}
	return false
}

// bankOfBranch names the bank when its name was not read but the branch was, and the
// zengin list has that branch at one bank alone (楽天銀行's 第一営業, ゆうちょ銀行's
// 〇一八: most names are one bank's); a name many banks have (名古屋営業部) names none.
// Only a major bank (pay.MajorBanks) is named so: a branch's name misread is now and
// then another bank's real branch (a fax's 大名支店 read 大神, 白山農協's only), and
// the major banks are the ones most invoices name.
func bankOfBranch(f *Fields) {
	if f.BankName.Found || !f.BranchName.Found {
		return
	}
	bs := banks.WithBranch(branchKey(f.BranchName.Value))
	if len(bs) != 1 || !slices.ContainsFunc(pay.MajorBanks, func(b pay.Bank) bool { return b.Code == bs[0].Code }) {
		return
	}
	f.BankName = found(printedBank(bs[0]), f.BranchName.Confidence*0.8)
}

// branchByName puts right a branch's name that the bank has no branch of when exactly
// one of its branches is that name and one character more (店営業部 for 本店営業部, the 本
// lost at a ledger's cell wall), and no number was read to say which; the list's number
// comes with it. A name the list has one character less of (大井町, 大井) stays: the list
// may not know a new branch. 本店 at a bank whose head office's branch is 本店営業部 and
// that has no 本店 is that branch: people write it so, and a ledger's 本店企業部 reads as
// 本店 (the name ends at its first 店).
func branchByName(f *Fields) {
	if !f.BankName.Found || !f.BranchName.Found || f.BranchCode.Found {
		return
	}
	bank, _ := matchBank(asSure(*f))
	name := branchKey(f.BranchName.Value)
	if bank == "" || (utf8.RuneCountInString(name) < 3 && name != "本店") {
		return // two characters are a character off too many names
	}
	var near []banks.Branch
	for _, br := range banks.SearchBranches(bank, "", 100_000) {
		key := branchKey(br.Name)
		switch {
		case key == name:
			return // a branch of the bank
		case name == "本店" && key == "本店営業部":
			near = append(near, br)
		case name != "本店" && utf8.RuneCountInString(key) == utf8.RuneCountInString(name)+1 && editDistance(key, name) == 1:
			near = append(near, br)
		}
	}
	if len(near) == 1 {
		conf := f.BranchName.Confidence * 0.9
		f.BranchName, f.BranchCode = found(near[0].Name, conf), found(near[0].Code, conf)
	}
}

// branchOfBank says whether the zengin list has a branch named name (or whose name is
// that and 支店) at the bank read in f; known is false when the list does not know the
// bank (then nothing is said of the branch).
func branchOfBank(f *Fields, name string) (has, known bool) {
	bank, _ := matchBank(asSure(*f))
	if bank == "" || !banks.Available() {
		return false, false
	}
	return len(branchesNamed(bank, name)) > 0, true
}

// branchesNamed are the branches of the bank (zengin code) named name, 支店 or not.
func branchesNamed(bank, name string) []banks.Branch {
	key := branchKey(name)
	var out []banks.Branch
	for _, br := range banks.SearchBranches(bank, name, 20) {
		if branchKey(br.Name) == key {
			out = append(out, br)
		}
	}
	return out
}

// accountLineRe is a branch's kind, a type (a bracketed mark or written out) and a
// branch account's seven digits: the line of an account whatever its bank's name read as.
var accountLineRe = regexp.MustCompile(`(?:支店|営業部|出張所)\s*[|｜]?\s*(?:\(\s?[^\s()]{1,2}\s?\)|普通(?:預金)?|当座(?:預金)?)?\s*[|｜]?\s*(?:No\.?\s*)?\d{7}(?:$|\D)`)

// agreeBranch makes the branch's name and number agree with the zengin list, once the
// bank is known there: a number read with a name (渋谷支店 (店番135)) that the list gives
// to another branch is put right from the name when they are a digit apart (185 → 135);
// a name one character off the number's branch takes the list's name. Names and numbers
// that the list does not pair stay as read: which of the two OCR got wrong is then not
// known.
func agreeBranch(f *Fields) {
	if !f.BankName.Found || !f.BranchCode.Found || !f.BranchName.Found {
		return
	}
	bank, _ := matchBank(asSure(*f)) // as Match finds it: zengin's names drop 銀行
	if bank == "" {
		return
	}
	code := f.BranchCode.Value
	byCode, codeKnown := banks.BranchByCode(bank, code)
	name := branchKey(f.BranchName.Value)
	if codeKnown && branchKey(byCode.Name) == name {
		return // they agree
	}
	byName := branchesNamed(bank, f.BranchName.Value)
	switch {
	case len(byName) == 1 && editDistance(byName[0].Code, code) == 1:
		f.BranchCode = found(byName[0].Code, f.BranchCode.Confidence*0.9)
	case len(byName) == 0 && codeKnown && editDistance(branchKey(byCode.Name), name) == 1:
		f.BranchName = found(byCode.Name, f.BranchName.Confidence*0.9)
	}
}

// branchLabelRe is a branch's label that the labels table does not know (支店 alone, as a
// table's row header), cut before the branch is read.
var branchLabelRe = regexp.MustCompile(`^\s*支店(?:名)?\s*[:：]?\s+`)

func readBranch(ln line, rest string, f *Fields) bool {
	rest = branchLabelRe.ReplaceAllString(rest, "")
	// A ruled table's cell wall read as a bar between the bank and the branch
	// (「| 北洋銀行 |本店営業部」).
	rest = strings.TrimLeft(rest, " |｜[]")
	if t := strings.TrimLeft(rest, " :("); strings.HasPrefix(t, "本店営業部") {
		// 本店営業部 is one name (the head office's branch), not 本店 and a 営業部.
		f.BranchName = found("本店営業部", ln.conf*sureShape)
		return true
	}
	m := branchRe.FindStringSubmatch(rest)
	if m == nil {
		return false
	}
	// No branch's name starts with a long mark: ー本店 is a rule's end read before it.
	name, kind, code := strings.TrimLeft(m[1], "ー・"), m[2], m[3]
	conf := ln.conf * sureShape
	if d := digitsOfKanji(name); len(d) == 3 {
		// ゆうちょ's branches are named by number in kanji: 〇一八店.
		f.BranchName, f.BranchCode = found(name, conf), found(d, conf)
		return true
	}
	if k := kanjiNumberRead(name); k != "" && kind == "店" {
		// The same, a numeral misread (一O八, 一〇人): a little less sure.
		f.BranchName, f.BranchCode = found(k, conf*0.9), found(digitsOfKanji(k), conf*0.9)
		return true
	}
	if len(name) == 3 && pay.AllDigits(name) {
		f.BranchName, f.BranchCode = found(kanjiNumber(name), conf), found(name, conf)
		return true
	}
	if kind != "支店" && kind != "店" {
		name += kind
	}
	if kind == "店" && name == "本" {
		name = "本店"
	}
	f.BranchName = found(name, conf)
	if code != "" {
		f.BranchCode = found(code, conf)
	}
	return true
}

// readYucho reads ゆうちょ銀行's own account numbers and converts them to the zengin
// form other banks transfer to (ゆうちょ銀行「他の金融機関からの振込の受取り」):
//   - 通常貯金, 記号 1XXX0 and 番号 up to 8 digits ending in 1: branch 〇XX八 (the
//     2nd and 3rd digits of the 記号 and 8), 普通, the 番号 without its last digit,
//     zero-padded to 7 digits;
//   - 振替口座, 記号 0XXXX-X-番号: branch 〇XX九, 当座, the 番号 zero-padded to 7.
func readYucho(ls []line, f *Fields) {
	yucho := strings.Contains(f.BankName.Value, "ゆうちょ")
	for _, ln := range ls {
		if strings.Contains(ln.text, "ゆうちょ") || strings.Contains(ln.text, "郵便貯金") || strings.Contains(ln.text, "記号") {
			yucho = true
		}
	}
	if !yucho {
		return
	}
	for _, ln := range ls {
		conf := ln.conf * sureShape
		var kigou, bangou string
		if m := furikaeRe.FindStringSubmatch(ln.text); m != nil {
			kigou, bangou = m[1], m[3]
		} else if m := yuchoRe.FindStringSubmatch(ln.text); m != nil {
			kigou, bangou = m[1], m[2]
		} else if m := yuchoBare.FindStringSubmatch(ln.text); m != nil {
			kigou, bangou = m[1], m[2]
		} else {
			continue
		}
		var branch, number string
		var typ pay.AccountType
		switch {
		case kigou[0] == '1' && kigou[4] == '0' && len(bangou) >= 2 && strings.HasSuffix(bangou, "1"):
			branch, typ, number = kigou[1:3]+"8", pay.AccountOrdinary, bangou[:len(bangou)-1]
		case kigou[0] == '0' && len(bangou) <= 6:
			branch, typ, number = kigou[1:3]+"9", pay.AccountCurrent, bangou
		default:
			continue
		}
		if len(number) > 7 {
			continue
		}
		number = strings.Repeat("0", 7-len(number)) + number
		f.BankName = found("ゆうちょ銀行", conf)
		f.BranchCode = found(branch, conf)
		f.BranchName = found(kanjiNumber(branch), conf)
		f.AccountType = found(typ, conf)
		f.AccountNumber = found(number, conf)
		return
	}
}

// typeOf is the account type typeRe's match names.
func typeOf(m string) pay.AccountType {
	// typeRe lets OCR's spaces into the brackets: "( 当)" is 当座 too.
	if strings.HasPrefix(strings.TrimLeft(m, "( "), "当") {
		return pay.AccountCurrent
	}
	return pay.AccountOrdinary
}

func readType(ls []line, f *Fields) {
	if f.AccountType.Found {
		return
	}
	for _, ln := range ls {
		if m := typeRe.FindString(ln.text); m != "" {
			f.AccountType = found(typeOf(m), ln.conf*sureShape)
			return
		}
	}
	// A mark was printed but not read: (普) is far the likelier (most business accounts
	// are 普通), said with a low confidence so that the buyer is asked to check it.
	for _, ln := range ls {
		if markRe.MatchString(ln.text) {
			f.AccountType = found(pay.AccountOrdinary, ln.conf*sureGuess*0.5)
			return
		}
	}
}

// Guess fills, after every reading and crop, what each bank account has but none told:
// the type of an account whose number was read. Its type is printed beside the number
// but often read as noise — a ruled cell's 普通 read "0" or "Ru", a bracket's 普 read
// "(#)" or "(8)" — and 普通 is far the likelier (most business accounts are). Said with a
// low confidence, so that the form asks the buyer to check it; a reading or a crop that
// tells the type comes first (the crops are asked for a type not found, so this is not
// in Extract).
func Guess(f *Fields) {
	if f.AccountNumber.Found && !f.AccountType.Found {
		f.AccountType = found(pay.AccountOrdinary, f.AccountNumber.Confidence*sureGuess*0.5)
	}
}

// accountNumberIn reads a branch account number (up to 7 digits, zero-padded) at the
// start of s, ignoring telephone numbers and dates.
func accountNumberIn(s string) (string, bool) {
	s = mask(s, append(anyDateRe, phoneRe)...)
	s = strings.TrimLeft(s, " :.No")
	loc := acctDigits.FindStringIndex(s)
	if loc == nil {
		return "", false
	}
	// Another word in front: not the number this label or type names.
	if strings.TrimSpace(strings.NewReplacer("No.", "", "No", "", "番号", "", ":", "", "口座", "", "預金", "").Replace(s[:loc[0]])) != "" {
		return "", false
	}
	d := strings.NewReplacer(" ", "", "-", "").Replace(s[loc[0]:loc[1]])
	if len(d) < 4 || len(d) > 7 {
		return "", false
	}
	return strings.Repeat("0", 7-len(d)) + d, true
}

// loneSevenRe is a number of seven digits alone: a branch account's number.
var loneSevenRe = regexp.MustCompile(`(?:^|[^\d,-])(\d{7})(?:$|[^\d,-])`)

func readNumber(ls []line, from, to int, f *Fields) {
	if f.AccountNumber.Found {
		return
	}
	// 口座番号 1234567, on the line or below it.
	if v, ok := labelled(ls, "account_number", accountNumberIn); ok {
		f.AccountNumber = v
		return
	}
	// 普通 1234567
	for _, ln := range ls[from:to] {
		if loc := typeRe.FindStringIndex(ln.text); loc != nil {
			if n, ok := accountNumberIn(cutAtLabel(ln, loc[1])); ok {
				f.AccountNumber = found(n, ln.conf*sureLabel)
				return
			}
		}
	}
	// A lone 7-digit number near the bank.
	for _, ln := range ls[from:to] {
		s := mask(ln.text, append(anyDateRe, phoneRe)...)
		for _, m := range loneSevenRe.FindAllStringSubmatch(s, -1) {
			f.AccountNumber = found(m[1], ln.conf*sureGuess*1.2)
			return
		}
	}
}

// cutAtLabel is the line's text from pos up to the next label after it.
func cutAtLabel(ln line, pos int) string {
	end := len(ln.text)
	for _, h := range ln.hits {
		if h.start >= pos && h.start < end {
			end = h.start
		}
	}
	return ln.text[pos:end]
}

// holderIn reads a holder name in kana at the start of s (after a label or a number):
// カ)ヤマダシヨウジ, ﾔﾏﾀﾞ ﾀﾛｳ, (ｶ)ｻﾝﾌﾟﾙ; answered in the zengin form.
func holderIn(s string) (string, bool) {
	// A table's rules and brackets round the value (名義 | カ)…).
	const rules = " :：.,・･|｜[]「」『』"
	s = strings.TrimLeft(s, rules)
	// The label's own (カナ) (受取人 (カナ), 口座名義（フリガナ）) says what is asked for:
	// the name comes after it, or in the row below.
	for _, p := range []string{"(カナ)", "（カナ）", "(ｶﾅ)", "(フリガナ)", "（フリガナ）"} {
		if rest, ok := strings.CutPrefix(s, p); ok {
			s = strings.TrimLeft(rest, rules)
			break
		}
	}
	// The legal-form mark カ) is read as the kanji 力 or as one or two letters (A), hh));
	// a stray digit or letter from a rule stands before it (5カ)).
	for _, fix := range [][2]string{{"力)", "カ)"}, {"(力)", "(カ)"}, {"(A)", "(カ)"}} {
		if rest, ok := strings.CutPrefix(s, fix[0]); ok {
			s = fix[1] + rest
			break
		}
	}
	if m := formCoRe.FindStringSubmatchIndex(s); m != nil {
		s = s[m[2]:m[3]] + ")" + s[m[1]:]
	}
	if m := doubledMarkRe.FindStringSubmatchIndex(s); m != nil {
		s = s[m[2]:m[3]] + ")" + s[m[1]:]
	}
	if m := misreadMarkRe.FindStringSubmatchIndex(s); m != nil {
		s = "カ)" + s[m[3]:]
	} else if m := labelWordBeforeKanaRe.FindStringIndex(s); m != nil {
		s = s[m[1]-len("ア"):]
	} else if m := strayBeforeKanaRe.FindStringIndex(s); m != nil {
		s = s[m[1]-len("ア"):]
	}
	loc := kanaRunRe.FindStringIndex(s)
	if loc == nil || strings.TrimSpace(s[:loc[0]]) != "" {
		return "", false
	}
	run := strings.TrimSpace(s[loc[0]:loc[1]])
	// A legal-form mark's bracket and a long mark belong to the kana before them: a gap
	// there is the crop's widening, not a space of the name (カ  )ツバサ, サ  ービス).
	run = gapBeforeMarkRe.ReplaceAllString(run, "$1$2")
	// A holder's name has single spaces at most: a wide gap ends it (what follows is
	// another column, or noise).
	if i := wideGapRe.FindStringIndex(run); i != nil {
		run = run[:i[0]]
	}
	run = markRepair.Replace(smallKanaTwice.Replace(run))
	for _, fix := range [][2]string{{"(A", "(カ"}, {"(力", "(カ"}} {
		if rest, ok := strings.CutSuffix(run, fix[0]); ok {
			run = rest + fix[1]
		}
	}
	kana := 0
	for _, r := range run {
		if (r >= 'ァ' && r <= 'ヺ') || (r >= 'ｦ' && r <= 'ﾝ') {
			kana++
		}
	}
	if kana < 2 {
		return "", false
	}
	h, err := pay.NormalizeHolderName(run)
	if err != nil {
		return "", false
	}
	// The legal-form marks are written against the name (ｶ)ﾔﾏﾀﾞ, ﾔﾏﾀﾞ(ｶ): a space there
	// is the width of the printed bracket, not one the holder's name has.
	h = strings.NewReplacer(") ", ")", " (", "(").Replace(h)
	return voicedOnce(markOnce(h)), true
}

// markOnce writes a legal-form mark at the name's end as one, against its bracket: OCR
// sets the bracket's width apart after it (ﾌｼﾞﾉｷｺｳｷﾞﾖｳ( ﾄﾞ) or reads the mark twice
// (ｱｻﾋﾋﾞﾙﾒﾝﾃﾅﾝｽ(ﾄﾞﾄﾞ); a mark is a form's (ｶ, ﾕ, ﾄﾞ), never a name's kana.
func markOnce(h string) string {
	for _, form := range holderForms {
		k := form.kana
		if rest, ok := strings.CutSuffix(h, "( "+k); ok {
			h = rest + "(" + k
		}
		if rest, ok := strings.CutSuffix(h, "("+k+k); ok {
			h = rest + "(" + k
		}
		if rest, ok := strings.CutPrefix(h, k+" )"); ok {
			h = k + ")" + rest
		}
	}
	return h
}

// voicedOnce undoes a kana read twice, once voiced and once semi-voiced (ﾊﾞﾊﾟ for ﾊﾞ, as
// a fax's or a photo's ﾊﾞ of ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ was read in the holdout's ledgers): the first
// reading is kept, as the crops' answers had it right each time. No name spells a kana
// voiced and then semi-voiced (バパ, ピビ).
func voicedOnce(h string) string {
	rs := []rune(h)
	for i := 0; i+3 < len(rs); i++ {
		if rs[i] == rs[i+2] && (rs[i+1] == 'ﾞ' && rs[i+3] == 'ﾟ' || rs[i+1] == 'ﾟ' && rs[i+3] == 'ﾞ') {
			rs = slices.Delete(rs, i+2, i+4)
		}
	}
	return string(rs)
}

// itemRow says whether a line is an item's row, not a holder's: after its name it prints
// a rate or a price (「オレンジジュース 1Lx12 6 2,980 8% 17,880」 below the bank's block
// of a fax whose holder was read as noise). A holder's line prints no money but another
// column's, after that column's label (「ｶ) ﾁﾕｳｵｳｷﾞｹﾝ 消費税 ¥12,800」).
func itemRow(ln line) bool {
	if len(ln.hits) > 0 {
		return false
	}
	if strings.Contains(ln.text, "%") {
		return true
	}
	for _, t := range amountsIn(ln.text) {
		if t.value >= 1000 {
			return true
		}
	}
	return false
}

// labelled reads the value that follows a label of field, on the label's line or on
// the line below it (a table's header row over its values), with the label's certainty.
func labelled[T any](ls []line, field string, parse func(string) (T, bool)) (Field[T], bool) {
	for i, ln := range ls {
		for _, h := range ln.hits {
			if h.field != field {
				continue
			}
			if v, ok := parse(h.seg); ok {
				return found(v, ln.conf*sureLabel), true
			}
			if i+1 < len(ls) {
				if v, ok := parse(ls[i+1].text); ok {
					return found(v, ls[i+1].conf*sureLabel*sureNextLine), true
				}
			}
		}
	}
	return Field[T]{}, false
}

func readHolder(ls []line, from, to int, f *Fields) {
	if v, ok := labelled(ls, "holder", holderIn); ok {
		f.AccountHolder = v
		return
	}
	// After the account number on the bank's lines, or a line of kana below them.
	for _, ln := range ls[from:to] {
		s := mask(ln.text, append(anyDateRe, phoneRe)...)
		for _, m := range regexp.MustCompile(`\d{4,8}\s*`).FindAllStringIndex(s, -1) {
			if v, ok := holderIn(s[m[1]:]); ok {
				f.AccountHolder = found(v, ln.conf*surePosition)
				return
			}
		}
	}
	for _, ln := range ls[from:to] {
		if itemRow(ln) {
			continue
		}
		if v, ok := holderIn(ln.text); ok && strings.TrimSpace(ln.text) != "" {
			f.AccountHolder = found(v, ln.conf*surePosition*0.9)
			return
		}
	}
	// A label OCR turned into letters (名義 : read as "DEAS :") before the kana, in the
	// bank's block: the colon says a label stood there.
	for _, ln := range ls[from:to] {
		if m := misreadLabelRe.FindStringIndex(ln.text); m != nil {
			// Without the colon, only a company's holder (its legal-form bracket) says a
			// label stood there: 「3 オレンジジュース」 is an item's row.
			v, ok := holderIn(ln.text[m[1]:])
			if ok && (strings.ContainsAny(ln.text[m[0]:m[1]], ":：") || strings.ContainsAny(v, "()")) {
				f.AccountHolder = found(v, ln.conf*surePosition*0.8)
				return
			}
		}
	}
	// A bracketed kana run after noise, in the bank's block (restoreHolderMark puts
	// back a mark lost from its bracket).
	for _, ln := range ls[from:to] {
		if m := markedKanaRe.FindStringIndex(ln.text); m != nil {
			if v, ok := holderIn(ln.text[m[0]:]); ok {
				f.AccountHolder = found(v, ln.conf*surePosition*0.7)
				return
			}
		}
	}
}

// misreadLabelRe is a short run of letters, digits or kanji and a colon or a space at
// the start of a line: what OCR leaves of a kanji label in a noisy scan (DEAS :,
// 口座名還人:, 名和炎人 for 名義人).
var misreadLabelRe = regexp.MustCompile(`^[A-Za-z0-9\p{Han}]{1,6}\s*[:：\s]\s*`)

// markedKanaRe is a holder's legal-form bracket, its mark or not (ユコ) read for ユ)),
// and the kana after it, anywhere on a line: the label before it read as noise
// (「| 人人 っ ) トウホウキャリア」).
var markedKanaRe = regexp.MustCompile(`(?:(?:[カユメｶﾕﾒ]|ド|ﾄﾞ)\s?[コｺ]?)?\)\s?[\p{Katakana}ｦ-ﾟ]{3}`)

// String shows the fields for test failures and logs.
func (f Fields) String() string {
	return fmt.Sprintf("issuer=%q reg=%q date=%q due=%q total=%d tax=%d to=%q%s bank=%q branch=%q(%s) type=%d no=%q holder=%q",
		f.IssuerName.Value, f.RegistrationNumber.Value, f.InvoiceDate.Value, f.DueDate.Value, f.Total.Value, f.Tax.Value,
		f.Addressee.Value, f.AddresseeHonorific, f.BankName.Value, f.BranchName.Value, f.BranchCode.Value,
		f.AccountType.Value, f.AccountNumber.Value, f.AccountHolder.Value)
}
