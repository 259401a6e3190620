package invoices

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/japanese"

	"cardpay/pay"
)

// The 全銀協 総合振込 file (zengin format) that a bank takes to pay many suppliers at once:
// fixed 120-byte records — one header, one data record per transfer, one trailer, one
// end record — each followed by CR LF, in Shift_JIS, with every name in half-width
// kana (JIS X 0201). Account types are the banks' codes (1 普通, 2 当座), converted from
// ours here, at the file's boundary only (DESIGN.md §4).

// ZenginRecordLen is the length of every record, without its CR LF.
const ZenginRecordLen = 120

// Zengin record kinds (データ区分).
const (
	zenginHeader  = '1'
	zenginData    = '2'
	zenginTrailer = '8'
	zenginEnd     = '9'
)

// Remitter is the service's own account, from which the transfers are made
// (configuration: TRANSFER_REMITTER_*).
type Remitter struct {
	// Code is the 振込依頼人コード the bank gave the service (10 digits).
	Code string
	// Name is the 振込依頼人名 in half-width kana, as the bank registered it.
	Name                 string
	BankCode, BranchCode string
	BankKana, BranchKana string
	AccountType          pay.AccountType
	AccountNumber        string
}

// Transfer is one payment to a supplier.
type Transfer struct {
	BankCode, BranchCode string
	// BankKana and BranchKana are zengin's kana of the bank and branch (full- or
	// half-width); a name that cannot be written in the file is left blank, which
	// banks accept (they route by code).
	BankKana, BranchKana string
	AccountType          pay.AccountType
	AccountNumber        string
	// HolderName is the account holder as stored (already the zengin form).
	HolderName string
	Amount     int64
	// CustomerCode is our payment number (顧客コード1), for matching the bank's
	// results back to the payment.
	CustomerCode string
}

// TransferFile is one day's 総合振込 file.
type TransferFile struct {
	Remitter Remitter
	// Date is the transfer date (取組日, printed as MMDD).
	Date      time.Time
	Transfers []Transfer
}

// Total is the sum of the file's transfers.
func (f TransferFile) Total() int64 {
	var t int64
	for _, tr := range f.Transfers {
		t += tr.Amount
	}
	return t
}

// field is one fixed-width column: numeric ones are right-aligned with zeros, the
// others left-aligned with spaces.
type zenginRecord struct {
	b   strings.Builder
	err error
}

func (r *zenginRecord) num(v string, width int) {
	if r.err != nil {
		return
	}
	if !pay.AllDigits(v) && v != "" || len(v) > width {
		r.err = fmt.Errorf("pay: zengin: %q is not a number of at most %d digits", v, width)
		return
	}
	r.b.WriteString(strings.Repeat("0", width-len(v)) + v)
}

func (r *zenginRecord) int(v int64, width int) {
	if v < 0 {
		r.err = fmt.Errorf("pay: zengin: negative amount %d", v)
		return
	}
	r.num(fmt.Sprint(v), width)
}

// text writes a half-width text column of width bytes (each JIS X 0201 character is
// one byte in Shift_JIS), cut to width and padded with spaces.
func (r *zenginRecord) text(v string, width int) {
	if r.err != nil {
		return
	}
	for _, c := range v {
		if !zenginByteChar(c) {
			r.err = fmt.Errorf("pay: zengin: %q is not a half-width character (in %q)", c, v)
			return
		}
	}
	if n := utf8.RuneCountInString(v); n > width {
		v = string([]rune(v)[:width])
	} else {
		v += strings.Repeat(" ", width-n)
	}
	r.b.WriteString(v)
}

// zenginByteChar says whether c is one byte in the file: ASCII printable or
// half-width katakana.
func zenginByteChar(c rune) bool {
	return c >= 0x20 && c <= 0x7E || c >= 0xFF61 && c <= 0xFF9F
}

// ZenginKana converts a bank's or a branch's kana to the file's half-width form,
// "" when it cannot be written there.
func ZenginKana(s string) string {
	k, err := pay.NormalizeHolderName(s)
	if err != nil {
		return ""
	}
	return k
}

// Bytes writes the file: Shift_JIS, CR LF after every record.
func (f TransferFile) Bytes() ([]byte, error) {
	var records []string
	add := func(fill func(r *zenginRecord)) error {
		var r zenginRecord
		fill(&r)
		if r.err != nil {
			return r.err
		}
		if n := utf8.RuneCountInString(r.b.String()); n != ZenginRecordLen {
			return fmt.Errorf("pay: zengin: a record of %d characters", n)
		}
		records = append(records, r.b.String())
		return nil
	}
	rm := f.Remitter
	if !rm.AccountType.Valid() {
		return nil, fmt.Errorf("pay: zengin: the remitter's account type %d", rm.AccountType)
	}
	err := add(func(r *zenginRecord) {
		r.b.WriteRune(zenginHeader)
		r.b.WriteString("21") // 種別コード: 総合振込
		r.b.WriteString("0")  // コード区分: JIS (Shift_JIS)
		r.num(rm.Code, 10)
		r.text(rm.Name, 40)
		r.b.WriteString(f.Date.In(pay.Tokyo()).Format("0102"))
		r.num(rm.BankCode, 4)
		r.text(ZenginKana(rm.BankKana), 15)
		r.num(rm.BranchCode, 3)
		r.text(ZenginKana(rm.BranchKana), 15)
		r.int(int64(rm.AccountType.ZenginCode()), 1)
		r.num(rm.AccountNumber, 7)
		r.text("", 17)
	})
	if err != nil {
		return nil, err
	}
	for i, t := range f.Transfers {
		if !t.AccountType.Valid() {
			return nil, fmt.Errorf("pay: zengin: transfer %d: account type %d", i+1, t.AccountType)
		}
		if t.Amount <= 0 {
			return nil, fmt.Errorf("pay: zengin: transfer %d: amount %d", i+1, t.Amount)
		}
		err := add(func(r *zenginRecord) {
			r.b.WriteRune(zenginData)
			r.num(t.BankCode, 4)
			r.text(ZenginKana(t.BankKana), 15)
			r.num(t.BranchCode, 3)
			r.text(ZenginKana(t.BranchKana), 15)
			r.text("", 4) // 手形交換所番号: unused
			r.int(int64(t.AccountType.ZenginCode()), 1)
			r.num(t.AccountNumber, 7)
			r.text(t.HolderName, 30)
			r.int(t.Amount, 10)
			r.b.WriteString("0") // 新規コード: none
			r.text(t.CustomerCode, 10)
			r.text("", 10)       // 顧客コード2
			r.b.WriteString("7") // 振込指定区分: 電信振込
			r.text("", 1)        // 識別表示
			r.text("", 7)        // ダミー
		})
		if err != nil {
			return nil, fmt.Errorf("%w (transfer %d)", err, i+1)
		}
	}
	err = add(func(r *zenginRecord) {
		r.b.WriteRune(zenginTrailer)
		r.int(int64(len(f.Transfers)), 6)
		r.int(f.Total(), 12)
		r.text("", 101)
	})
	if err != nil {
		return nil, err
	}
	if err := add(func(r *zenginRecord) {
		r.b.WriteRune(zenginEnd)
		r.text("", 119)
	}); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := japanese.ShiftJIS.NewEncoder()
	for _, rec := range records {
		b, err := enc.Bytes([]byte(rec))
		if err != nil {
			return nil, fmt.Errorf("pay: zengin: Shift_JIS: %w", err)
		}
		if len(b) != ZenginRecordLen {
			return nil, fmt.Errorf("pay: zengin: a record of %d bytes in Shift_JIS", len(b))
		}
		out.Write(b)
		out.WriteString("\r\n")
	}
	return out.Bytes(), nil
}

// ZenginFileName is the download's name: the transfer date and the record count.
func ZenginFileName(date time.Time, n int) string {
	return fmt.Sprintf("sogofurikomi-%s-%d.txt", date.In(pay.Tokyo()).Format("20060102"), n)
}

// FiledTransfer is one data record of a 総合振込 file, read back.
type FiledTransfer struct {
	BankCode, BranchCode string
	AccountNumber        string
	Amount               int64
	CustomerCode         string
}

// ReadTransferFile reads the data records of a file Bytes made, checking its shape:
// CR LF after 120-byte records, a header first, the trailer's count and total equal to
// the records', the end record last. The reconciliation compares them with the
// payments.
func ReadTransferFile(b []byte) ([]FiledTransfer, error) {
	if !bytes.HasSuffix(b, []byte("\r\n")) {
		return nil, fmt.Errorf("pay: zengin: the file does not end with CR LF")
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\r\n")), []byte("\r\n"))
	if len(lines) < 3 || len(lines[0]) == 0 || lines[0][0] != zenginHeader {
		return nil, fmt.Errorf("pay: zengin: no header record")
	}
	var out []FiledTransfer
	var sum int64
	trailer := false
	for i, l := range lines {
		if len(l) != ZenginRecordLen {
			return nil, fmt.Errorf("pay: zengin: record %d is %d bytes", i+1, len(l))
		}
		switch l[0] {
		case zenginData:
			amount, err := strconvDigits(l[80:90])
			if err != nil {
				return nil, fmt.Errorf("pay: zengin: record %d amount: %w", i+1, err)
			}
			out = append(out, FiledTransfer{BankCode: string(l[1:5]), BranchCode: string(l[20:23]),
				AccountNumber: string(l[43:50]), Amount: amount, CustomerCode: strings.TrimRight(string(l[91:101]), " ")})
			sum += amount
		case zenginTrailer:
			count, err1 := strconvDigits(l[1:7])
			total, err2 := strconvDigits(l[7:19])
			if err1 != nil || err2 != nil || count != int64(len(out)) || total != sum {
				return nil, fmt.Errorf("pay: zengin: the trailer says %s records and ¥%s, the file has %d and ¥%d",
					l[1:7], l[7:19], len(out), sum)
			}
			trailer = true
		case zenginEnd:
			if !trailer || i != len(lines)-1 {
				return nil, fmt.Errorf("pay: zengin: the end record is out of place")
			}
		case zenginHeader:
			if i != 0 {
				return nil, fmt.Errorf("pay: zengin: a second header at record %d", i+1)
			}
		default:
			return nil, fmt.Errorf("pay: zengin: record %d has kind %q", i+1, l[0])
		}
	}
	if lines[len(lines)-1][0] != zenginEnd {
		return nil, fmt.Errorf("pay: zengin: no end record")
	}
	return out, nil
}

func strconvDigits(b []byte) (int64, error) {
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a number", b)
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}
