package payments_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/banks"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// readAs is one stored field as the OCR job writes it (invoiceread.Field as JSON).
func readAs(value any, confidence float64) map[string]any {
	return map[string]any{"value": value, "confidence": confidence, "found": true}
}

// readFile records a file of buyerID whose reading is done with fields, as the OCR job
// would leave it: the row first (its job runs and finds no bytes), then the reading.
func readFile(t *testing.T, env *webtest.Env, buyerID int64, fields map[string]any) string {
	t.Helper()
	ctx := context.Background()
	f, err := webtest.Store().CreateInvoiceFile(ctx, buyerID, store.NewInvoiceFile{
		StorageKey: webtest.FileKey(), OriginalName: "請求書.pdf", Size: 1000,
		MediaType: pay.FileTypePDF, SHA256: strings.Repeat("0", 64), Pages: 1,
	}, webtest.QueueOCR(ctx))
	require.NoError(t, err)
	env.Settle(t)
	raw, err := json.Marshal(fields)
	require.NoError(t, err)
	require.NoError(t, webtest.Store().SetInvoiceFileOCR(ctx, buyerID, f.ID, store.InvoiceFileOCR{Status: store.OCRDone, Fields: raw}))
	return fmt.Sprintf("/payments/create/files/%d", f.ID)
}

var mizuhoAccount = store.AccountFields{
	BankCode: "0001", BankName: "みずほ銀行", BranchCode: "001", BranchName: "東京営業部",
	AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ",
}

// matchSection is the page's 登録済みの情報との照合, or "" when the page has none.
func matchSection(body string) string {
	_, after, ok := strings.Cut(body, `<section aria-labelledby="invoice-match-title">`)
	if !ok {
		return ""
	}
	section, _, _ := strings.Cut(after, "</section>")
	return section
}

func TestFilePageShowsWhatTheReadingMatched(t *testing.T) {
	require.True(t, banks.Available(), "the zengin data is missing: run `npm run build` first")
	env := webtest.New(t)
	ctx := context.Background()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	yamada, err := webtest.Store().CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{
		BusinessForm: pay.Corporation, Name: "山田商事株式会社", NameKana: "ヤマダショウジ", CorporateNumber: "1180301018771",
	}, &mizuhoAccount)
	require.NoError(t, err)
	_, err = webtest.Store().CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{
		BusinessForm: pay.SoleProprietor, Name: "佐藤 光", NameKana: "サトウ ヒカル", BusinessName: "デザイン事務所ひかり",
	}, nil)
	require.NoError(t, err)
	// Another buyer's supplier, with the registration number and account of the "not
	// registered" case: never ours.
	other := webtest.NewBuyer(t, pay.Corporation, "")
	theirs := mizuhoAccount
	theirs.AccountNumber = "2222222"
	_, err = webtest.Store().CreateSupplier(ctx, other.BuyerID, pay.SupplierInput{
		BusinessForm: pay.Corporation, Name: "他社商事株式会社", CorporateNumber: "2180301018770",
	}, &theirs)
	require.NoError(t, err)

	t.Run("by registration number, with the bank, branch and account", func(t *testing.T) {
		page := c.Get(readFile(t, env, u.BuyerID, map[string]any{
			"issuer_name":         readAs("山田商事(株)", 0.9),
			"registration_number": readAs("T1180301018771", 0.95),
			"total":               readAs(110000, 0.95),
			"tax":                 map[string]any{"value": 0, "confidence": 0, "found": false},
			"addressee":           readAs("テスト株式会社", 0.9),
			"addressee_honorific": "御中",
			"bank_name":           readAs("みずほ銀行", 0.9),
			"branch_name":         readAs("東京営業部", 0.9),
			"account_type":        readAs(int(pay.AccountOrdinary), 0.9),
			"account_number":      readAs("1234567", 0.9),
		}))
		require.Equal(t, http.StatusOK, page.StatusCode)
		// The read fields are shown even beside the honorific (a plain string), and a
		// field not found is not shown as ¥0.
		assert.Contains(t, page.Body, pay.Yen(110000))
		assert.NotContains(t, page.Body, "うち消費税")
		m := matchSection(page.Body)
		require.NotEmpty(t, m, "the match section is shown")
		assert.Contains(t, page.Body, `<h2 id="invoice-match-title">登録済みの情報との照合</h2>`)
		assert.Contains(t, m, "<dt class=\"summary-list__key\">取引先</dt>")
		assert.Contains(t, m, "「"+yamada.Name+"」")
		assert.Contains(t, m, "登録番号が法人番号（1180301018771）と一致しました。")
		assert.Contains(t, m, "みずほ銀行（0001）")
		assert.Contains(t, m, "東京営業部（店番 001）")
		assert.Contains(t, m, "みずほ銀行 東京営業部 普通 1234567 ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ")
		assert.Contains(t, m, "銀行・支店・口座番号が一致しました。")
		assert.Equal(t, 4, strings.Count(m, ">一致</span>"), "supplier, bank, branch and account each say 一致 in words")
		assert.NotContains(t, m, "登録されていません")
	})

	t.Run("by name; an account not registered yet", func(t *testing.T) {
		m := matchSection(c.Get(readFile(t, env, u.BuyerID, map[string]any{
			"issuer_name":    readAs("デザイン事務所ひかり", 0.9),
			"account_number": readAs("7654321", 0.9),
		})).Body)
		require.NotEmpty(t, m)
		assert.Contains(t, m, "「佐藤 光」")
		assert.Contains(t, m, "名称（デザイン事務所ひかり）が一致しました。")
		assert.Contains(t, m, "請求書の口座（口座番号 7654321）は、この取引先の登録済みの口座にありません。次の画面で口座を登録できます。")
		assert.Contains(t, m, ">未登録</span>")
	})

	t.Run("a supplier not registered", func(t *testing.T) {
		m := matchSection(c.Get(readFile(t, env, u.BuyerID, map[string]any{
			"issuer_name":         readAs("株式会社まだ無い商会", 0.9),
			"registration_number": readAs("T2180301018770", 0.95),
			"bank_name":           readAs("みずほ銀行", 0.9),
			"branch_name":         readAs("東京営業部", 0.9),
			"account_number":      readAs("2222222", 0.9),
		})).Body)
		require.NotEmpty(t, m)
		assert.Contains(t, m, "登録されていません")
		assert.Contains(t, m, "請求書の発行者（「株式会社まだ無い商会」、登録番号 T2180301018770）に一致する取引先は登録されていません。次の画面で新しい取引先として登録できます。")
		assert.NotContains(t, m, "他社商事", "another buyer's supplier is never matched")
		assert.NotContains(t, m, "口座番号が一致", "nor its account")
		assert.Contains(t, m, "みずほ銀行（0001）", "the bank is still found in the zengin data")
	})

	t.Run("a bank not in the zengin data", func(t *testing.T) {
		m := matchSection(c.Get(readFile(t, env, u.BuyerID, map[string]any{
			"bank_name": readAs("架空銀行", 0.9),
		})).Body)
		require.NotEmpty(t, m)
		assert.Contains(t, m, "「架空銀行」")
		assert.Contains(t, m, "金融機関の一覧に見つかりませんでした。")
		assert.Contains(t, m, "請求書から発行者を読み取れませんでした。")
	})

	t.Run("nothing to match", func(t *testing.T) {
		page := c.Get(readFile(t, env, u.BuyerID, map[string]any{"total": readAs(5000, 0.9)}))
		require.Equal(t, http.StatusOK, page.StatusCode)
		assert.Empty(t, matchSection(page.Body))
		assert.NotContains(t, page.Body, "登録済みの情報との照合")
	})

	t.Run("not while reading", func(t *testing.T) {
		f, err := webtest.Store().CreateInvoiceFile(ctx, u.BuyerID, store.NewInvoiceFile{
			StorageKey: webtest.FileKey(), OriginalName: "請求書.pdf", Size: 1000,
			MediaType: pay.FileTypePDF, SHA256: strings.Repeat("0", 64), Pages: 1,
		}, webtest.QueueOCR(ctx))
		require.NoError(t, err)
		env.Settle(t)
		require.NoError(t, webtest.Store().SetInvoiceFileOCR(ctx, u.BuyerID, f.ID, store.InvoiceFileOCR{
			Status: store.OCRRunning, Fields: json.RawMessage(`{"issuer_name":{"value":"山田商事株式会社","confidence":0.9,"found":true}}`),
		}))
		page := c.Get(fmt.Sprintf("/payments/create/files/%d", f.ID))
		require.Equal(t, http.StatusOK, page.StatusCode)
		assert.Empty(t, matchSection(page.Body))
	})
}
