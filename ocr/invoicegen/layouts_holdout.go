package invoicegen

import (
	"fmt"
	"strings"

	"cardpay/pay"
)

// The holdout layouts: drawn like the generator's, but with other structures, label
// wordings and the Mincho face, so that the accuracy run measures the extractor on
// invoices it was not written against.

func holdoutLayout(l Layout) bool {
	return l == LayoutTwoColumn || l == LayoutLedger || l == LayoutLetter
}

func (p *page) hDateLabel() string {
	return p.choose("請求日", "発行日付", "請求年月日", "作成日")
}
func (p *page) hDueLabel() string {
	return p.choose("お支払期限", "支払期限日", "振込期限", "お振込期日")
}
func (p *page) hTotalLabel() string {
	return p.choose("ご請求金額", "御請求額", "請求額合計", "今回御請求額")
}
func (p *page) hNumberLabel() string {
	return p.choose("請求書No.", "請求No.", "伝票番号", "請求書番号")
}
func (p *page) hHolderLabel() string {
	return p.choose("口座名義", "名義人", "受取人", "口座名義人")
}
func (p *page) hBankHeading() string {
	return p.choose("お振込み先", "振込口座", "御振込先", "お支払先口座")
}

// hRegistration is the registration number with one of the wordings, sometimes with no
// separator at all (登録番号T1234…).
func (p *page) hRegistration(t Truth) string {
	return p.choose("適格請求書発行事業者登録番号　", "登録番号", "インボイス登録番号：", "登録番号 : ") + t.RegistrationNumber
}

func (p *page) hAccountType(t Truth) string {
	if t.AccountType == pay.AccountCurrent {
		return p.choose("当座", "当座預金")
	}
	return p.choose("普通", "普通預金", "(普)")
}

func (p *page) hTel(t Truth) string {
	return p.choose("TEL ", "電話 ", "Tel. ") + t.TEL + p.choose("　FAX ", " / FAX ", "　ﾌｧｯｸｽ ") + t.FAX
}

// hIssuer draws the issuer left-aligned at x, the 角印 over the end of its name.
func (p *page) hIssuer(t Truth, x, y float64) float64 {
	p.text(x, y, 12.5, t.IssuerPrinted)
	p.text(x, y+7, 8.5, t.IssuerAddress)
	p.text(x, y+11.5, 8.5, p.hTel(t))
	p.text(x, y+16, 8, p.hRegistration(t))
	if t.Seal {
		p.seal(t, x+p.width(12.5, t.IssuerPrinted)-10, y-5, 18)
	}
	return y + 21
}

var sealNames = []string{"佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "中村", "小林"}

// twoColumn: the title over two columns; the bank block is boxed at the top right.
func (p *page) twoColumn(t Truth) {
	p.family = "mincho"
	p.text(15, 12, 24, p.choose("請求書", "御請求書", "ご請求書"))
	p.family = ""
	p.line(15, 23, 100, 23, 0.8)
	p.addressee(t, 15, 29, 85)
	p.text(15, 40, 9, p.choose("下記の通りご請求申し上げます。", "毎度ありがとうございます。下記のとおりご請求いたします。"))
	y := 47.0
	for _, r := range [][2]string{{p.hNumberLabel(), t.InvoiceNumber}, {p.hDateLabel(), t.InvoiceDateText}, {p.hDueLabel(), t.DueDateText}} {
		p.text(15, y, 9.5, r[0])
		p.text(42, y, 9.5, "： "+r[1])
		y += 5.5
	}
	p.box(15, y+2, 85, 15, 0.8)
	p.text(17.5, y+3.5, 9, p.hTotalLabel())
	p.right(97, y+8.5, 16, t.TotalText)

	yb := p.hIssuer(t, 112, 29) + 4
	p.box(112, yb, 83, 25, 0.4)
	p.fill(112.2, yb+0.2, 82.6, 6, 235)
	p.text(114, yb+1.3, 9, p.hBankHeading())
	p.text(114, yb+8, 9.5, t.BankName+"　"+t.BranchPrinted)
	p.text(114, yb+13, 9.5, p.hAccountType(t)+"　"+t.AccountNumber)
	p.text(114, yb+18, 9, p.hHolderLabel()+"："+t.HolderPrinted)

	// Items with a tax-rate column instead of ※.
	x, w, top := 15.0, 180.0, 96.0
	cols := []float64{x, x + 10, x + 95, x + 112, x + 137, x + 152, x + w}
	p.fill(x, top, w, 7, 210)
	for i, h := range []string{"No.", "品目", "数量", "単価", "税率", "金額"} {
		p.center((cols[i]+cols[i+1])/2, top+1.8, 9, h)
	}
	yy := top + 7
	for i, it := range t.Items {
		rate := "10%"
		if it.Reduced {
			rate = p.choose("8%", "軽8%", "8%※")
		}
		p.center((cols[0]+cols[1])/2, yy+1.8, 9, fmt.Sprint(i+1))
		p.text(cols[1]+1.5, yy+1.8, 9, it.Name)
		p.right(cols[3]-1.5, yy+1.8, 9, fmt.Sprint(it.Quantity))
		p.right(cols[4]-1.5, yy+1.8, 9, Yen(it.UnitPrice))
		p.center((cols[4]+cols[5])/2, yy+1.8, 9, rate)
		p.right(cols[6]-1.5, yy+1.8, 9, Yen(it.Amount))
		p.line(x, yy+7, x+w, yy+7, 0.15)
		yy += 7
	}
	p.line(x, yy, x+w, yy, 0.6)
	yy += 4
	rows := [][2]string{{p.choose("税抜合計", "小計（税抜）"), "¥" + Yen(t.Subtotal)}}
	rows = append(rows, [2]string{fmt.Sprintf("10%%対象 ¥%s 消費税", Yen(t.Subtotal10)), "¥" + Yen(t.Tax10)})
	if t.Subtotal8 > 0 {
		rows = append(rows, [2]string{fmt.Sprintf("8%%対象 ¥%s 消費税", Yen(t.Subtotal8)), "¥" + Yen(t.Tax8)})
	}
	rows = append(rows, [2]string{p.choose("消費税等", "消費税額合計"), "¥" + Yen(t.Tax)})
	rows = append(rows, [2]string{p.choose("税込合計", "合計（税込）", "総合計"), "¥" + Yen(t.Total)})
	for i, r := range rows {
		size := 9.0
		if i == len(rows)-1 {
			size = 11
			p.line(105, yy-1, 195, yy-1, 0.4)
		}
		p.text(105, yy, size, r[0])
		p.right(195, yy, size, r[1])
		yy += 5.5
	}
	p.text(15, yy+6, 8, p.choose("※軽減税率対象品目には税率8%と記載しています。", "備考：振込手数料は貴社にてご負担をお願いいたします。"))
}

// ledger: everything in ruled cells, in Mincho, with stamp boxes.
func (p *page) ledger(t Truth) {
	p.family = "mincho"
	p.center(pageW/2, 12, 22, p.choose("請　求　書", "御　請　求　書"))
	p.line(80, 22, 130, 22, 0.5)
	p.line(80, 23, 130, 23, 0.5)

	// Header grid: label cells shaded, two pairs a row.
	hdr := [][2]string{
		{p.hNumberLabel(), t.InvoiceNumber}, {p.hDateLabel(), t.InvoiceDateText},
		{p.hDueLabel(), t.DueDateText}, {"登録番号", t.RegistrationNumber},
	}
	for i, c := range hdr {
		x, y := 15+float64(i%2)*90, 28+float64(i/2)*7
		p.fill(x, y, 25, 7, 225)
		p.box(x, y, 25, 7, 0.3)
		p.box(x+25, y, 65, 7, 0.3)
		p.text(x+1.5, y+1.8, 8.5, c[0])
		p.text(x+27, y+1.8, 9, c[1])
	}

	p.addressee(t, 15, 48, 90)
	p.text(15, 58, 9, "下記のとおり御請求申し上げます。")
	// Issuer on the right, without its number (it is in the grid).
	p.text(115, 47, 12, t.IssuerPrinted)
	p.text(115, 54, 8.5, t.IssuerAddress)
	p.text(115, 58.5, 8.5, p.hTel(t))
	if t.Seal {
		p.seal(t, 115+p.width(12, t.IssuerPrinted)-9, 42, 17)
	}
	// Stamp boxes: 承認 and 担当, each with a round seal.
	for i, h := range []string{"承認", "担当"} {
		x := 159 + float64(i)*18
		p.box(x, 63, 18, 5, 0.3)
		p.box(x, 68, 18, 16, 0.3)
		p.center(x+9, 63.8, 8, h)
		p.sealRound(sealNames[p.rng.IntN(len(sealNames))], x+2.5+p.rng.Float64()*2, 69+p.rng.Float64()*2, 12)
	}

	// The amount due as a boxed row.
	p.fill(15, 66, 40, 12, 225)
	p.box(15, 66, 40, 12, 0.6)
	p.box(55, 66, 90, 12, 0.6)
	p.text(17, 69.5, 10, p.hTotalLabel())
	p.right(142, 68.5, 15, t.TotalText)

	// Items, every cell ruled.
	x, top := 15.0, 90.0
	cols := []float64{x, x + 22, x + 100, x + 115, x + 125, x + 150, x + 180}
	p.fill(x, top, 180, 7, 225)
	for i, h := range []string{"品番", "品名", "数量", "単位", "単価", "金額"} {
		p.center((cols[i]+cols[i+1])/2, top+1.8, 9, h)
	}
	rows := max(len(t.Items), 7)
	yy := top + 7
	for i := range rows {
		if i < len(t.Items) {
			it := t.Items[i]
			name := it.Name
			if it.Reduced {
				name = "※" + name
			}
			p.text(cols[0]+1.5, yy+1.8, 8.5, fmt.Sprintf("%c-%03d", 'A'+rune(i), 100+7*i))
			p.text(cols[1]+1.5, yy+1.8, 9, name)
			p.right(cols[3]-1.5, yy+1.8, 9, fmt.Sprint(it.Quantity))
			p.center((cols[3]+cols[4])/2, yy+1.8, 9, p.choose("式", "個", "点"))
			p.right(cols[5]-1.5, yy+1.8, 9, Yen(it.UnitPrice))
			p.right(cols[6]-1.5, yy+1.8, 9, Yen(it.Amount))
		}
		yy += 7
	}
	for r := 0; r <= rows+1; r++ {
		p.line(x, top+float64(r)*7, x+180, top+float64(r)*7, 0.2)
	}
	for _, cx := range cols {
		p.line(cx, top, cx, yy, 0.2)
	}
	p.box(x, top, 180, yy-top, 0.5)

	// Totals as a boxed grid: the labels in one row, the values in the next.
	yy += 5
	heads := []string{p.choose("税抜金額", "小計"), p.choose("消費税額", "消費税等"), p.hTotalLabel()}
	vals := []string{"¥" + Yen(t.Subtotal), "¥" + Yen(t.Tax), "¥" + Yen(t.Total)}
	for i := range heads {
		cx := 75 + float64(i)*40
		p.fill(cx, yy, 40, 6, 225)
		p.box(cx, yy, 40, 6, 0.3)
		p.box(cx, yy+6, 40, 9, 0.5)
		p.center(cx+20, yy+1.3, 8.5, heads[i])
		p.right(cx+38, yy+8.5, 11, vals[i])
	}
	// The per-rate breakdown as a small grid on the left.
	brk := [][3]string{{"税率", "対象額", "消費税"}, {"10%", "¥" + Yen(t.Subtotal10), "¥" + Yen(t.Tax10)}}
	if t.Subtotal8 > 0 {
		brk = append(brk, [3]string{"8%※", "¥" + Yen(t.Subtotal8), "¥" + Yen(t.Tax8)})
	}
	for r, row := range brk {
		for i, v := range row {
			cx, cy, cw := 15+[]float64{0, 12, 34}[i], yy+float64(r)*5.5, []float64{12, 22, 20}[i]
			p.box(cx, cy, cw, 5.5, 0.2)
			if r == 0 || i == 0 {
				p.text(cx+1, cy+1.2, 7.5, v)
			} else {
				p.right(cx+cw-1, cy+1.2, 7.5, v)
			}
		}
	}
	yy += 22

	// 振込先 as a table: headings in one row, the values in the next.
	p.text(15, yy, 10, p.hBankHeading())
	yy += 5.5
	bh := []string{p.choose("金融機関名", "銀行名"), "支店名", p.choose("預金種目", "種別"), "口座番号", p.hHolderLabel() + p.choose("（カナ）", "")}
	bv := []string{t.BankName, t.BranchPrinted, p.hAccountType(t), t.AccountNumber, t.HolderPrinted}
	bw := []float64{32, 30, 20, 24, 74}
	bx := 15.0
	for i := range bh {
		p.fill(bx, yy, bw[i], 6, 225)
		p.box(bx, yy, bw[i], 6, 0.3)
		p.box(bx, yy+6, bw[i], 8, 0.3)
		p.center(bx+bw[i]/2, yy+1.3, 8.5, bh[i])
		p.text(bx+1.5, yy+8, 9, bv[i])
		bx += bw[i]
	}
	yy += 20
	p.box(15, yy, 180, 16, 0.3)
	p.text(17, yy+1.5, 8.5, "備考")
	p.text(17, yy+7, 8.5, p.choose("お支払期限までに上記口座へお振込みください。振込手数料は貴社負担にてお願いいたします。",
		"※印は軽減税率（8%）対象です。"))
}

// letter: 拝啓 … 敬具 and 記 … 以上 in Mincho; the date at the top without a label.
func (p *page) letter(t Truth) {
	p.family = "mincho"
	p.right(195, 14, 9.5, "No. "+t.InvoiceNumber)
	p.right(195, 19.5, 9.5, t.InvoiceDateText)
	p.text(15, 28, 13, t.Addressee+"　"+t.AddresseeSuffix)
	y := p.hIssuer(t, 120, 38)
	if p.rng.IntN(5) < 2 {
		// A second, round seal (the person in charge's), over the end of the TEL line.
		p.sealRound(sealNames[p.rng.IntN(len(sealNames))], 178, 45, 13)
	}
	p.center(pageW/2, y+6, 18, p.choose("御請求書", "請求書", "ご請求のご案内"))
	y += 20
	body := []string{
		"拝啓　時下ますますご清栄のこととお慶び申し上げます。平素は格別のお引き立てを",
		"賜り、厚く御礼申し上げます。さて、下記のとおりご請求申し上げますので、ご査収の",
		"うえ期日までにお振込みくださいますようお願い申し上げます。",
	}
	for _, l := range body {
		p.text(18, y, 10, l)
		y += 6
	}
	p.right(195, y, 10, "敬具")
	y += 9
	p.center(pageW/2, y, 11, "記")
	y += 9
	p.text(20, y, 10.5, "１．"+p.hTotalLabel()+"　　"+t.TotalText)
	y += 7.5
	p.text(20, y, 10.5, "２．"+p.hDueLabel()+"　　"+t.DueDateText)
	y += 7.5
	p.text(20, y, 10.5, "３．内訳")
	y += 6.5
	for _, it := range t.Items {
		name := it.Name
		if it.Reduced {
			name += "（軽減）"
		}
		p.text(30, y, 9.5, name)
		p.right(150, y, 9.5, fmt.Sprintf("%d × %s", it.Quantity, Yen(it.UnitPrice)))
		p.right(185, y, 9.5, Yen(it.Amount)+"円")
		y += 5.5
	}
	p.line(30, y, 185, y, 0.2)
	y += 2
	rows := [][2]string{{"小計", Yen(t.Subtotal) + "円"}}
	if t.Subtotal8 > 0 {
		rows = append(rows, [2]string{"消費税（10%）", Yen(t.Tax10) + "円"}, [2]string{"消費税（8%・軽減）", Yen(t.Tax8) + "円"})
	}
	rows = append(rows, [2]string{p.choose("消費税計", "消費税"), Yen(t.Tax) + "円"}, [2]string{"合計", Yen(t.Total) + "円"})
	for _, r := range rows {
		p.text(110, y, 9.5, r[0])
		p.right(185, y, 9.5, r[1])
		y += 5.5
	}
	y += 4
	account := strings.Join([]string{t.BankName, t.BranchPrinted, p.hAccountType(t), t.AccountNumber}, "　")
	p.text(20, y, 10.5, "４．"+p.hBankHeading()+"　"+account)
	y += 7
	p.text(32, y, 10.5, p.hHolderLabel()+"　"+t.HolderPrinted)
	y += 10
	p.right(195, y, 10, "以上")
	p.text(15, 282, 8, "※お振込手数料は御社にてご負担くださいますようお願い申し上げます。")
}
