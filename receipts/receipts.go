// Package receipts draws the two Japanese PDFs a buyer downloads once the supplier was
// paid: the payment statement (支払明細書) and the qualified invoice of the service fee
// (適格請求書, the invoice system's rules: the issuer's registration number, the
// transaction date, what was supplied, the amount by tax rate, the rate and the tax).
// Service finds a transferred payment's facts in the store, draws its receipts and signs
// the URLs the API answers for them; the drawing (Statement, FeeInvoice) needs no
// database, and nothing here speaks HTTP (handlers/web serves the bytes). Text is drawn
// with IPAex Gothic, which is not built into the binary: it is read once from FontPath on
// the server (Debian fonts-ipaexfont-gothic) and embedded in each PDF, so pdftotext reads
// every field back (the tests do). Without the font, drawing fails with an error that
// says how to install it.
package receipts

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/signintech/gopdf"

	"cardpay/pay"
)

// FontPath is the IPAex Gothic font (Debian fonts-ipaexfont-gothic, task ocr-tools).
var FontPath = "/usr/share/fonts/opentype/ipaexfont-gothic/ipaexg.ttf"

var (
	fontOnce sync.Once
	fontData []byte
	fontErr  error
)

func loadFont() ([]byte, error) {
	fontOnce.Do(func() {
		fontData, fontErr = os.ReadFile(FontPath)
		if fontErr != nil {
			fontErr = fmt.Errorf("receipts: the IPAex Gothic font is missing (%w); install Debian fonts-ipaexfont-gothic (task ocr-tools)", fontErr)
		}
	})
	return fontData, fontErr
}

// Statement is the payment statement (支払明細).
type Statement struct {
	ServiceName                                                  string
	IssuedAt                                                     time.Time
	Number                                                       string // the payment's number (pay.InvoiceNumber)
	BuyerName                                                    string // printed with 御中
	SupplierName                                                 string
	InvoiceNumber                                                string // the supplier's invoice number
	InvoiceDate                                                  *time.Time
	DueDate                                                      *time.Time
	BankName, BranchName, AccountType, AccountNumber, HolderName string
	TransferDate                                                 time.Time
	Amount                                                       int64 // the invoice, paid to the supplier
	Fee                                                          int64 // the service fee, tax included
	Total                                                        int64 // charged to the card
	CardLabel                                                    string
	CapturedAt                                                   *time.Time
}

// FeeInvoice is the qualified invoice (適格請求書) of the service fee.
type FeeInvoice struct {
	ServiceName        string
	IssuerName         string
	RegistrationNumber string // T + 13 digits
	IssuedAt           time.Time
	Number             string
	BuyerName          string
	Description        string
	Fee                int64 // tax included
}

// TaxRate is the consumption tax on the fee, in percent (pay.FeeTaxRate).
const TaxRate = pay.FeeTaxRate

// TaxOf is the consumption tax contained in the tax-included fee (pay.FeeTax): the
// receipt and the books' entries state the same figure.
func TaxOf(taxIncluded int64) int64 { return pay.FeeTax(taxIncluded) }

// A4 in millimetres, and the left margin.
const pageW, left = 210.0, 20.0

// doc draws on one A4 page in millimetres and keeps the first error.
type doc struct {
	pdf *gopdf.GoPdf
	err error
	y   float64
}

func newDoc(title string) (*doc, error) {
	font, err := loadFont()
	if err != nil {
		return nil, err
	}
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitMM})
	pdf.SetInfo(gopdf.PdfInfo{Title: title, Producer: "請求書カード払い"})
	if err := pdf.AddTTFFontData("ipaex", font); err != nil {
		return nil, fmt.Errorf("receipts: font: %w", err)
	}
	pdf.AddPage()
	return &doc{pdf: pdf, y: 20}, nil
}

func (d *doc) text(x, y, size float64, s string) {
	if d.err != nil {
		return
	}
	if d.err = d.pdf.SetFont("ipaex", "", size); d.err != nil {
		return
	}
	d.pdf.SetXY(x, y)
	d.err = d.pdf.Cell(nil, s)
}

func (d *doc) right(xr, y, size float64, s string) {
	if d.err != nil {
		return
	}
	if d.err = d.pdf.SetFont("ipaex", "", size); d.err != nil {
		return
	}
	w, err := d.pdf.MeasureTextWidth(s)
	if err != nil {
		d.err = err
		return
	}
	d.text(xr-w, y, size, s)
}

func (d *doc) line(y float64) {
	if d.err == nil {
		d.pdf.SetLineWidth(0.3)
		d.pdf.Line(left, y, pageW-left, y)
	}
}

// row draws a label and its value on one line of the table and moves down.
func (d *doc) row(label, value string) {
	if value == "" {
		value = "―"
	}
	d.text(left+2, d.y, 10.5, label)
	d.text(left+52, d.y, 10.5, value)
	d.y += 7
	d.line(d.y - 1.5)
}

func (d *doc) bytes() ([]byte, error) {
	if d.err != nil {
		return nil, fmt.Errorf("receipts: draw: %w", d.err)
	}
	return d.pdf.GetBytesPdfReturnErr()
}

func dateOrDash(t *time.Time) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return pay.JapaneseDate(*t)
}

// PDF draws the statement.
func (s Statement) PDF() ([]byte, error) {
	d, err := newDoc("支払明細書")
	if err != nil {
		return nil, err
	}
	d.text(left, d.y, 20, "支払明細書")
	d.right(pageW-left, d.y+2, 10, "発行日 "+pay.JapaneseDate(s.IssuedAt))
	d.right(pageW-left, d.y+8, 10, "番号 "+s.Number)
	d.y += 20
	d.text(left, d.y, 13, s.BuyerName+" 御中")
	d.right(pageW-left, d.y, 11, s.ServiceName)
	d.y += 12
	d.text(left, d.y, 10.5, "下記のとおり、お支払いの手続きが完了しましたのでお知らせします。")
	d.y += 6
	d.text(left, d.y, 10.5, "取引先へは振込日に銀行振込でお支払いし、カードへご請求しました。")
	d.y += 11
	d.line(d.y - 1.5)
	d.row("支払先", s.SupplierName)
	d.row("請求書番号", s.InvoiceNumber)
	d.row("請求日", dateOrDash(s.InvoiceDate))
	d.row("支払期日", dateOrDash(s.DueDate))
	d.row("振込先", fmt.Sprintf("%s %s", s.BankName, s.BranchName))
	d.row("口座", fmt.Sprintf("%s %s %s", s.AccountType, s.AccountNumber, s.HolderName))
	d.row("振込日", pay.JapaneseDate(s.TransferDate))
	d.row("請求金額", pay.Yen(s.Amount))
	d.row("手数料（税込）", pay.Yen(s.Fee))
	d.row("カードご請求額", pay.Yen(s.Total))
	d.row("お支払いカード", s.CardLabel)
	d.row("カード売上日", dateOrDash(s.CapturedAt))
	d.y += 6
	d.text(left, d.y, 9, "手数料の適格請求書は、別の書類（適格請求書）でお渡しします。")
	return d.bytes()
}

// PDF draws the fee's qualified invoice.
func (f FeeInvoice) PDF() ([]byte, error) {
	d, err := newDoc("適格請求書")
	if err != nil {
		return nil, err
	}
	tax := TaxOf(f.Fee)
	d.text(left, d.y, 20, "適格請求書（領収書）")
	d.right(pageW-left, d.y+2, 10, "発行日 "+pay.JapaneseDate(f.IssuedAt))
	d.right(pageW-left, d.y+8, 10, "番号 "+f.Number)
	d.y += 20
	d.text(left, d.y, 13, f.BuyerName+" 御中")
	d.y += 10
	d.right(pageW-left, d.y, 11, f.IssuerName)
	d.right(pageW-left, d.y+6, 10, "登録番号 "+f.RegistrationNumber)
	d.right(pageW-left, d.y+12, 10, f.ServiceName)
	d.y += 22
	d.text(left, d.y, 12, fmt.Sprintf("ご請求金額（税込） %s", pay.Yen(f.Fee)))
	d.y += 8
	d.text(left, d.y, 10.5, "上記の金額を、ご登録のクレジットカードにより領収しました。")
	d.y += 11
	d.line(d.y - 1.5)
	d.row("取引年月日", pay.JapaneseDate(f.IssuedAt))
	d.row("取引内容", f.Description+" ※")
	d.row(fmt.Sprintf("%d%%対象（税込）", TaxRate), pay.Yen(f.Fee))
	d.row("税抜金額", pay.Yen(f.Fee-tax))
	d.row(fmt.Sprintf("消費税額（%d%%）", TaxRate), pay.Yen(tax))
	d.row("合計（税込）", pay.Yen(f.Fee))
	d.y += 6
	d.text(left, d.y, 9, fmt.Sprintf("※は消費税率%d%%の対象です。消費税額は税込金額から算出し、1円未満を切り捨てています。", TaxRate))
	return d.bytes()
}
