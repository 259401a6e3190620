package invoicegen

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"

	"github.com/signintech/gopdf"

	"cardpay/pay"
)

// FontPath is the Japanese font the invoices are set in: IPAex Gothic, from Debian's
// fonts-ipaexfont-gothic (installed by tools/ensure-ocr-tools.sh, task ocr-tools).
var FontPath = "/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf"

// MinchoPath is the holdout layouts' second typeface: IPAex Mincho, from Debian's
// fonts-ipaexfont-mincho (installed by tools/ensure-ocr-tools.sh, task ocr-tools).
var MinchoPath = "/usr/share/fonts/opentype/ipaexfont-mincho/ipaexm.ttf"

var (
	fontOnce sync.Once
	fontData []byte
	fontErr  error

	minchoOnce sync.Once
	minchoData []byte
	minchoErr  error
)

func loadMincho() ([]byte, error) {
	minchoOnce.Do(func() {
		minchoData, minchoErr = os.ReadFile(MinchoPath)
		if minchoErr != nil {
			minchoErr = fmt.Errorf("invoicegen: the IPAex Mincho font is missing (%w); install Debian fonts-ipaexfont-mincho (task ocr-tools)", minchoErr)
		}
	})
	return minchoData, minchoErr
}

func loadFont() ([]byte, error) {
	fontOnce.Do(func() {
		fontData, fontErr = os.ReadFile(FontPath)
		if fontErr != nil {
			fontErr = fmt.Errorf("invoicegen: the IPAex Gothic font is missing (%w); install Debian fonts-ipaexfont-gothic (task ocr-tools)", fontErr)
		}
	})
	return fontData, fontErr
}

// Layout is the arrangement of an invoice page.
type Layout int

const (
	// LayoutClassic: title centred, addressee and amount box on the left, issuer on
	// the right, the item table, totals and the bank block below.
	LayoutClassic Layout = iota
	// LayoutGrid: everything in ruled boxes: the dates and numbers as label/value
	// cells, a tax breakdown table and the bank block as a table.
	LayoutGrid
	// LayoutModern: issuer on the top left, dates on the right, a full-width amount
	// band and the bank block beside the totals.
	LayoutModern

	// The holdout layouts (HoldoutLayouts), which invoiceread was not written against.

	// LayoutTwoColumn: two columns under the title: addressee, amount and dates on the
	// left; issuer and the boxed bank block at the top right; items with a tax-rate
	// column.
	LayoutTwoColumn
	// LayoutLedger: table-heavy, in Mincho: the header numbers and dates in a grid, stamp
	// boxes with round seals, the totals as a boxed grid with labels above values, and
	// 振込先 as a table with its headings in one row and the values in the next.
	LayoutLedger
	// LayoutLetter: a letter (拝啓 … 敬具, 記 … 以上) in Mincho: the date unlabelled at
	// the top right, the amount, due date and account as numbered lines in running text.
	LayoutLetter
)

// Layouts lists the generator's layouts, those the extractor was written against, for
// harnesses that go through them all.
var Layouts = []Layout{LayoutClassic, LayoutGrid, LayoutModern}

// HoldoutLayouts lists the holdout set's layouts: other structures, wordings and font.
var HoldoutLayouts = []Layout{LayoutTwoColumn, LayoutLedger, LayoutLetter}

func (l Layout) String() string {
	switch l {
	case LayoutClassic:
		return "classic"
	case LayoutGrid:
		return "grid"
	case LayoutModern:
		return "modern"
	case LayoutTwoColumn:
		return "twocolumn"
	case LayoutLedger:
		return "ledger"
	case LayoutLetter:
		return "letter"
	}
	return fmt.Sprintf("layout%d", int(l))
}

// A4 in millimetres.
const pageW, pageH = 210.0, 297.0

// page draws on one A4 page in millimetres and keeps the first error, so layouts read
// as a list of what is on the paper.
type page struct {
	pdf    *gopdf.GoPdf
	err    error
	rng    *rand.Rand // label wording; from the truth, so a truth always renders alike
	family string     // "" (IPAex Gothic) or "mincho"
}

func (p *page) font(size float64) {
	family := "ipaex"
	if p.family != "" {
		family = p.family
	}
	if p.err == nil {
		p.err = p.pdf.SetFont(family, "", size)
	}
}

// text puts s with its top-left corner at (x, y).
func (p *page) text(x, y, size float64, s string) {
	p.font(size)
	if p.err != nil {
		return
	}
	p.pdf.SetXY(x, y)
	p.err = p.pdf.Cell(nil, s)
}

func (p *page) width(size float64, s string) float64 {
	p.font(size)
	if p.err != nil {
		return 0
	}
	w, err := p.pdf.MeasureTextWidth(s)
	if err != nil {
		p.err = err
	}
	return w
}

func (p *page) right(xr, y, size float64, s string) { p.text(xr-p.width(size, s), y, size, s) }
func (p *page) center(xc, y, size float64, s string) {
	p.text(xc-p.width(size, s)/2, y, size, s)
}

func (p *page) line(x1, y1, x2, y2, w float64) {
	p.pdf.SetLineWidth(w)
	p.pdf.Line(x1, y1, x2, y2)
}

func (p *page) box(x, y, w, h, lw float64) {
	p.pdf.SetLineWidth(lw)
	p.pdf.RectFromUpperLeftWithStyle(x, y, w, h, "D")
}

func (p *page) fill(x, y, w, h float64, gray uint8) {
	p.pdf.SetFillColor(gray, gray, gray)
	p.pdf.RectFromUpperLeftWithStyle(x, y, w, h, "F")
	p.pdf.SetFillColor(0, 0, 0)
}

func (p *page) choose(options ...string) string { return options[p.rng.IntN(len(options))] }

// RenderPDF sets the invoice as a one-page A4 PDF with a text layer, the way
// accounting software writes them.
func RenderPDF(t Truth, layout Layout) ([]byte, error) {
	font, err := loadFont()
	if err != nil {
		return nil, err
	}
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitMM})
	pdf.SetInfo(gopdf.PdfInfo{Title: "請求書", Producer: "cardpay invoicegen"})
	if err := pdf.AddTTFFontData("ipaex", font); err != nil {
		return nil, fmt.Errorf("invoicegen: font: %w", err)
	}
	if holdoutLayout(layout) {
		mincho, err := loadMincho()
		if err != nil {
			return nil, err
		}
		if err := pdf.AddTTFFontData("mincho", mincho); err != nil {
			return nil, fmt.Errorf("invoicegen: font: %w", err)
		}
	}
	pdf.AddPage()
	p := &page{pdf: pdf, rng: rand.New(rand.NewPCG(uint64(t.Seed), uint64(t.N)))}
	if holdoutLayout(layout) {
		p.rng = rand.New(rand.NewPCG(uint64(t.Seed)^0x401d0a7, uint64(t.N)<<8|uint64(layout)))
	}
	switch layout {
	case LayoutClassic:
		p.classic(t)
	case LayoutGrid:
		p.grid(t)
	case LayoutModern:
		p.modern(t)
	case LayoutTwoColumn:
		p.twoColumn(t)
	case LayoutLedger:
		p.ledger(t)
	case LayoutLetter:
		p.letter(t)
	default:
		return nil, fmt.Errorf("invoicegen: unknown layout %d", layout)
	}
	if p.err != nil {
		return nil, fmt.Errorf("invoicegen: drawing: %w", p.err)
	}
	b, err := pdf.GetBytesPdfReturnErr()
	if err != nil {
		return nil, fmt.Errorf("invoicegen: writing the PDF: %w", err)
	}
	if len(b) == 0 {
		return nil, errors.New("invoicegen: empty PDF")
	}
	return b, nil
}

func (p *page) dateLabel() string {
	return p.choose("請求日", "発行日", "請求書発行日", "ご請求日")
}
func (p *page) dueLabel() string {
	return p.choose("お支払期限", "支払期日", "お振込期限", "お支払期日")
}
func (p *page) totalLabel() string {
	return p.choose("ご請求金額", "ご請求額", "今回ご請求額", "ご請求金額（税込）")
}

func (p *page) issuerBlock(t Truth, x, y float64, alignRight bool) {
	put := p.text
	if alignRight {
		put = p.right
	}
	put(x, y, 13, t.IssuerPrinted)
	put(x, y+7, 8.5, t.IssuerAddress)
	tel := "TEL " + t.TEL + "　FAX " + t.FAX
	if p.rng.IntN(2) == 0 {
		tel = "TEL：" + t.TEL + " / FAX：" + t.FAX
	}
	put(x, y+11.5, 8.5, tel)
	put(x, y+16, 8.5, p.choose("登録番号：", "登録番号 ", "適格請求書発行事業者登録番号：")+t.RegistrationNumber)
	if t.Seal {
		// The 角印 sits over the end of the name, as a stamp does.
		w := p.width(13, t.IssuerPrinted)
		sx := x + w - 12
		if alignRight {
			sx = x - 14
		}
		p.seal(t, sx, y-6, 19)
	}
}

// itemsTable draws the lines from y and returns the y below the table.
func (p *page) itemsTable(t Truth, x, y, w float64, ruled bool) float64 {
	cols := []float64{x, x + w*0.55, x + w*0.67, x + w*0.83, x + w}
	rowH := 7.0
	p.fill(x, y, w, rowH, 225)
	heads := []string{"品名", "数量", "単価", "金額"}
	for i, h := range heads {
		p.center((cols[i]+cols[i+1])/2, y+1.8, 9, h)
	}
	yy := y + rowH
	rows := len(t.Items)
	if rows < 6 {
		rows = 6
	}
	for i := 0; i < rows; i++ {
		if i < len(t.Items) {
			it := t.Items[i]
			name := it.Name
			if it.Reduced {
				name += " ※"
			}
			p.text(cols[0]+1.5, yy+1.8, 9, name)
			p.right(cols[2]-1.5, yy+1.8, 9, fmt.Sprint(it.Quantity))
			p.right(cols[3]-1.5, yy+1.8, 9, Yen(it.UnitPrice))
			p.right(cols[4]-1.5, yy+1.8, 9, Yen(it.Amount))
		}
		p.line(x, yy+rowH, x+w, yy+rowH, 0.2)
		yy += rowH
	}
	p.box(x, y, w, yy-y, 0.4)
	if ruled {
		for _, cx := range cols[1:4] {
			p.line(cx, y, cx, yy, 0.2)
		}
	}
	return yy
}

// totals draws 小計, the tax per rate and 合計 right-aligned at xr, and returns the y
// below them.
func (p *page) totals(t Truth, xl, xr, y float64) float64 {
	rows := [][2]string{{"小計", "¥" + Yen(t.Subtotal)}}
	if t.Subtotal8 > 0 {
		rows = append(rows, [2]string{"消費税（10%）", "¥" + Yen(t.Tax10)}, [2]string{"消費税（8%）", "¥" + Yen(t.Tax8)})
	}
	rows = append(rows, [2]string{p.choose("消費税", "消費税合計", "消費税額計"), "¥" + Yen(t.Tax)})
	rows = append(rows, [2]string{p.choose("合計", "税込合計", "合計金額"), "¥" + Yen(t.Total)})
	for i, r := range rows {
		size := 9.5
		if i == len(rows)-1 {
			size = 11
			p.line(xl, y-0.8, xr, y-0.8, 0.4)
		}
		p.text(xl, y, size, r[0])
		p.right(xr, y, size, r[1])
		y += 6
	}
	return y
}

// breakdown is the per-rate summary the インボイス制度 requires, and the ※ note.
func (p *page) breakdown(t Truth, x, y float64) float64 {
	p.text(x, y, 8.5, fmt.Sprintf("10%%対象 ¥%s　消費税 ¥%s", Yen(t.Subtotal10), Yen(t.Tax10)))
	y += 4.5
	if t.Subtotal8 > 0 {
		p.text(x, y, 8.5, fmt.Sprintf("8%%対象 ¥%s　消費税 ¥%s", Yen(t.Subtotal8), Yen(t.Tax8)))
		y += 4.5
		p.text(x, y, 8.5, p.choose("※は軽減税率（8%）対象商品です。", "※印は軽減税率対象品目です。"))
		y += 4.5
	}
	return y
}

func (p *page) accountType(t Truth) string {
	if t.AccountType == pay.AccountCurrent {
		return p.choose("当座", "当座預金", "（当）")
	}
	return p.choose("普通", "普通預金", "（普）")
}

// bank draws the transfer details in one of the forms invoices use.
func (p *page) bank(t Truth, x, y float64, ruled bool) float64 {
	kind := p.rng.IntN(3)
	if ruled {
		kind = 1
	}
	switch kind {
	case 0:
		p.text(x, y, 10, p.choose("【お振込先】", "■振込先", "お振込先"))
		p.text(x, y+5.5, 9.5, fmt.Sprintf("%s　%s　%s　%s", t.BankName, t.BranchPrinted, p.accountType(t), t.AccountNumber))
		p.text(x, y+10.5, 9.5, "口座名義："+t.HolderPrinted)
		return y + 16
	case 1:
		p.text(x, y, 10, p.choose("お振込先", "振込先口座", "【お振込先】"))
		rows := [][2]string{
			{p.choose("金融機関", "銀行名"), t.BankName},
			{p.choose("支店名", "支店"), t.BranchPrinted},
			{p.choose("預金種目", "口座種別", "種別"), p.accountType(t)},
			{"口座番号", t.AccountNumber},
			{p.choose("口座名義", "名義"), t.HolderPrinted},
		}
		yy := y + 5.5
		for _, r := range rows {
			if ruled {
				p.box(x, yy-1, 22, 6, 0.2)
				p.box(x+22, yy-1, 58, 6, 0.2)
			}
			p.text(x+1, yy, 9, r[0])
			p.text(x+24, yy, 9, r[1])
			yy += 6
		}
		return yy + 2
	default:
		p.text(x, y, 9.5, fmt.Sprintf("お振込先：%s %s %s No.%s", t.BankName, t.BranchPrinted, p.accountType(t), t.AccountNumber))
		p.text(x, y+5, 9.5, "名義 "+t.HolderPrinted)
		p.text(x, y+10, 8, "※振込手数料は貴社にてご負担くださいますようお願い申し上げます。")
		return y + 15
	}
}

func (p *page) addressee(t Truth, x, y, w float64) {
	p.text(x, y, 14, t.Addressee+"　"+t.AddresseeSuffix)
	p.line(x, y+7, x+w, y+7, 0.5)
}

func (p *page) classic(t Truth) {
	p.center(pageW/2, 14, 22, p.choose("請 求 書", "請求書", "御請求書"))
	p.right(195, 28, 9.5, p.dateLabel()+"："+t.InvoiceDateText)
	p.right(195, 33, 9.5, "請求書番号："+t.InvoiceNumber)
	p.addressee(t, 15, 38, 85)
	p.text(15, 50, 9.5, "下記のとおりご請求申し上げます。")
	p.box(15, 57, 88, 12, 0.6)
	p.text(18, 60.5, 10, p.totalLabel())
	p.right(100, 59.5, 15, t.TotalText)
	p.text(15, 73, 10, p.dueLabel()+"："+t.DueDateText)
	p.issuerBlock(t, 195, 44, true)
	y := p.itemsTable(t, 15, 84, 180, true)
	p.breakdown(t, 15, y+4)
	y = p.totals(t, 125, 195, y+4)
	p.bank(t, 15, y+8, false)
	p.text(15, 280, 8, "本書に関するお問い合わせは上記までご連絡ください。")
}

func (p *page) grid(t Truth) {
	p.text(15, 14, 20, p.choose("御請求書", "請求書"))
	p.addressee(t, 15, 30, 90)
	// Label/value cells for the dates and the number.
	cells := [][2]string{
		{p.dateLabel(), t.InvoiceDateText},
		{"請求番号", t.InvoiceNumber},
		{p.dueLabel(), t.DueDateText},
	}
	y := 14.0
	for _, c := range cells {
		p.fill(125, y, 28, 7, 230)
		p.box(125, y, 28, 7, 0.3)
		p.box(153, y, 42, 7, 0.3)
		p.text(126.5, y+1.8, 9, c[0])
		p.text(155, y+1.8, 9, c[1])
		y += 7
	}
	p.issuerBlock(t, 125, 44, false)
	p.fill(15, 44, 90, 13, 235)
	p.box(15, 44, 90, 13, 0.5)
	p.text(17, 48.5, 10, p.totalLabel())
	p.right(103, 47.5, 15, t.TotalText)
	y = p.itemsTable(t, 15, 70, 180, true)
	// Tax breakdown as its own table.
	y += 4
	heads := []string{"税率区分", "対象金額（税抜）", "消費税額"}
	rows := [][3]string{{"10%対象", "¥" + Yen(t.Subtotal10), "¥" + Yen(t.Tax10)}}
	if t.Subtotal8 > 0 {
		rows = append(rows, [3]string{"8%対象※", "¥" + Yen(t.Subtotal8), "¥" + Yen(t.Tax8)})
	}
	xs := []float64{15, 40, 75, 105}
	p.fill(15, y, 90, 6, 230)
	for i, h := range heads {
		p.box(xs[i], y, xs[i+1]-xs[i], 6, 0.3)
		p.text(xs[i]+1, y+1.5, 8.5, h)
	}
	yy := y + 6
	for _, r := range rows {
		for i, v := range r {
			p.box(xs[i], yy, xs[i+1]-xs[i], 6, 0.3)
			if i == 0 {
				p.text(xs[i]+1, yy+1.5, 8.5, v)
			} else {
				p.right(xs[i+1]-1, yy+1.5, 8.5, v)
			}
		}
		yy += 6
	}
	if t.Subtotal8 > 0 {
		p.text(15, yy+1.5, 8, "※は軽減税率（8%）対象")
	}
	y2 := p.totals(t, 125, 195, y+1)
	p.bank(t, 15, max(yy+9, y2+4), true)
}

func (p *page) modern(t Truth) {
	p.issuerBlock(t, 15, 16, false)
	p.right(195, 14, 18, p.choose("請求書", "INVOICE 請求書", "ご請求書"))
	p.right(195, 26, 9, "No. "+t.InvoiceNumber)
	p.right(195, 31, 9, p.dateLabel()+" "+t.InvoiceDateText)
	p.right(195, 36, 9, p.dueLabel()+" "+t.DueDateText)
	p.addressee(t, 15, 48, 100)
	p.text(15, 59, 9, "平素より格別のお引き立てを賜り、厚く御礼申し上げます。下記の通りご請求申し上げます。")
	p.fill(15, 66, 180, 12, 40)
	p.pdf.SetTextColor(255, 255, 255)
	p.text(19, 69.8, 11, p.totalLabel())
	p.right(191, 68.5, 16, t.TotalText)
	p.pdf.SetTextColor(0, 0, 0)
	y := p.itemsTable(t, 15, 84, 180, false)
	p.bank(t, 15, y+6, false)
	y = p.totals(t, 125, 195, y+5)
	p.breakdown(t, 125, y+2)
	p.text(15, 282, 8, "備考：お支払期限までにお振込みくださいますようお願いいたします。")
}
