package invoiceread_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cardpay/invoiceread"
)

// value answers one field of f as text for the table below, or "—" when it was not found.
func value(f invoiceread.Fields, name string) string {
	str := func(v string, ok bool) string {
		if !ok {
			return "—"
		}
		return v
	}
	num := func(v int64, ok bool) string {
		if !ok {
			return "—"
		}
		return fmt.Sprint(v)
	}
	switch name {
	case "issuer":
		return str(f.IssuerName.Value, f.IssuerName.Found)
	case "reg":
		return str(f.RegistrationNumber.Value, f.RegistrationNumber.Found)
	case "date":
		return str(f.InvoiceDate.Value, f.InvoiceDate.Found)
	case "due":
		return str(f.DueDate.Value, f.DueDate.Found)
	case "total":
		return num(f.Total.Value, f.Total.Found)
	case "tax":
		return num(f.Tax.Value, f.Tax.Found)
	case "to":
		return str(f.Addressee.Value, f.Addressee.Found)
	case "honorific":
		return f.AddresseeHonorific
	case "bank":
		return str(f.BankName.Value, f.BankName.Found)
	case "branch":
		return str(f.BranchName.Value, f.BranchName.Found)
	case "branch_code":
		return str(f.BranchCode.Value, f.BranchCode.Found)
	case "type":
		return num(int64(f.AccountType.Value), f.AccountType.Found)
	case "number":
		return str(f.AccountNumber.Value, f.AccountNumber.Found)
	case "holder":
		return str(f.AccountHolder.Value, f.AccountHolder.Found)
	}
	panic("unknown field " + name)
}

// A valid registration number (check digit 9) and the same digits with a wrong one.
const (
	validT   = "T9234567890123"
	invalidT = "T1234567890123"
)

func TestInvoicereadExtractRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		want map[string]string
	}{
		// Company names.
		{"株式会社 before the name", "株式会社サンプル商事\n登録番号 " + validT,
			map[string]string{"issuer": "株式会社サンプル商事"}},
		{"株式会社 after the name", "サンプル商事株式会社\n" + validT,
			map[string]string{"issuer": "サンプル商事株式会社"}},
		{"(株) written out", "(株)サンプル商事\n" + validT,
			map[string]string{"issuer": "株式会社サンプル商事"}},
		{"㈱ after the name", "サンプル商事㈱\n" + validT,
			map[string]string{"issuer": "サンプル商事株式会社"}},
		{"full-width （株）", "（株）サンプル商事\n" + validT,
			map[string]string{"issuer": "株式会社サンプル商事"}},
		{"有限会社 with a space", "有限会社 山田工務店\n" + validT,
			map[string]string{"issuer": "有限会社山田工務店"}},
		{"合同会社 with a representative", "合同会社ミライ 代表社員 佐藤一郎\n" + validT,
			map[string]string{"issuer": "合同会社ミライ"}},
		{"the addressee is not the issuer", "株式会社買手 御中\n株式会社売手\n" + validT,
			map[string]string{"issuer": "株式会社売手", "to": "株式会社買手", "honorific": "御中"}},
		{"a sentence above the registration number is no sole proprietor", "下記のとおりご請求申し上げます。\n登録番号 " + validT,
			map[string]string{"issuer": "—"}},
		{"the addressee cut short on another line is not the issuer", "株式会社中野ホールディングス 御中\n株式会社白樺ファーム\n株式会社中野ホール\n" + validT,
			map[string]string{"issuer": "株式会社白樺ファーム", "to": "株式会社中野ホールディングス"}},
		{"labelled issuer", "発行元: 株式会社ラベル\n株式会社ほか",
			map[string]string{"issuer": "株式会社ラベル"}},

		// Registration numbers.
		{"T-number", "登録番号：" + validT, map[string]string{"reg": validT}},
		{"T-number full width with hyphens", "登録番号 Ｔ９２３４－５６７８－９０１２３", map[string]string{"reg": validT}},
		{"T-number with OCR l and O", "T9234567890l23", map[string]string{"reg": validT}},
		{"wrong check digit is not read", "登録番号 " + invalidT, map[string]string{"reg": "—"}},
		// A fax reads a digit twice: T9234567889012 3 has 14 digits; one reading of the 88
		// once passes the check digit. Where two readings pass (the 22 and the 88 of
		// T22914688604927), the page cannot tell: the registry chooses (registry_test).
		{"a digit read twice in a T-number", "登録番号 T92345678890123", map[string]string{"reg": validT}},
		{"a digit read twice where two readings pass", "SAE| RT610 | 人 |T22914688604927ー", map[string]string{"reg": "—"}},
		{"label without the T", "登録番号 9234567890123", map[string]string{"reg": validT}},
		{"14 digits are not a T-number", "T92345678901234", map[string]string{"reg": "—"}},
		{"letters read for digits, the check digit tells which", "YoSe Ry TA925651S08008", map[string]string{"reg": "T4925651308008"}},
		{"R read for an 8 on a fax", "インボイス 登録番号:T9234567R90123", map[string]string{"reg": validT}},
		{"S read for a 2", "登録番号T9S34567890123", map[string]string{"reg": validT}},
		{"letters read for digits, no reading passes", "TA925651S08009", map[string]string{"reg": "—"}},
		// A mark among the digits (issue 28, a scan's T5385518796&480, a photo's
		// T3328362})73094): a speck among thirteen, a digit misread among twelve.
		{"a speck among a T-number's thirteen digits", "MARRHRAGMI T923456789&0123", map[string]string{"reg": validT}},
		{"a mark for a digit among twelve, the check digit tells which", "T9234567})90123", map[string]string{"reg": validT}},
		{"a speck among thirteen digits failing the check", "T123456789&0123", map[string]string{"reg": "—"}},
		{"a word of letters is no T-number", "TASSBZGbgqDQOo", map[string]string{"reg": "—"}},
		{"T read as 1 after the label", "登録番号 : 1" + validT[1:], map[string]string{"reg": validT}},
		{"T read as 7 after the label", "登録番号 7" + validT[1:], map[string]string{"reg": validT}},
		{"番 misread in the label, T read as 1", "登録詩号1" + validT[1:], map[string]string{"reg": validT}},
		{"T run into OCR's letters", "3hH" + validT, map[string]string{"reg": validT}},
		{"letters before a T and 13 digits failing the check", "3hH" + invalidT, map[string]string{"reg": "—"}},
		{"letters before a T and 14 digits", "ABT" + validT[1:] + "5", map[string]string{"reg": "—"}},
		// Label and T both lost (issue 28, holdout photos and faxes): the check digit says.
		{"label and T lost: 13 digits alone", "@#2@8@S8 " + validT[1:], map[string]string{"reg": validT}},
		{"label lost, T read as +7", "TAT ACHRet +7" + validT[1:], map[string]string{"reg": validT}},
		{"label lost, T read as 1", "#089 -1" + validT[1:], map[string]string{"reg": validT}},
		{"13 digits alone failing the check", "JAN " + invalidT[1:], map[string]string{"reg": "—"}},
		{"14 digits alone not begun by a T misread", "4" + validT[1:], map[string]string{"reg": "—"}},
		{"a labelled T-number beats 13 digits alone", "JAN 4912345678904\n登録番号 " + validT, map[string]string{"reg": validT}},

		// Total = subtotal + tax (issue 28: the accuracy run's misses).
		{"tax from the total less the subtotal", "小計  17,280円\n1. 請求額合計 ¥18,662.-",
			map[string]string{"total": "18662", "tax": "1382"}},
		{"tax from 税込合計 less 小計（税抜）", "小計 (税抜)  ¥208,900\n税込合計  ¥229,790",
			map[string]string{"total": "229790", "tax": "20890"}},
		{"no tax from a difference that is no tax", "小計  100,000円\n合計 ¥150,000",
			map[string]string{"total": "150000", "tax": "—"}},
		{"a total read from the wrong line gives way to subtotal + tax", "ご請求金額  (普) 9675752\n¥3,366,825 (税込)\n税抜合計  ¥3,060,750\n消費税等  ¥306,075",
			map[string]string{"total": "3366825", "tax": "306075"}},
		{"a total that balances stands", "小計 ¥100,000\n消費税 ¥10,000\n合計 ¥110,000\n¥120,000",
			map[string]string{"total": "110000", "tax": "10000"}},

		// Dates.
		{"年月日", "請求日 2026年1月5日", map[string]string{"date": "2026-01-05"}},
		{"slashes", "発行日: 2026/1/5", map[string]string{"date": "2026-01-05"}},
		{"令和", "請求日 令和8年1月5日", map[string]string{"date": "2026-01-05"}},
		{"R8.1.5", "請求書発行日 R8.1.5", map[string]string{"date": "2026-01-05"}},
		{"dots with zeros", "請求日 2026.01.05", map[string]string{"date": "2026-01-05"}},
		{"full-width digits", "請求日　２０２６年１月５日", map[string]string{"date": "2026-01-05"}},
		{"令和元年", "発行日 令和元年5月1日", map[string]string{"date": "2019-05-01"}},
		{"令 of 令和 read as another kanji, 日 lost", "No.INV-202512078\n傘和8年9月16日\n株式会社中野ホールディングス 御中\n2. SRT  谷和8 年10月 31",
			map[string]string{"date": "2026-09-16", "due": "2026-10-31"}},
		{"昭和 is no misread 令和", "設立 昭和8年9月16日\n請求日 2026/1/5", map[string]string{"date": "2026-01-05"}},
		{"大和 in an address is no era", "〒100-0001 東京都大和1-2-3\n請求日 2026/1/5", map[string]string{"date": "2026-01-05"}},
		{"due date labels: 支払期日", "支払期日 2026年2月28日", map[string]string{"due": "2026-02-28", "date": "—"}},
		{"a day's 日 read as another kanji", "2. お振込期日 2026年6月30唱", map[string]string{"due": "2026-06-30"}},
		{"a day's two digits set apart", "お支払期限  令和8 年4月 3 0日  登録番号", map[string]string{"due": "2026-04-30"}},
		{"a month's two digits set apart", "発行日付 2026年1 2月5日", map[string]string{"date": "2026-12-05"}},
		// Issue 28, seed 5's photos and scans: a speck between the year and 年; a padded
		// date with one separator lost or read as a comma.
		{"a speck before 年", "請求年月日 |2025人年11月19昌", map[string]string{"date": "2025-11-19"}},
		{"a padded date's second dot lost", "お支払期限 2026.1031  |人生け", map[string]string{"due": "2026-10-31"}},
		{"a padded date's first dot lost", "お支払期限。 : 202603.10  | 人", map[string]string{"due": "2026-03-10"}},
		{"a padded date's dot read as a comma", "請求日 2026.07.15\neA +2026,0831  OH", map[string]string{"date": "2026-07-15", "due": "2026-08-31", "total": "—"}},
		{"an unpadded month with a dot lost is no date", "お支払期限 2026.131", map[string]string{"due": "—"}},
		{"a third digit after the day is no date", "お支払期限 2026年6月301", map[string]string{"due": "—"}},
		{"お支払期限", "お支払期限：2026/02/28", map[string]string{"due": "2026-02-28"}},
		{"a fax's due date with its dots and label lost", "請求日 2025.06.16\nBA20250731  登録番号 T2134943984655",
			map[string]string{"date": "2025-06-16", "due": "2025-07-31"}},
		{"eight digits that are no date after the invoice's stay out", "請求日 2025.06.16\nNo. 20250616-01  口座 20251399",
			map[string]string{"date": "2025-06-16", "due": "—"}},
		{"two such dates: neither is the due date", "請求日 2025.06.16\nBA20250731 X20250815",
			map[string]string{"due": "—"}},
		{"an account number's digits are no date", "請求日 2025.06.16\n普通 1234567 120250731",
			map[string]string{"due": "—"}},
		{"お振込期限", "お振込期限 令和8年2月28日", map[string]string{"due": "2026-02-28"}},
		{"支払期限 spaced by OCR", "支 払 期 限 2026/2/28", map[string]string{"due": "2026-02-28"}},
		{"two dates on one line", "請求日 2026/1/5  お支払期限 2026/2/28",
			map[string]string{"date": "2026-01-05", "due": "2026-02-28"}},
		{"two dates under their labels", "請求日        支払期日\n2026/1/31     2026/2/28",
			map[string]string{"date": "2026-01-31", "due": "2026-02-28"}},
		{"date without label is the invoice date", "2026年1月5日\nお支払期限 2026年2月28日",
			map[string]string{"date": "2026-01-05", "due": "2026-02-28"}},
		{"an unread due label: the later date", "請求日 2026/1/5\nお支払期唱 2026/2/28", map[string]string{"date": "2026-01-05", "due": "2026-02-28"}},
		{"a date years later is no due date", "請求日 2026/1/5\n契約 2028/4/1", map[string]string{"due": "—"}},
		{"令 of 令和 misread", "お振込期限 信和7年6月18日", map[string]string{"due": "2025-06-18"}},
		{"お支払 cut short in a ruled cell", "株式会社エムケイ商会 御中  |お支払 |2026/11/1  |", map[string]string{"due": "2026-11-01"}},
		{"お支払金額 is no due date", "お支払金額 55,000円\nお支払期限 2026/2/28", map[string]string{"due": "2026-02-28", "total": "55000"}},
		{"impossible date is not read", "請求日 2026/2/30", map[string]string{"date": "—"}},

		// Amounts.
		{"¥ with commas", "ご請求金額 ¥1,234", map[string]string{"total": "1234"}},
		// Issue 28, seed 3's and 5's scans, photos and faxes.
		{"a speck beside a comma", "ご請求金額 金130,.680円 (税込)", map[string]string{"total": "130680"}},
		{"the account's number after its type is no total", "御請求額  普通 1224261\n総合計 ¥91,965",
			map[string]string{"total": "91965"}},
		{"a total under ¥1,000 gives way to a labelled one above", "御請求額\n- 91 965円 *\n総合計 ¥91,965", map[string]string{"total": "91965"}},
		{"a total that is the subtotal of a printed taxed sum", "請求額合計\n|  ¥204,480  ¥20,448  \\224.928\n御請求客 224.928円\n小計 204,480円",
			map[string]string{"total": "224928"}},

		{"￥ with a trailing dash", "ご請求金額　￥１，２３４－", map[string]string{"total": "1234"}},
		{"円", "請求金額 1,234円", map[string]string{"total": "1234"}},
		{"金 円也", "金 1,234 円也", map[string]string{"total": "1234"}},
		{"税込 remark", "合計 ¥110,000（税込）", map[string]string{"total": "110000"}},
		{"お支払金額", "お支払金額 55,000円", map[string]string{"total": "55000"}},
		{"小計 before 合計", "小計 100,000\n消費税 10,000\n合計 110,000",
			map[string]string{"total": "110000", "tax": "10000"}},
		{"ご請求金額 beats 合計", "ご請求金額 ¥118,800\n合計 108,000\n消費税 10,800",
			map[string]string{"total": "118800", "tax": "10800"}},
		{"per-rate lines are not the total", "10%対象 合計 100,000 消費税 10,000\n8%対象 合計 1,000 消費税 80\n税込合計 111,080",
			map[string]string{"total": "111080", "tax": "10080"}},
		{"reduced-rate table", "税率  対象金額  消費税\n10%  100,000  10,000\n8%※軽減税率  1,000  80\n合計 111,080",
			map[string]string{"total": "111080", "tax": "10080"}},
		{"消費税合計 is the tax; without a total line, the total is 小計 and it", "小計 ¥161,680\n消費税合計 ¥16,168", map[string]string{"tax": "16168", "total": "177848"}},
		{"内消費税", "合計 ¥11,000 (内消費税 ¥1,000)", map[string]string{"total": "11000", "tax": "1000"}},
		{"消費税等", "消費税等 ¥12,340\n請求金額 ¥135,740", map[string]string{"tax": "12340", "total": "135740"}},
		{"OCR spaces in an amount", "ご請求金額 ¥1 ,234, 567", map[string]string{"total": "1234567"}},
		{"OCR O for zero", "ご請求金額 ¥1,2O0", map[string]string{"total": "1200"}},
		{"quantity is not an amount", "合計 3点 ¥4,500", map[string]string{"total": "4500"}},
		{"no label: largest yen amount", "商品A ¥1,000\n商品B ¥2,000\n¥3,300", map[string]string{"total": "3300"}},
		{"請求金額 as a column header is not the total", "品名  数量  単価  請求金額\nコピー用紙  10  100  1,000\n合計 ¥1,100",
			map[string]string{"total": "1100"}},
		{"amount on the line below its label", "ご請求金額\n¥ 88,000 -", map[string]string{"total": "88000"}},
		{"OCR ] for 1 and a split group", "ご請求金額 ¥ ],868,1 30-", map[string]string{"total": "1868130"}},
		// A header row over its values (issue 28, generator photo): 対象金額(税抜) is one
		// column, and the rule closing ¥55,000's cell is no 1.
		{"a header row's tax, its cell's rule no digit", "対象金額(税抜)  消費税額  小計  ¥550,000\n10%対象  |  ¥550,000,_  __¥55,000|  消費税  ¥55,000\n合計金額  ぎ\\605.000",
			map[string]string{"total": "605000", "tax": "55000"}},
		{"per-rate tax lines disagreeing: the one that is the rate's tax of the base", "10%対象 ¥550,000 消費税 ¥58,000\n10%対象 ¥550,000 消費税 ¥55,000\n合計 ¥605,000",
			map[string]string{"total": "605000", "tax": "55000"}},
		{"a tax that is no tax of the subtotal makes no total with it", "小計 ¥550,000\n消費税 ¥1",
			map[string]string{"total": "550000"}}, // the largest amount, at a guess: not 550,001
		// A label over a table of its own (issue 28, a holdout ledger): the table's rows
		// are not the label's value, and an item's code is no amount.
		{"a label over another header row takes nothing from its rows", "2 1,087,790 円也\n御請求額\n品番  品名  数量 単位  単価  金額\nA-100  レンタルサーバー (月額)  1  x  5.500  5,500",
			map[string]string{"total": "1087790"}},
		{"an item's code is no amount", "御請求額\nA-100 B-107", map[string]string{"total": "—"}},
		// No tax label read (a ruled header as noise): two printed amounts that add up to
		// the total, the smaller 8–10 % of the larger, are the pre-tax amount and its tax.
		{"the tax from a printed split of the total", "税率 WR 消費税 税抜金額 ae\n¥2,391,790  ¥238,026  ¥2,629,816\n請求額合計 ¥2,629,816",
			map[string]string{"total": "2629816", "tax": "238026"}},
		// A ledger's totals row whose headings OCR read as noise: the largest ¥ amount is
		// the subtotal; the total is the amount printed as the sum of it and its tax.
		{"the total is the taxed sum, not the largest ¥", "OLITSR00 RO  ¥178,540 »  ¥16,619  195,159|",
			map[string]string{"total": "195159", "tax": "16619"}},
		{"a label's value nowhere backed gives way to a larger taxed sum", "請求額合計 7\n7 冷凍ギョーザ\n¥136,800  ¥11,731  ¥148,531",
			map[string]string{"total": "148531", "tax": "11731"}},
		{"the account after 預金 on the total's line is no amount", "請求額合計 普通預金9257497\n¥136,800  ¥11,731  ¥148,531",
			map[string]string{"total": "148531", "tax": "11731"}},
		{"a labelled total backed up stays beside a taxed sum", "合計 ¥500,000\n御請求金額 ¥500,000\n10%対象 ¥100,000 ¥10,000 ¥110,000",
			map[string]string{"total": "500000"}},
		{"a small number is backed by nothing", "今回御請求額 3\n1  2\n税抜合計 ¥35,760\n消費税等 ¥2,860\n税込合計 ¥38,620",
			map[string]string{"total": "38620", "tax": "2860"}},
		{"small numbers add up to nothing", "1  2  1",
			map[string]string{"total": "—"}},
		{"a misread tax gives way to a printed split", "請求額合計 ¥114,510\n消費税 1\n¥104,100 ¥10,410",
			map[string]string{"total": "114510", "tax": "10410"}},
		{"no split that fits: no tax", "請求額合計 ¥114,510\n¥100,000 ¥14,510", map[string]string{"total": "114510", "tax": "—"}},
		{"金 … 円 with a period for the comma", "金114.510円(税込)\n北洋銀行  当座預金  5732688", map[string]string{"total": "114510"}},
		{"a fax's amount with its first comma lost", "口座名義 : ホクトシステム (A  合計金額  ー\\1454.860\n10%対象\\1322.600 消費税\\132260",
			map[string]string{"total": "1454860", "tax": "132260"}},
		{"a date is no amount for it", "請求日 2025.10.28\n合計金額 ¥12,000", map[string]string{"total": "12000", "date": "2025-10-28"}},
		{"an account number after 預金 is no money", "北洋銀行  当座預金  5732688\n¥12,000", map[string]string{"total": "12000"}},
		{"the total the invoice confirms beats a misread one", "ご請求金額 ¥868\n小計 ¥1,698,300\n消費税 ¥169,830\n合計金額 ¥1,868,130",
			map[string]string{"total": "1868130", "tax": "169830"}},
		{"a tax over a tenth of the total is not the tax", "消費税 ¥1,322,600\n消費税 ¥132,260\n合計 ¥1,454,860",
			map[string]string{"total": "1454860", "tax": "132260"}},

		// Addressee.
		{"御中 stripped", "株式会社山田商店 御中", map[string]string{"to": "株式会社山田商店", "honorific": "御中"}},
		{"様 for a person", "山田 太郎 様", map[string]string{"to": "山田 太郎", "honorific": "様"}},
		{"お客様 is no addressee", "お客様各位\n株式会社本物 御中", map[string]string{"to": "株式会社本物"}},
		{"OCR specks after the addressee", "株式会社エムケイ商会_ 御中", map[string]string{"to": "株式会社エムケイ商会"}},
		{"an addressee whose 様 was misread", "株式会社エムケイ商会 tk\n株式会社つばさ情報サービス\n登録番号 " + validT,
			map[string]string{"to": "株式会社エムケイ商会", "issuer": "株式会社つばさ情報サービス"}},
		{"御中 across a wide gap", "株式会社高橋製作所                  御中\n                    ㈱みなと企画",
			map[string]string{"to": "株式会社高橋製作所", "honorific": "御中", "issuer": "株式会社みなと企画"}},
		{"two companies side by side, the left one's 御中 misread", "御請求書\n株式会社やまびこ Hh  有限会社海鳴テクノロジー\n〒700-8454 茨城県水戸市南町2-5-5\n登録番号 " + validT,
			map[string]string{"to": "株式会社やまびこ", "honorific": "御中", "issuer": "有限会社海鳴テクノロジー"}},
		{"two companies side by side, the right one abbreviated", "株式会社ジェイ・プラン Bh  (株) 松風商会|\n" + validT,
			map[string]string{"to": "株式会社ジェイ・プラン", "issuer": "株式会社松風商会"}},
		{"株式会社 with its first kanji misread", "伯式会社やまびこ 御中", map[string]string{"to": "株式会社やまびこ"}},
		{"a seal's stroke read as a small kana after the name", "株式会社松風商会っ\n" + validT,
			map[string]string{"issuer": "株式会社松風商会"}},
		{"(株) addressee and department", "(株)山田商店 経理部 御中", map[string]string{"to": "株式会社山田商店 経理部"}},

		// Bank accounts.
		{"bank line in one line", "三菱UFJ銀行 渋谷支店 普通 1234567 カ）ヤマダシヨウジ",
			map[string]string{"bank": "三菱UFJ銀行", "branch": "渋谷", "type": "2", "number": "1234567", "holder": "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ"}},
		{"bank over several lines", "お振込先\nみずほ銀行 東京営業部\n当座預金 口座番号 0012345\n口座名義 （カ サンプル",
			map[string]string{"bank": "みずほ銀行", "branch": "東京営業部", "type": "1", "number": "0012345", "holder": "(ｶ ｻﾝﾌﾟﾙ"}},
		{"short number zero-padded", "三井住友銀行 新宿支店 普通預金 12345",
			map[string]string{"number": "0012345"}},
		{"TEL next to 口座番号", "TEL 03-1234-5678  口座番号 7654321",
			map[string]string{"number": "7654321"}},
		{"TEL on the bank line is not the number", "りそな銀行 本店 普通 TEL 0120-123-456\n口座番号 2345678",
			map[string]string{"number": "2345678", "branch": "本店"}},
		{"FAX is never the number", "楽天銀行 第一営業支店\nFAX 03-9876-5432", map[string]string{"number": "—"}},
		{"half-width kana holder", "口座名義：ﾔﾏﾀﾞ ﾀﾛｳ", map[string]string{"holder": "ﾔﾏﾀﾞ ﾀﾛｳ"}},
		{"the bank's name read as noise: its line's branch, type and number", "お振込先 : [WUT 名古屋営業部 (MH) No.9984630  小計  ¥128,000\nBRA) チュウオウギケン  消費税  \\12.800",
			map[string]string{"bank": "—", "branch": "名古屋営業部", "number": "9984630", "holder": "ｶ)ﾁﾕｳｵｳｷﾞｹﾝ"}},
		{"a branch's telephone is no account line", "株式会社サンプル 渋谷支店 TEL 03-1234-5678",
			map[string]string{"bank": "—", "number": "—"}},
		{"gaps a widened crop leaves before a bracket and a long mark", "口座名義：カ  )ツバサジヨウホウサ  ービス", map[string]string{"holder": "ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ"}},
		{"a wide gap before a long mark with no kana after it still ends the name", "口座名義：ｶ)ｻﾝﾌﾟﾙ  ーー  ーー", map[string]string{"holder": "ｶ)ｻﾝﾌﾟﾙ"}},
		{"a 株式会社's bracket read as ﾘ", "株式会社つばさ情報サービス\n口座名義：ｶﾘﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ", map[string]string{"holder": "ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ"}},
		{"a name that starts with カリ keeps its ﾘ", "株式会社カリヨン\n口座名義：ｶﾘﾖﾝ", map[string]string{"holder": "ｶﾘﾖﾝ"}},
		{"a legal-form mark read twice", "口座名義：ｶｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ", map[string]string{"holder": "ｶ)ｼﾗｶﾊﾞﾌｱ-ﾑ"}},
		{"the holder's label read as a word of letters", "4. 振込口座 京都銀行 AMAR (MH) 3500274\nBRA マツカゼショウカイ (カ",
			map[string]string{"number": "3500274", "holder": "ﾏﾂｶｾﾞｼﾖｳｶｲ(ｶ"}},
		{"a holder's mark read as another form's: the issuer's form", "有限会社東邦キャリア\n" + validT + "\n口座名義 ｶ)ﾄｳﾎｳｷﾔﾘｱ",
			map[string]string{"holder": "ﾕ)ﾄｳﾎｳｷﾔﾘｱ"}},
		{"a holder's lost mark from the issuer's form printed after its name", "三和工業株式会社\n" + validT + "\n口座名義 )ｻﾝﾜｺｳｷﾞﾖｳ",
			map[string]string{"holder": "ｶ)ｻﾝﾜｺｳｷﾞﾖｳ"}},
		{"a holder's lost mark at its end from the issuer's form printed before", "株式会社東和電機\n" + validT + "\n口座名義 ﾄｳﾜﾃﾞﾝｷ(",
			map[string]string{"holder": "ﾄｳﾜﾃﾞﾝｷ(ｶ"}},
		{"an item's row below the bank's block is no holder", "お支払先口座\nゆうちょ銀行 〇一八店\n普通預金 7263664\nBAA :NEF\nオレンジジュース 1Lx12  6  2,980  8%  17,880",
			map[string]string{"holder": "—", "number": "7263664"}},
		{"a holder's bracket read as a kana before the name's own", "株式会社ツバサ情報サービス\n" + validT + "\n口座名義 ｶｶﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ",
			map[string]string{"holder": "ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ"}},
		{"a name that begins so keeps its kana", "株式会社カカオ商事\n" + validT + "\n口座名義 ｶｶｶｵｼﾖｳｼﾞ",
			map[string]string{"holder": "ｶｶｶｵｼﾖｳｼﾞ"}},
		{"a kanji name tells nothing of a kana after the mark", "株式会社加賀和\n" + validT + "\n口座名義 ｶｶｶﾞﾜ",
			map[string]string{"holder": "ｶｶｶﾞﾜ"}},
		{"a holder's mark stays when the issuer read is another company", "株式会社やまびこ\n" + validT + "\n口座名義 ﾕ)ﾄｳﾎｳｷﾔﾘｱ",
			map[string]string{"holder": "ﾕ)ﾄｳﾎｳｷﾔﾘｱ"}},
		{"a holder's mark the issuer's form agrees with stays", "株式会社ひかり食品\n" + validT + "\n口座名義 ｶ)ﾋｶﾘｼﾖｸﾋﾝ",
			map[string]string{"holder": "ｶ)ﾋｶﾘｼﾖｸﾋﾝ"}},
		{"holder on the line below its label", "口座名義\nカブシキガイシャ サンプル", map[string]string{"holder": "ｶﾌﾞｼｷｶﾞｲｼﾔ ｻﾝﾌﾟﾙ"}},
		{"OCR l in the account number", "みずほ銀行 渋谷支店 普通 l234567", map[string]string{"number": "1234567"}},
		{"spaces inside the account number", "口座番号 123 4567", map[string]string{"number": "1234567"}},
		{"branch number in brackets", "三菱UFJ銀行 渋谷支店(135) 普通 1234567",
			map[string]string{"branch": "渋谷", "branch_code": "135"}},
		{"bank name misread by one character", "みずはほ銀行 横浜 支店 (普) 1198283",
			map[string]string{"bank": "みずほ銀行", "branch": "横浜", "type": "2", "number": "1198283"}},
		{"holder's カ) read as 力) and spaced", "口座名義 力) ミナト キカク", map[string]string{"holder": "ｶ)ﾐﾅﾄ ｷｶｸ"}},
		{"holder's カ) read as A)", "名義 A) ヒカリシヨクヒン", map[string]string{"holder": "ｶ)ﾋｶﾘｼﾖｸﾋﾝ"}},
		{"(普) with OCR's spaces", "みずほ銀行 渋谷支店 ( 普) 9481543", map[string]string{"type": "2", "number": "9481543"}},
		{"a branch's name a character off the bank's only such branch", "京都銀行  店営業部  普通  5862799",
			map[string]string{"bank": "京都銀行", "branch": "本店営業部", "number": "5862799"}},
		{"本店 at a bank whose head office is 本店営業部", "北洋銀行 | 本店 | 普通 | 5732688",
			map[string]string{"bank": "北洋銀行", "branch": "本店営業部", "number": "5732688"}},
		{"本店企業部 reads as 本店, and is the bank's 本店営業部", "京都銀行  本店企業部  普通  5862799",
			map[string]string{"bank": "京都銀行", "branch": "本店営業部", "number": "5862799"}},
		{"a rule's end read before the branch", "北洋銀行  ー本店  普通  5732688",
			map[string]string{"bank": "北洋銀行", "branch": "本店営業部", "number": "5732688"}},
		{"本店 stays at a bank that has a 本店", "みずほ銀行 本店 普通 1234567",
			map[string]string{"bank": "みずほ銀行", "branch": "本店", "number": "1234567"}},
		{"a branch's name the bank has: as read", "京都銀行  四条支店  普通  5862799", map[string]string{"branch": "四条"}},
		{"a bank's J read as !", "金融機関  三菱UF!銀行\n口座番号 0646871", map[string]string{"bank": "三菱UFJ銀行", "number": "0646871"}},
		{"a fax's 当座預金 as 当席痕金", "北洋銀行  本店営業部  当席痕金 ”5732688", map[string]string{"type": "1", "number": "5732688"}},
		{"当月代金 is no account type", "当月代金 ¥12,000\n北洋銀行 本店営業部 普通 5732688", map[string]string{"type": "2"}},
		{"an unread type mark is 普通 at a guess", "みずほ銀行 渋谷支店 (H) 9481543", map[string]string{"type": "2", "number": "9481543"}},
		{"an unread type mark before No.", "三菱UFJ銀行 本店 (次) No.9803365", map[string]string{"type": "2"}},
		{"an unread type mark after its label", "金融機関 静岡銀行\n支店名 浜松支店\n口座種別  (#)", map[string]string{"type": "2"}},
		{"holder's ﾞ read as ~", "口座名義  カ)サンワコウキ~ヨウ", map[string]string{"holder": "ｶ)ｻﾝﾜｺｳｷﾞﾖｳ"}},
		{"holder with a hyphen", "口座名義 カ）ツバサジヨウホウサ-ビス", map[string]string{"holder": "ｶ)ﾂﾊﾞｻｼﾞﾖｳﾎｳｻ-ﾋﾞｽ"}},
		{"holder's (カ read as (A at the end", "口座名義 ホクトシステム (A", map[string]string{"holder": "ﾎｸﾄｼｽﾃﾑ(ｶ"}},
		{"holder's space after the bracket", "口座名義 カ） ミナトキカク", map[string]string{"holder": "ｶ)ﾐﾅﾄｷｶｸ"}},
		// What a table's rules and OCR's noise leave round a holder (issue 28: the misses
		// of task ocr:accuracy's generator set).
		{"holder after a table's rule", "名義  | カ)ヒカリシヨクヒン", map[string]string{"holder": "ｶ)ﾋｶﾘｼﾖｸﾋﾝ"}},
		{"holder ends at a wide gap", "名義  | カ)ヒカリシヨクヒン  ー", map[string]string{"holder": "ｶ)ﾋｶﾘｼﾖｸﾋﾝ"}},
		{"holder before another column", "名義カ) ミナトキカク  消費税  ¥12,800", map[string]string{"holder": "ｶ)ﾐﾅﾄｷｶｸ"}},
		{"holder's (カ at the end, then a gap", "口座名義 : ホクトシステム (カ  ーー  リー  合計金額", map[string]string{"holder": "ﾎｸﾄｼｽﾃﾑ(ｶ"}},
		{"a stray digit before the holder's カ)", "「名義人  5カ)ヒカリシヨクヒン  —", map[string]string{"holder": "ｶ)ﾋｶﾘｼﾖｸﾋﾝ"}},
		{"holder's カ) read as hh)", "口座名義 hh) チユウオウギケン", map[string]string{"holder": "ｶ)ﾁﾕｳｵｳｷﾞｹﾝ"}},
		// 口 read as 日 or as the katakana ロ: no word of an invoice begins so.
		{"口座 read 日座", "日座番号 1234567\n日座名義 カ)ミナトキカク", map[string]string{"number": "1234567", "holder": "ｶ)ﾐﾅﾄｷｶｸ"}},
		{"口座 read ロ座", "ロ座番号 7654321\nロ座名義 ヤマダ タロウ", map[string]string{"number": "7654321", "holder": "ﾔﾏﾀﾞ ﾀﾛｳ"}},
		{"holder's カ) read as five letters", "口座名義 BRASH)ﾏﾂｶｾﾞｼﾖｳｶｲ", map[string]string{"holder": "ｶ)ﾏﾂｶｾﾞｼﾖｳｶｲ"}},
		{"holder's ユ） read ユコ)", "口座名義 ユコ)ウミナリテクノロジー", map[string]string{"holder": "ﾕ)ｳﾐﾅﾘﾃｸﾉﾛｼﾞ-"}},
		{"holder's ﾄﾞ) half width read ﾄﾞｺ)", "名義人 ﾄﾞｺ)ｺﾄﾌﾞｷｶﾝｺｳ", map[string]string{"holder": "ﾄﾞ)ｺﾄﾌﾞｷｶﾝｺｳ"}},
		{"a holder beginning コ keeps it", "口座名義 コトブキ(ｶ", map[string]string{"holder": "ｺﾄﾌﾞｷ(ｶ"}},
		{"a small kana read twice (ュユ)", "口座名義 カ)チュユウオウギケン", map[string]string{"holder": "ｶ)ﾁﾕｳｵｳｷﾞｹﾝ"}},
		{"a small kana read twice (ョヨ)", "口座名義 カ)ヒカリショヨクヒン", map[string]string{"holder": "ｶ)ﾋｶﾘｼﾖｸﾋﾝ"}},
		{"both date labels lost: the first date issued, the later one due", "請求書  ‘Re  2026/8/2\n合同会社ブルーオーシャン 御中  “SME  2026/8/16",
			map[string]string{"date": "2026-08-02", "due": "2026-08-16"}},
		{"holder's label read as letters before a colon", "みずほ銀行横浜支店 (普) 1198283  消費税合計  ¥132,260\nDEAS : ホクトシステム (A  合計金額",
			map[string]string{"holder": "ﾎｸﾄｼｽﾃﾑ(ｶ"}},
		{"a line of letters and a colon far from a bank is no holder", "DEAS : ホクトシステム", map[string]string{"holder": "—"}},
		{"holder's lost カ restored from the issuer's 株式会社", "株式会社ヒカリ食品\n登録番号 " + validT + "\n名義  ) ヒカリシヨクヒン",
			map[string]string{"holder": "ｶ)ﾋｶﾘｼﾖｸﾋﾝ"}},
		{"holder's lost カ restored at the end", "ホクトシステム株式会社\n登録番号 " + validT + "\n口座名義 ホクトシステム(",
			map[string]string{"holder": "ﾎｸﾄｼｽﾃﾑ(ｶ"}},
		{"holder's lost mark for a 有限会社", "有限会社ミナト\n登録番号 " + validT + "\n口座名義 )ミナト",
			map[string]string{"holder": "ﾕ)ﾐﾅﾄ"}},
		{"a labelled branch whose bank was not read", "金融機関 [WUT\n支店名 名古屋営業部", map[string]string{"bank": "—", "branch": "名古屋営業部"}},
		// The zengin list knows most branches' names at one bank alone (issue 28, a fax's
		// bank read as noise): the branch names the bank; a name many banks have names none.
		{"a labelled branch only one bank has names the bank", "金融機関 [WUT\n支店名 第一営業支店\n普通 1999915",
			map[string]string{"bank": "楽天銀行", "branch": "第一営業", "number": "1999915"}},
		{"an unlabelled branch only one bank has, the number below it", "RAR 第一営業支店\n-CBRE = 普通 1999915\nカ)トウホウキヤリア",
			map[string]string{"bank": "楽天銀行", "branch": "第一営業", "type": "2", "number": "1999915", "holder": "ｶ)ﾄｳﾎｳｷﾔﾘｱ"}},
		{"a branch only a minor bank has names none: it may be a misread", "4. 振込貼座 FAYST+ats 大神支店 SRS 4519800",
			map[string]string{"bank": "—"}},
		{"an unlabelled branch many banks have is no bank's", "RAR 渋谷支店\n-CBRE = 普通 1999915", map[string]string{"bank": "—"}},
		{"a major bank without 銀行 on a ledger's row with its number", "金剛名。| sae | meme\n| ゆうちょ本  MOB  HhHie  9513921  |",
			map[string]string{"bank": "ゆうちょ銀行", "number": "9513921"}},
		{"a major bank's name without a number on its line is a company's", "みずほ商事株式会社 御中\n品名 保守 1 ¥12,000",
			map[string]string{"bank": "—"}},
		{"an unlabelled branch without a number near it is no account's", "第一営業支店\n件名 保守点検\n品名 部品交換\n備考 なし\n普通 1999915", map[string]string{"bank": "—"}},
		{"支店 as a row header", "金融機関 静岡銀行\n支店             浜松支店", map[string]string{"branch": "浜松"}},
		{"本店営業部", "金融機関 福岡銀行\n支店             本店営業部", map[string]string{"branch": "本店営業部"}},
		{"a ruled cell's wall between the bank and the branch", "銀行名 | 支店名\n| 北洋銀行  |本店営業部\n| 5732688",
			map[string]string{"bank": "北洋銀行", "branch": "本店営業部", "number": "5732688"}},
		{"a year misread in one digit, put right by the page's other date", "請求日 2086.10.27\n2026.11.30",
			map[string]string{"date": "2026-10-27", "due": "2026-11-30"}},
		{"an unlabelled date's year misread, then the due date guessed", "EN 2086.10.27\nEN 2026.11.30",
			map[string]string{"date": "2026-10-27", "due": "2026-11-30"}},
		{"a year far from the others but more than a digit away stays", "請求日 2031.10.27\n支払期日 2026.11.30",
			map[string]string{"date": "2031-10-27", "due": "2026-11-30"}},
		{"a wall read as ] before a branch", "京都銀行 ] 四条支店 普通 1234567", map[string]string{"branch": "四条"}},
		{"a kanji misread before 通預金 is 普", "みずほ銀行新宿支店\n、六通預金 4964962", map[string]string{"type": "2", "number": "4964962"}},
		{"a holder's label read as other kanji, with its colon", "みずほ銀行新宿支店\n普通預金 4964962\n口座名還人:ユコ)ウミナリテクノロジー",
			map[string]string{"holder": "ﾕ)ｳﾐﾅﾘﾃｸﾉﾛｼﾞ-"}},
		{"a holder's label read as other kanji, without its colon", "京都銀行本店営業部 (普) 3500274\n名和炎人 マツカゼショウカイ (カ",
			map[string]string{"holder": "ﾏﾂｶｾﾞｼﾖｳｶｲ(ｶ", "number": "3500274", "type": "2"}},
		{"an item's row after the bank's is no holder", "京都銀行本店営業部 (普) 3500274\n3 オレンジジュース",
			map[string]string{"holder": "—"}},
		{"a holder's bracketed kana after noise, its mark from the issuer's name", "有限会社東邦キャリア\nみずほ銀行新宿支店\n普通預金 4964962\n| 人人 っ ) トウホウキャリア",
			map[string]string{"holder": "ﾕ)ﾄｳﾎｳｷﾔﾘｱ"}},
		{"信用金庫", "城南信用金庫 大井町支店 普通 1111111",
			map[string]string{"bank": "城南信用金庫", "branch": "大井町"}},
		{"ゆうちょ 〇一八店", "ゆうちょ銀行 〇一八店 普通 1234567",
			map[string]string{"bank": "ゆうちょ銀行", "branch": "〇一八", "branch_code": "018", "number": "1234567"}},
		{"a bracketed 当 with OCR's space in it", "お振込先 : みずほ銀行横浜支店( 当) No.3355308",
			map[string]string{"type": "1", "number": "3355308"}},
		{"a branch number a digit off its name's (zengin)", "三菱UFJ銀行 渋谷支店 (店番185) 普通 1234567",
			map[string]string{"branch": "渋谷", "branch_code": "135"}},
		{"a branch name a character off its number's (zengin)", "三菱UFJ銀行 渋各支店 (店番135) 普通 1234567",
			map[string]string{"branch": "渋谷", "branch_code": "135"}},
		{"a branch name and number that agree stay", "三菱UFJ銀行 渋谷中央支店 (店番345) 普通 1234567",
			map[string]string{"branch": "渋谷中央", "branch_code": "345"}},
		{"a name and a number far apart stay as read", "三菱UFJ銀行 渋谷支店 (店番999) 普通 1234567",
			map[string]string{"branch": "渋谷", "branch_code": "999"}},
		{"ゆうちょ 〇 read as the letter O", "ゆうちょ銀行 一O八店 普通 1234567",
			map[string]string{"branch": "一〇八", "branch_code": "108"}},
		{"ゆうちょ 八 read as 人", "ゆうちょ銀行 〇一人店 普通 1234567",
			map[string]string{"branch": "〇一八", "branch_code": "018"}},
		{"a label glued before the bank's name", "お支払先口座みずほ銀行 新宿支店 普通 1234567",
			map[string]string{"bank": "みずほ銀行", "branch": "新宿"}},
		{"ゆうちょ 018支店", "ゆうちょ銀行 018支店 普通 1234567",
			map[string]string{"branch": "〇一八", "branch_code": "018"}},
		{"ゆうちょ 記号番号 hyphenated", "ゆうちょ銀行 記号番号 10180-12345671",
			map[string]string{"branch": "〇一八", "branch_code": "018", "type": "2", "number": "1234567"}},
		{"ゆうちょ 記号 and 番号 apart", "ゆうちょ銀行\n記号 14010 番号 9876541",
			map[string]string{"branch": "四〇八", "branch_code": "408", "type": "2", "number": "0987654"}},
		{"ゆうちょ 振替口座", "振替口座 ゆうちょ銀行 00180-1-123456",
			map[string]string{"branch": "〇一九", "branch_code": "019", "type": "1", "number": "0123456"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := invoiceread.Extract(tc.text, nil)
			for k, want := range tc.want {
				require.Equal(t, want, value(f, k), "%s in %s", k, f)
			}
		})
	}
}

func TestInvoicereadConfidence(t *testing.T) {
	lines := []invoiceread.Line{
		{Text: "ご請求金額 ¥110,000", Confidence: 0.8},
		{Text: "¥999,999", Confidence: 1},
	}
	f := invoiceread.Extract("", lines)
	require.Equal(t, int64(110000), f.Total.Value)
	require.InDelta(t, 0.8*0.95, f.Total.Confidence, 0.01, "line confidence × label certainty")

	// A guess (no label) is less sure than a label on an equally clear line.
	g := invoiceread.Extract("¥110,000", nil)
	require.True(t, g.Total.Found)
	require.Less(t, g.Total.Confidence, 0.6)
	require.False(t, g.DueDate.Found)

	// An account type guessed from an unread mark is shown as 低 and never matched.
	m := invoiceread.Extract("みずほ銀行 渋谷支店 (H) 9481543", nil)
	require.True(t, m.AccountType.Found)
	require.Less(t, m.AccountType.Confidence, 0.3)
	// A bank name corrected against the zengin list is less sure than one read as printed.
	b := invoiceread.Extract("みずはほ銀行 渋谷支店", nil)
	require.Equal(t, "みずほ銀行", b.BankName.Value)
	require.Less(t, b.BankName.Confidence, invoiceread.Extract("みずほ銀行 渋谷支店", nil).BankName.Confidence)
}

func TestInvoicereadFullInvoices(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		want map[string]string
	}{
		{"corporate, pdftotext layout", `
                                   請 求 書
株式会社山田商店 御中                                     請求日: 2026年1月31日
                                                          請求書番号: INV-2026-0131
                                                  株式会社サンプル商事
                                                  〒150-0002 東京都渋谷区渋谷1-2-3
                                                  TEL 03-1234-5678  FAX 03-1234-5679
                                                  登録番号 T9234567890123
下記のとおりご請求申し上げます。
ご請求金額      ¥111,080-（税込）
お支払期限      2026年2月28日

品名                         数量     単価        金額
コピー用紙 ※                  10     100       1,000
システム保守                   1   100,000     100,000
                                        小計       101,000
                              10%対象  100,000   消費税  10,000
                               8%対象    1,000   消費税      80
                                        合計       111,080
※は軽減税率対象
お振込先: 三菱UFJ銀行 渋谷支店 普通 1234567 カ）サンプルシヨウジ
`, map[string]string{"issuer": "株式会社サンプル商事", "reg": validT, "date": "2026-01-31", "due": "2026-02-28",
			"total": "111080", "tax": "10080", "to": "株式会社山田商店", "bank": "三菱UFJ銀行", "branch": "渋谷",
			"type": "2", "number": "1234567", "holder": "ｶ)ｻﾝﾌﾟﾙｼﾖｳｼﾞ"}},
		{"sole proprietor", `
請求書
山田商店株式会社 御中
発行日 R8.1.20
デザイン事務所ひかり
佐藤 光
東京都世田谷区北沢2-3-4
TEL 090-1234-5678
登録番号 T8700150012345
件名 ロゴ制作
小計 50,000
消費税(10%) 5,000
合計 ¥55,000
お支払期日 令和8年2月27日
振込先 楽天銀行 第一営業支店 普通預金 7654321
名義 サトウ ヒカル
`, map[string]string{"issuer": "デザイン事務所ひかり", "reg": "T8700150012345", "date": "2026-01-20", "due": "2026-02-27",
			"total": "55000", "tax": "5000", "to": "山田商店株式会社", "bank": "楽天銀行", "branch": "第一営業",
			"type": "2", "number": "7654321", "holder": "ｻﾄｳ ﾋｶﾙ"}},
		{"ゆうちょ", `
御請求書
株式会社 山田商店 御中
2026/01/10
合同会社ミライ
T9234567890123
御請求金額 金 33,000 円也
うち消費税 3,000
お振込期限 2026/2/10
お振込先 ゆうちょ銀行 記号 10180 番号 12345671
口座名義 ド）ミライ
`, map[string]string{"issuer": "合同会社ミライ", "date": "2026-01-10", "due": "2026-02-10", "total": "33000", "tax": "3000",
			"to": "株式会社山田商店", "bank": "ゆうちょ銀行", "branch": "〇一八", "branch_code": "018", "type": "2",
			"number": "1234567", "holder": "ﾄﾞ)ﾐﾗｲ"}},
		{"OCR noise and a broken layout", `
請　求　書
ｶﾌﾞｼｷｶﾞｲｼｬ
株式会社 山田商店 御 中
(株)ノイズ工業
登 録 番 号 T 9234 5678 9O123
請求日
2026.1.15
ご 請 求 金 額
¥ 2 2 0 ,0 0 0
消費税等 20,000
支払期日 2026 / 2 / 28
TEL 0120-111-222
みずほ銀行
新宿支店
普通
口座番号
1 2 3 4 5 6 7
ｶ)ﾉｲｽﾞｺｳｷﾞﾖｳ
`, map[string]string{"issuer": "株式会社ノイズ工業", "reg": validT, "date": "2026-01-15", "due": "2026-02-28",
			"tax": "20000", "to": "株式会社山田商店", "bank": "みずほ銀行", "branch": "新宿", "type": "2",
			"number": "1234567", "holder": "ｶ)ﾉｲｽﾞｺｳｷﾞﾖｳ"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := invoiceread.Extract(strings.TrimSpace(tc.text), nil)
			for k, want := range tc.want {
				require.Equal(t, want, value(f, k), "%s in %s", k, f)
			}
		})
	}
}
