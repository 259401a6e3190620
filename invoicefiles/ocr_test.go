package invoicefiles_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/files"
	"cardpay/invoicefiles"
	"cardpay/invoiceread"
	"cardpay/ocr"
	"cardpay/ocr/invoicegen"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

var db *storetest.DB

func TestMain(m *testing.M) { storetest.Run(m, &db) }

// Recording a file with QueueOCR queues its reading with it: the "ocr" job (the value
// stored job rows carry), the file named in its payload, keyed by the file.
func TestQueueOCRQueuesTheFilesReading(t *testing.T) {
	ctx := context.Background()
	u, err := db.Store.CreateBuyer(ctx, store.NewBuyer{
		BusinessForm: pay.Corporation, CorporateName: "テスト株式会社", BusinessName: "テスト商店",
		EmailAddress: "queue@files.example", PasswordHash: "hash", LastName: "山田", FirstName: "太郎",
	})
	require.NoError(t, err)
	f, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, store.NewInvoiceFile{
		StorageKey: "invoices/test-queue-ocr", OriginalName: "invoice.pdf", Size: 1000,
		MediaType: pay.FileTypePDF, SHA256: strings.Repeat("ab", 32), Pages: 1,
	}, invoicefiles.QueueOCR(ctx, db.Store))
	require.NoError(t, err)

	var jobs []store.Job
	require.NoError(t, db.Store.DB.SelectContext(ctx, &jobs, `SELECT id, kind, payload, unique_key, max_attempts FROM jobs
		WHERE unique_key = $1`, fmt.Sprintf("ocr-%d", f.ID)))
	require.Len(t, jobs, 1)
	assert.Equal(t, "ocr", invoicefiles.OCRJobKind)
	assert.Equal(t, invoicefiles.OCRJobKind, jobs[0].Kind)
	assert.Equal(t, 3, jobs[0].MaxAttempts)
	var p invoicefiles.OCRJob
	require.NoError(t, json.Unmarshal(jobs[0].Payload, &p))
	assert.Equal(t, invoicefiles.OCRJob{BuyerID: u.BuyerID, FileID: f.ID}, p)
}

// The same bytes uploaded again are not read again: the job copies the buyer's earlier
// reading (a reader without its tools proves nothing was read), and never another
// buyer's.
func TestTheSameFileIsNotReadTwice(t *testing.T) {
	ctx := context.Background()
	newBuyer := func(email string) int64 {
		u, err := db.Store.CreateBuyer(ctx, store.NewBuyer{
			BusinessForm: pay.Corporation, CorporateName: "テスト株式会社", BusinessName: "テスト商店",
			EmailAddress: email, PasswordHash: "hash", LastName: "山田", FirstName: "太郎",
		})
		require.NoError(t, err)
		return u.BuyerID
	}
	sum := strings.Repeat("cd", 32)
	file := func(buyerID int64, key string) store.InvoiceFile {
		f, err := db.Store.CreateInvoiceFile(ctx, buyerID, store.NewInvoiceFile{
			StorageKey: key, OriginalName: "invoice.pdf", Size: 1000, MediaType: pay.FileTypePDF, SHA256: sum, Pages: 1,
		}, invoicefiles.QueueOCR(ctx, db.Store))
		require.NoError(t, err)
		return f
	}
	job := func(buyerID, fileID int64) json.RawMessage {
		b, _ := json.Marshal(invoicefiles.OCRJob{BuyerID: buyerID, FileID: fileID})
		return b
	}
	buyer, other := newBuyer("twice@files.example"), newBuyer("twice-other@files.example")
	first := file(buyer, "invoices/twice-1")
	read := store.InvoiceFileOCR{Status: store.OCRDone, Fields: json.RawMessage(`{"total":{"value":"11000"}}`), Text: "請求書 ¥11,000", Ms: 2400,
		Lines: json.RawMessage(`[{"t":"請求書 ¥11,000","c":0.9,"p":1,"b":[10,10,200,40]}]`)}
	require.NoError(t, db.Store.SetInvoiceFileOCR(ctx, buyer, first.ID, read))

	job0 := &invoicefiles.OCR{Store: db.Store, Files: &files.Local{Dir: t.TempDir()}, Reader: &ocr.Reader{ToolDir: t.TempDir()}}
	again := file(buyer, "invoices/twice-2")
	require.NoError(t, job0.Run(ctx, job(buyer, again.ID)))
	got, err := db.Store.InvoiceFile(ctx, buyer, again.ID)
	require.NoError(t, err)
	assert.Equal(t, store.OCRDone, got.OCRStatus, "copied, not read")
	assert.JSONEq(t, string(read.Fields), string(got.OCRFields))
	assert.Equal(t, read.Text, got.OCRText)
	lines, err := db.Store.InvoiceFileLines(ctx, buyer, again.ID)
	require.NoError(t, err)
	assert.JSONEq(t, string(read.Lines), string(lines), "the lines are copied too: a payment of the copy learns from them")

	// Another buyer's identical file is theirs to read: here, without the tools, it is not.
	theirs := file(other, "invoices/twice-3")
	require.NoError(t, job0.Run(ctx, job(other, theirs.ID)))
	got, err = db.Store.InvoiceFile(ctx, other, theirs.ID)
	require.NoError(t, err)
	assert.NotEqual(t, store.OCRDone, got.OCRStatus, "another buyer's reading is never copied")
}

// registry stands for account.Corporations: it knows one corporation. asked, when not
// nil, records what IssuerNames was asked, a call a row.
type registry struct {
	number, name, kana string
	asked              *[][]string
}

func (r registry) IssuerName(_ context.Context, n string) (string, string, bool) {
	return r.name, r.kana, n == r.number
}

func (r registry) IssuerNames(_ context.Context, ns []string) map[string]store.Corporation {
	if r.asked != nil {
		*r.asked = append(*r.asked, ns)
	}
	out := map[string]store.Corporation{}
	if slices.Contains(ns, r.number) {
		out[r.number] = store.Corporation{CorporateNumber: r.number, Name: r.name, NameKana: r.kana}
	}
	return out
}

// readWithRegistry reads truth's invoice, rendered as a text PDF, with the OCR job for a
// new buyer, the job's registry knowing one corporation; it answers the fields kept.
func readWithRegistry(t *testing.T, name string, truth invoicegen.Truth, reg registry) invoiceread.Fields {
	t.Helper()
	ctx := context.Background()
	u, err := db.Store.CreateBuyer(ctx, store.NewBuyer{
		BusinessForm: pay.Corporation, CorporateName: "テスト株式会社", BusinessName: "テスト商店",
		EmailAddress: name + "@files.example", PasswordHash: "hash", LastName: "山田", FirstName: "太郎",
	})
	require.NoError(t, err)
	pdf, err := invoicegen.RenderPDF(truth, invoicegen.LayoutClassic)
	require.NoError(t, err)
	fs := &files.Local{Dir: t.TempDir()}
	key := "invoices/" + name
	require.NoError(t, fs.Put(ctx, key, bytes.NewReader(pdf), int64(len(pdf)), pay.FileTypePDF))
	f, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, store.NewInvoiceFile{
		StorageKey: key, OriginalName: "invoice.pdf", Size: int64(len(pdf)), MediaType: pay.FileTypePDF,
		SHA256: fmt.Sprintf("%x", sha256.Sum256(pdf)), Pages: 1,
	}, invoicefiles.QueueOCR(ctx, db.Store))
	require.NoError(t, err)
	job := &invoicefiles.OCR{Store: db.Store, Files: fs, Registry: reg}
	payload, _ := json.Marshal(invoicefiles.OCRJob{BuyerID: u.BuyerID, FileID: f.ID})
	require.NoError(t, job.Run(ctx, payload))
	got, err := db.Store.InvoiceFile(ctx, u.BuyerID, f.ID)
	require.NoError(t, err)
	require.Equal(t, store.OCRDone, got.OCRStatus)
	var fields invoiceread.Fields
	require.NoError(t, json.Unmarshal(got.OCRFields, &fields))
	return fields
}

// A corporation's registration number read from the invoice names it in the registry:
// the registered name stands over the name read, and the fields say so.
func TestTheRegistryNamesTheIssuer(t *testing.T) {
	truth := invoicegen.New(21).Invoice()
	fields := readWithRegistry(t, "registry", truth, registry{truth.RegistrationNumber[1:], "登録上の名前 株式会社", "ミナトキカコ", nil})
	assert.Equal(t, truth.RegistrationNumber, fields.RegistrationNumber.Value)
	assert.Equal(t, "登録上の名前株式会社", fields.IssuerName.Value, "the registered name, not the printed one")
	assert.True(t, fields.IssuerFromRegistry)
	// The holder printed ﾐﾅﾄｷｶｸ(ｶ is one kana from the registry's furigana: its spelling.
	require.Equal(t, "ﾐﾅﾄｷｶｸ(ｶ", truth.AccountHolder)
	assert.Equal(t, "ﾐﾅﾄｷｶｺ(ｶ", fields.AccountHolder.Value, "the registry's furigana spells the holder")
}

// A registration number printed (or read) with a digit wrong fails its check digit: the
// job asks the registry about its readings that pass and takes the one registered under
// the issuer's name.
func TestTheRegistryChoosesTheNumberReadWrong(t *testing.T) {
	truth := invoicegen.New(22).Invoice()
	right := truth.RegistrationNumber
	// The last digit printed as one OCR reads for it (8 for 3, 7 for 1: confusedDigits).
	last := right[len(right)-1]
	wrong := right[:len(right)-1] + string("8778968138"[last-'0'])
	require.False(t, pay.ValidRegistrationNumber(wrong), "the check digit refuses %s", wrong)
	truth.RegistrationNumber = wrong
	var asked [][]string
	fields := readWithRegistry(t, "registry-choice", truth, registry{right[1:], truth.IssuerName, "", &asked})
	assert.Equal(t, right, fields.RegistrationNumber.Value, "printed %s; the registry knows %s as %s", wrong, right, truth.IssuerName)
	assert.True(t, fields.IssuerFromRegistry)
	// The readings that pass the check digit are asked at once (one NTA request).
	require.Len(t, asked, 1)
	assert.Contains(t, asked[0], right[1:])
	t.Logf("%d readings of %s asked of the registry in one call", len(asked[0]), wrong)
}

// Learning where a supplier prints its fields (issue 28): the supplier's invoices print
// the payment date after a label the rules do not know (ご決済予定), so the reading misses
// it. Paid once, the first file's kept lines teach where it is (invoiceread.Learn, as the
// payment does); the supplier's next invoice, found by its registration number, has the
// date read from there. Another buyer's reading of the same invoice misses it still.
func TestASuppliersPlacesReadTheDateTheRulesMiss(t *testing.T) {
	if err := ocr.Available(); err != nil {
		t.Fatalf("the OCR tools are missing (task ocr-tools): %v", err)
	}
	ctx := context.Background()
	tno := invoicegen.New(5).Invoice().RegistrationNumber
	page := func(due string) []byte {
		b, err := invoicegen.RenderText([]invoicegen.TextLine{
			{Text: "請求書", Pt: 22}, {Text: "株式会社ひかり商事 御中", Pt: 12}, {Text: "株式会社サンプル製作所", Pt: 12},
			{Text: "登録番号 " + tno, Pt: 11}, {Text: "ご請求金額 ¥125,400", Pt: 14}, {Text: "ご決済予定 " + due, Pt: 11},
		})
		require.NoError(t, err, "needs the font from the ocr-tools task")
		return b
	}
	fs := &files.Local{Dir: t.TempDir()}
	job := &invoicefiles.OCR{Store: db.Store, Files: fs}
	upload := func(buyerID int64, key string, png []byte) store.InvoiceFile {
		require.NoError(t, fs.Put(ctx, key, bytes.NewReader(png), int64(len(png)), pay.FileTypePNG))
		f, err := db.Store.CreateInvoiceFile(ctx, buyerID, store.NewInvoiceFile{
			StorageKey: key, OriginalName: "invoice.png", Size: int64(len(png)), MediaType: pay.FileTypePNG,
			SHA256: fmt.Sprintf("%x", sha256.Sum256(png)), Pages: 1,
		}, invoicefiles.QueueOCR(ctx, db.Store))
		require.NoError(t, err)
		payload, _ := json.Marshal(invoicefiles.OCRJob{BuyerID: buyerID, FileID: f.ID})
		require.NoError(t, job.Run(ctx, payload))
		f, err = db.Store.InvoiceFile(ctx, buyerID, f.ID)
		require.NoError(t, err)
		require.Equal(t, store.OCRDone, f.OCRStatus)
		return f
	}
	fieldsOf := func(f store.InvoiceFile) invoiceread.Fields {
		var read invoiceread.Fields
		require.NoError(t, json.Unmarshal(f.OCRFields, &read))
		return read
	}

	buyer := newBuyer(t, "a@places.example")
	first := upload(buyer, "invoices/places-1", page("2026年11月25日"))
	assert.False(t, fieldsOf(first).DueDate.Found, "the rules know no ご決済予定: %s", first.OCRText)

	// The buyer pays it with the date typed: what the payment keeps for the supplier.
	raw, err := db.Store.InvoiceFileLines(ctx, buyer, first.ID)
	require.NoError(t, err)
	lines, err := invoiceread.UnmarshalLines(raw)
	require.NoError(t, err)
	require.NotEmpty(t, lines, "an image's reading keeps its lines with their boxes")
	places := invoiceread.Learn(lines, invoiceread.Known{Total: 125400, DueDate: "2026-11-25"})
	require.NotEmpty(t, places)
	t.Logf("learned: %+v", places)
	placesJSON, err := json.Marshal(places)
	require.NoError(t, err)
	sup, err := db.Store.CreateSupplier(ctx, buyer, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社サンプル製作所",
		NameKana: "サンプルセイサクシヨ", CorporateNumber: tno[1:]}, nil)
	require.NoError(t, err)
	remember(t, buyer, sup.ID, store.SupplierHistory{RegistrationNumber: tno, IssuerName: sup.Name, Places: placesJSON})

	next := fieldsOf(upload(buyer, "invoices/places-2", page("2026年12月25日")))
	assert.True(t, next.DueDate.Found, "read where the supplier prints it")
	assert.Equal(t, "2026-12-25", next.DueDate.Value)
	assert.Equal(t, int64(125400), next.Total.Value)

	other := newBuyer(t, "b@places.example")
	_, err = db.Store.InvoiceFileLines(ctx, other, first.ID)
	assert.ErrorIs(t, err, store.ErrNotFound, "a file's lines are its buyer's")
	theirs := fieldsOf(upload(other, "invoices/places-3", page("2026年12月25日")))
	assert.False(t, theirs.DueDate.Found, "another buyer's payments teach this buyer's readings nothing")
}

// The issuer's name under its seal (issue 28): the generator's scan of an invoice whose
// 角印 is stamped over 大和精工㈱ reads the name as noise on the page; the issuer's block
// read again with the seal's grey dropped reads it, and the holder's (ｶ writes out the ㈱
// the crop read as a kanji. The same crop with the seal kept does not read it.
func TestTheIssuersNameIsReadUnderItsSeal(t *testing.T) {
	if err := ocr.Available(); err != nil {
		t.Fatalf("the OCR tools are missing (task ocr-tools): %v", err)
	}
	ctx := context.Background()
	g := invoicegen.SetGenerator.New(1)
	// The set's seventh scan, as task ocr:accuracy makes it (each rendering draws on the
	// generator's randomness too).
	var truth invoicegen.Truth
	var doc invoicegen.Doc
	for i := range 7 {
		truth = g.Invoice()
		var err error
		doc, err = g.Render(ctx, truth, invoicegen.SetGenerator.Layouts()[i%3], invoicegen.KindScannedPDF)
		require.NoError(t, err)
	}
	rd, err := (&ocr.Reader{}).Open(ctx, doc.MediaType, doc.Bytes)
	require.NoError(t, err)
	t.Cleanup(func() { rd.Close() })

	lines := invoicefiles.Lines(rd.Lines)
	page := invoiceread.Extract(rd.Text, lines)
	f, _ := invoicefiles.ReadFields(ctx, rd, nil)
	t.Logf("issuer: page %q, with the crops %q (%.2f); holder %q", page.IssuerName.Value, f.IssuerName.Value, f.IssuerName.Confidence, f.AccountHolder.Value)
	require.Equal(t, "大和精工株式会社", truth.IssuerName)
	assert.NotEqual(t, truth.IssuerName, page.IssuerName.Value, "the seal spoils the page's reading (else this test proves nothing)")
	assert.Equal(t, truth.IssuerName, f.IssuerName.Value)

	i := slices.IndexFunc(invoiceread.Rereads(lines, page), func(r invoiceread.Reread) bool { return r.Field == "issuer_name" })
	require.GreaterOrEqual(t, i, 0, "the issuer's block is asked for")
	rr := invoiceread.Rereads(lines, page)[i]
	kept, err := rd.Reread(ctx, ocr.Crop{Page: rr.Page, Box: rr.Box, Block: true})
	require.NoError(t, err)
	dropped, err := rd.Reread(ctx, ocr.Crop{Page: rr.Page, Box: rr.Box, Block: true, Seal: true})
	require.NoError(t, err)
	t.Logf("the block with its seal %q, without %q", kept.Text, dropped.Text)
	assert.Contains(t, dropped.Text, "大和精工")
	assert.NotContains(t, kept.Text, "大和精工")
}

// A phone photo of a ledger's bank table: its small Mincho print, thresholded with the
// page, runs together (京都銀行 read as "Reta") and the page's reading loses the whole
// account; the bank's block cut from the photo's grey and thresholded on its own reads
// it (ocr.Crop.Block on a photo).
func TestAPhotosBankTableIsReadFromItsGrey(t *testing.T) {
	if err := ocr.Available(); err != nil {
		t.Fatalf("the OCR tools are missing (task ocr-tools): %v", err)
	}
	ctx := context.Background()
	g := invoicegen.SetHoldout.New(1)
	truth := g.Invoice()
	doc, err := g.Render(ctx, truth, invoicegen.LayoutLedger, invoicegen.KindPhoto)
	require.NoError(t, err)
	rd, err := (&ocr.Reader{}).Open(ctx, doc.MediaType, doc.Bytes)
	require.NoError(t, err)
	t.Cleanup(func() { rd.Close() })

	page := invoiceread.Extract(rd.Text, invoicefiles.Lines(rd.Lines))
	f, _ := invoicefiles.ReadFields(ctx, rd, nil)
	t.Logf("page: bank %q number %q; with the crops: %q %q %q", page.BankName.Value, page.AccountNumber.Value,
		f.BankName.Value, f.BranchName.Value, f.AccountNumber.Value)
	assert.False(t, page.BankName.Found || page.AccountNumber.Found, "the page's reading loses the account (else this test proves nothing)")
	assert.Equal(t, truth.BankName, f.BankName.Value)
	assert.Equal(t, truth.BranchName, f.BranchName.Value)
	assert.Equal(t, truth.AccountNumber, f.AccountNumber.Value)
}
