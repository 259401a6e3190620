package views

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDocumentTitle(t *testing.T) {
	b := Base{ServiceName: "請求書カード払い"}
	assert.Equal(t, "請求書カード払い", b.DocumentTitle())
	b.Title = "ログイン"
	assert.Equal(t, "ログイン | 請求書カード払い", b.DocumentTitle())
	b.Errors.Add("email_address", "メールアドレスを入力してください")
	assert.Equal(t, "エラー：ログイン | 請求書カード払い", b.DocumentTitle())
	assert.Equal(t, "メールアドレスを入力してください", b.Errors.For("email_address"))
	assert.Equal(t, "", b.Errors.For("password"))
}

func TestWorkflowFor(t *testing.T) {
	tests := []struct {
		path  string
		label string
		ok    bool
	}{
		{"/payments/create", "請求書カード払い", true},
		{"/payments", "請求書カード払い", true},
		{"/collections/request", "カード払い依頼", true},
		{"/suppliers/add/bank", "登録取引先", true},
		{"/receipt-invoices/1", "受取請求書", true},
		{"/paymentsx", "", false},
		{"/myaccount", "", false},
	}
	for _, tt := range tests {
		wf, ok := WorkflowFor(tt.path)
		assert.Equal(t, tt.ok, ok, tt.path)
		assert.Equal(t, tt.label, wf.Label, tt.path)
	}
}

// TestIconsUsedAreInTheSprite keeps the templates and the sprite (built from
// islands/lib/icon-names.json, SPEC.md §9) in step.
func TestIconsUsedAreInTheSprite(t *testing.T) {
	b, err := os.ReadFile("../islands/lib/icon-names.json")
	require.NoError(t, err)
	var names []string
	require.NoError(t, json.Unmarshal(b, &names))
	inSprite := map[string]bool{}
	for _, n := range names {
		inSprite[n] = true
	}
	files, err := filepath.Glob("*.templ")
	require.NoError(t, err)
	// The components and every area's templates (views/<area>).
	more, _ := filepath.Glob("*/*.templ")
	used := regexp.MustCompile(`Icon\("([a-z_0-9]+)"`)
	found := 0
	for _, f := range append(files, more...) {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range used.FindAllStringSubmatch(string(src), -1) {
			found++
			assert.True(t, inSprite[m[1]], "%s uses icon %q, which is not in the sprite", f, m[1])
		}
	}
	assert.Greater(t, found, 5)
	for _, wf := range []string{"/payments", "/collections", "/suppliers", "/receipt-invoices"} {
		w, _ := WorkflowFor(wf)
		assert.True(t, inSprite[w.Icon], w.Icon)
	}
}
