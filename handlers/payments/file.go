package payments

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/invoicefiles"
	"cardpay/pay"
	pages "cardpay/views/payments"
)

// InvoiceInfoPath is the payment journey's first step (InvoiceInfoPage, 支払先の選択); the
// file page links to it with ?file=<id> so the journey starts from what was read.
const InvoiceInfoPath = links.PaymentInvoiceInfoStep

// readFieldLabels are the fields read from an invoice (invoiceread.Fields, stored by the
// OCR job under these keys), in the order the page shows them.
var readFieldLabels = []struct{ Key, Label string }{
	{"issuer_name", "請求元（取引先）"},
	{"registration_number", "登録番号"},
	{"invoice_date", "請求日"},
	{"due_date", "お支払期限"},
	{"total", "ご請求金額（税込）"},
	{"tax", "うち消費税"},
	{"addressee", "宛名"},
	{"bank_name", "金融機関"},
	{"branch_name", "支店"},
	{"account_type", "口座種別"},
	{"account_number", "口座番号"},
	{"account_holder", "口座名義"},
}

// FilePattern is an uploaded invoice file's page (FilePath + id).
const FilePattern = FilePath + ":id"

// ShowFilePage is the uploaded file's page; another buyer's file is 404.
func (h *Handler) ShowFilePage(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	u := web.CurrentUser(c)
	f, err := h.Store.InvoiceFile(c.Request().Context(), u.BuyerID, id)
	if err != nil {
		return err
	}
	b, err := h.Base(c, "アップロードした請求書")
	if err != nil {
		return err
	}
	dl, _ := h.InvoiceFiles.DownloadURL(u.BuyerID, f.ID)
	v := pages.InvoiceFileView{
		Name: f.OriginalName, Size: FormatSize(f.Size), TypeLabel: typeLabel(f.MediaType), Pages: f.Pages,
		DownloadURL: dl, NextURL: InvoiceInfoPath + "?file=" + idString(f.ID), Preview: filePreview(f.ID, f.MediaType, f.Pages),
	}
	switch f.OCRStatus {
	case "pending", "running":
		// No self-refresh (WCAG 2.2.1: a page must not reload under a reader's eyes):
		// without JavaScript the buyer follows the reading with the page's own link.
		v.Reading, v.Status = true, "読み取り中…"
	case "done":
		v.Status = "読み取りが終わりました"
		m, ok, err := h.InvoiceFiles.FileMatch(c.Request().Context(), u.BuyerID, f)
		if err != nil {
			return err
		}
		if ok {
			// What pre-fills the payment: the reading with the supplier's history.
			offered, _ := json.Marshal(m.Offered.Fields)
			v.Fields = readFields(offered, m.Provenance)
			v.Match = matchView(m)
		} else {
			v.Fields = readFields(f.OCRFields, nil)
		}
		for _, fl := range v.Fields {
			v.FromHistory = v.FromHistory || fl.FromHistory
		}
		if len(v.Fields) == 0 {
			v.Note = "請求書から読み取れた項目はありませんでした。次の画面で入力してください。"
		}
	case "unavailable":
		v.Status = "読み取りは利用できません"
		v.Note = "現在、請求書の自動読み取りを利用できません。ファイルは保存されています。次の画面で請求書の内容を入力してください。"
	default:
		v.Status = "読み取れませんでした"
		v.Note = "請求書を読み取れませんでした。ファイルは保存されています。次の画面で請求書の内容を入力してください。"
	}
	v.Base = b
	return web.Render(c, http.StatusOK, pages.InvoiceFilePage(v))
}

// storedField is one stored field. Every field is stored, found or not (Found false
// leaves it out), beside entries that are no field (addressee_honorific, a string), so
// each is decoded on its own.
type storedField struct {
	Value      any     `json:"value"`
	Confidence float64 `json:"confidence"`
	Found      *bool   `json:"found"`
}

// readFields are the stored fields for the page, in readFieldLabels' order, each with
// its provenance (provenance nil: read from the invoice).
func readFields(raw []byte, provenance func(key string) (invoicefiles.Provenance, bool)) []pages.ReadField {
	var m map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	var out []pages.ReadField
	for _, l := range readFieldLabels {
		var f storedField
		b, ok := m[l.Key]
		if !ok || json.Unmarshal(b, &f) != nil || f.Value == nil || f.Value == "" || (f.Found != nil && !*f.Found) {
			continue
		}
		rf := pages.ReadField{Label: l.Label, Value: fieldValue(l.Key, f.Value), Confidence: ConfidenceLabel(f.Confidence),
			Source: invoicefiles.ReadBadge(f.Confidence)}
		if provenance != nil {
			if p, ok := provenance(l.Key); ok {
				rf.Source, rf.FromHistory = p.Badge(), p.FromHistory()
			}
		}
		out = append(out, rf)
	}
	return out
}

func fieldValue(key string, v any) string {
	switch x := v.(type) {
	case float64:
		switch key {
		case "total", "tax":
			return pay.Yen(int64(x))
		case "account_type":
			if label := pay.AccountType(int(x)).Label(); label != "" {
				return label
			}
		}
		return formatNumber(x)
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func formatNumber(x float64) string {
	b, _ := json.Marshal(x)
	return string(b)
}

// ConfidenceLabel is a reading's confidence for people: 高 (0.85 and above), 中 (0.6 and
// above) or 低 (invoicefiles.ConfidenceLabel, which the provenance badges use too).
func ConfidenceLabel(c float64) string { return invoicefiles.ConfidenceLabel(c) }

func typeLabel(mediaType string) string {
	switch mediaType {
	case pay.FileTypePDF:
		return "PDF"
	case pay.FileTypeJPEG:
		return "JPEG"
	case pay.FileTypePNG:
		return "PNG"
	}
	return mediaType
}

// FormatSize is a file size for people: 512 B, 1.5 KB, 3.2 MB (as the island shows it).
func FormatSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
