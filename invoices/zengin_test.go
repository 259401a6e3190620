package invoices_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/japanese"

	"cardpay/invoices"
	"cardpay/pay"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var remitter = invoices.Remitter{Code: "1234567890", Name: "ｾｲｷﾕｳｼﾖｶ-ﾄﾞﾊﾞﾗｲ(ｶ", BankCode: "0005", BankKana: "ミツビシユーエフジエイ",
	BranchCode: "001", BranchKana: "トウキヨウエイギヨウブ", AccountType: pay.AccountCurrent, AccountNumber: "7654321"}

// yearEnd is a file for the first bank day of 2027, made at the end of 2026, paying
// holders with ヴ, ー (as -) and small kana made large, in both account types.
var yearEnd = invoices.TransferFile{
	Remitter: remitter,
	Date:     time.Date(2027, 1, 4, 0, 0, 0, 0, pay.Tokyo()),
	Transfers: []invoices.Transfer{
		{BankCode: "0001", BankKana: "ミズホ", BranchCode: "001", BranchKana: "トウキヨウエイギヨウブ", AccountType: pay.AccountOrdinary,
			AccountNumber: "1234567", HolderName: mustHolder("カ）ヴィーナス・キャッシュ"), Amount: 110000, CustomerCode: "000123"},
		{BankCode: "9900", BankKana: "ユウチヨ", BranchCode: "018", BranchKana: "〇一八", AccountType: pay.AccountCurrent,
			AccountNumber: "0000042", HolderName: mustHolder("ヤマダ　タロウ"), Amount: 9999999999, CustomerCode: "000124"},
	},
}

func mustHolder(s string) string {
	h, err := pay.NormalizeHolderName(s)
	if err != nil {
		panic(err)
	}
	return h
}

// zenginRecord is one record read back, field by field, as a bank's system would.
type zenginRecord map[string]string

// parseZengin reads a file back: Shift_JIS, CR LF, 120 bytes a record, every field of
// every kind of record.
func parseZengin(t *testing.T, b []byte) []zenginRecord {
	t.Helper()
	require.True(t, bytes.HasSuffix(b, []byte("\r\n")), "the last record ends with CR LF")
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\r\n")), []byte("\r\n"))
	layouts := map[byte][]struct {
		name  string
		width int
	}{
		'1': {{"kind", 1}, {"type", 2}, {"code_kind", 1}, {"remitter_code", 10}, {"remitter_name", 40}, {"date", 4},
			{"bank_code", 4}, {"bank_name", 15}, {"branch_code", 3}, {"branch_name", 15}, {"account_type", 1},
			{"account_number", 7}, {"dummy", 17}},
		'2': {{"kind", 1}, {"bank_code", 4}, {"bank_name", 15}, {"branch_code", 3}, {"branch_name", 15}, {"clearing", 4},
			{"account_type", 1}, {"account_number", 7}, {"holder", 30}, {"amount", 10}, {"new_code", 1},
			{"customer_code1", 10}, {"customer_code2", 10}, {"transfer_kind", 1}, {"mark", 1}, {"dummy", 7}},
		'8': {{"kind", 1}, {"count", 6}, {"total", 12}, {"dummy", 101}},
		'9': {{"kind", 1}, {"dummy", 119}},
	}
	dec := japanese.ShiftJIS.NewDecoder()
	var out []zenginRecord
	for i, line := range lines {
		require.Len(t, line, invoices.ZenginRecordLen, "record %d is 120 bytes", i+1)
		layout, ok := layouts[line[0]]
		require.True(t, ok, "record %d kind %q", i+1, line[0])
		rec := zenginRecord{}
		pos := 0
		for _, f := range layout {
			s, err := dec.Bytes(line[pos : pos+f.width])
			require.NoError(t, err)
			rec[f.name] = string(s)
			pos += f.width
		}
		require.Equal(t, invoices.ZenginRecordLen, pos)
		out = append(out, rec)
	}
	return out
}

func TestZenginFileGolden(t *testing.T) {
	b, err := yearEnd.Bytes()
	require.NoError(t, err)
	golden := filepath.Join("testdata", "zengin-2027-01-04.txt")
	if *update {
		require.NoError(t, os.WriteFile(golden, b, 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run `go test ./pay -run Golden -update` once to write it")
	assert.Equal(t, want, b, "the file, byte for byte")
	assert.Len(t, b, 5*(invoices.ZenginRecordLen+2), "header, two transfers, trailer, end")

	recs := parseZengin(t, b)
	require.Len(t, recs, 5)
	h := recs[0]
	assert.Equal(t, "1", h["kind"])
	assert.Equal(t, "21", h["type"], "総合振込")
	assert.Equal(t, "0", h["code_kind"])
	assert.Equal(t, "1234567890", h["remitter_code"])
	assert.Equal(t, "ｾｲｷﾕｳｼﾖｶ-ﾄﾞﾊﾞﾗｲ(ｶ", strings.TrimRight(h["remitter_name"], " "))
	assert.Equal(t, "0104", h["date"], "取組日 of the new year")
	assert.Equal(t, "0005", h["bank_code"])
	assert.Equal(t, "ﾐﾂﾋﾞｼﾕ-ｴﾌｼﾞｴｲ", strings.TrimRight(h["bank_name"], " "))
	assert.Equal(t, "001", h["branch_code"])
	assert.Equal(t, "ﾄｳｷﾖｳｴｲｷﾞﾖｳﾌﾞ", strings.TrimRight(h["branch_name"], " "))
	assert.Equal(t, "2", h["account_type"], "当座 is the banks' 2")
	assert.Equal(t, "7654321", h["account_number"])
	assert.Equal(t, strings.Repeat(" ", 17), h["dummy"])

	d := recs[1]
	assert.Equal(t, "2", d["kind"])
	assert.Equal(t, "0001", d["bank_code"])
	assert.Equal(t, "ﾐｽﾞﾎ", strings.TrimRight(d["bank_name"], " "))
	assert.Equal(t, "001", d["branch_code"])
	assert.Equal(t, "    ", d["clearing"])
	assert.Equal(t, "1", d["account_type"], "普通 is the banks' 1")
	assert.Equal(t, "1234567", d["account_number"])
	assert.Equal(t, "ｶ)ｳﾞｲ-ﾅｽ.ｷﾔﾂｼﾕ", strings.TrimRight(d["holder"], " "), "ヴ, ー and small kana")
	assert.Equal(t, "0000110000", d["amount"])
	assert.Equal(t, "0", d["new_code"])
	assert.Equal(t, "000123", strings.TrimRight(d["customer_code1"], " "))
	assert.Equal(t, "7", d["transfer_kind"])
	d2 := recs[2]
	assert.Equal(t, "2", d2["account_type"])
	assert.Equal(t, "9999999999", d2["amount"], "the largest amount the field holds")
	assert.Equal(t, "ﾔﾏﾀﾞ ﾀﾛｳ", strings.TrimRight(d2["holder"], " "))
	assert.Equal(t, strings.Repeat(" ", 15), d2["branch_name"], "a branch name with kanji is left blank")

	tr := recs[3]
	assert.Equal(t, "8", tr["kind"])
	assert.Equal(t, "000002", tr["count"])
	total, _ := strconv.ParseInt(tr["total"], 10, 64)
	assert.Equal(t, yearEnd.Total(), total)
	assert.Equal(t, "010000109999", tr["total"])
	assert.Equal(t, "9", recs[4]["kind"])
	assert.Equal(t, "9"+strings.Repeat(" ", 119), string(b[len(b)-122:len(b)-2]))
}

func TestZenginFileRefusesWhatItCannotWrite(t *testing.T) {
	for name, mutate := range map[string]func(f *invoices.TransferFile){
		"kanji holder":      func(f *invoices.TransferFile) { f.Transfers[0].HolderName = "山田" },
		"zero amount":       func(f *invoices.TransferFile) { f.Transfers[0].Amount = 0 },
		"too large":         func(f *invoices.TransferFile) { f.Transfers[0].Amount = 10_000_000_000 },
		"account type 0":    func(f *invoices.TransferFile) { f.Transfers[0].AccountType = pay.AccountDefault },
		"bank code letters": func(f *invoices.TransferFile) { f.Transfers[0].BankCode = "00A1" },
		"long account":      func(f *invoices.TransferFile) { f.Transfers[0].AccountNumber = "12345678" },
	} {
		f := yearEnd
		f.Transfers = append([]invoices.Transfer(nil), yearEnd.Transfers...)
		mutate(&f)
		_, err := f.Bytes()
		assert.Error(t, err, name)
	}
	empty := invoices.TransferFile{Remitter: remitter, Date: yearEnd.Date}
	b, err := empty.Bytes()
	require.NoError(t, err)
	recs := parseZengin(t, b)
	require.Len(t, recs, 3)
	assert.Equal(t, "000000", recs[1]["count"], "an empty day is a header, a zero trailer and the end")
	assert.Equal(t, "sogofurikomi-20270104-2.txt", invoices.ZenginFileName(yearEnd.Date, 2))
}

func TestReadTransferFile(t *testing.T) {
	b, err := yearEnd.Bytes()
	require.NoError(t, err)
	got, err := invoices.ReadTransferFile(b)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, invoices.FiledTransfer{BankCode: "0001", BranchCode: "001", AccountNumber: "1234567", Amount: 110000, CustomerCode: "000123"}, got[0])
	assert.Equal(t, int64(9999999999), got[1].Amount)
	// A changed amount no longer matches the trailer; a cut file has no end.
	bad := bytes.Replace(b, []byte("0000110000"), []byte("0000110001"), 1)
	_, err = invoices.ReadTransferFile(bad)
	assert.ErrorContains(t, err, "trailer")
	_, err = invoices.ReadTransferFile(b[:len(b)-122])
	assert.Error(t, err)
	_, err = invoices.ReadTransferFile(b[:len(b)-1])
	assert.Error(t, err)
}
