package account_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/nta"
)

func TestCorporationSearch(t *testing.T) {
	ctx := context.Background()
	var logs bytes.Buffer
	var asked []string
	answer := []nta.Corporation{{CorporateNumber: "5010401089998", Name: "検索テスト通商株式会社", NameKana: "ケンサクテストツウショウ", Address: "東京都千代田区"}}
	var fail error
	s := &account.Corporations{Store: db.Store, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Registry: account.RegistryFunc(func(_ context.Context, q string) ([]nta.Corporation, error) {
			asked = append(asked, q)
			return answer, fail
		})}

	// The registry's answer is kept, then the table answers.
	list, err := s.Search(ctx, "検索テスト", 20)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "5010401089998", list[0].CorporateNumber)
	assert.Equal(t, "東京都千代田区", list[0].Address)
	assert.Equal(t, []string{"検索テスト"}, asked)

	// A failing registry is logged and the table's answer stands.
	fail, answer = errors.New("nta: 503"), nil
	list, err = s.Search(ctx, "検索テスト", 20)
	require.NoError(t, err)
	assert.Len(t, list, 1, "kept from the first answer")
	assert.Contains(t, logs.String(), "corporate-number lookup failed")

	// Without a registry only the table is searched.
	local := &account.Corporations{Store: db.Store}
	list, err = local.Search(ctx, "検索テスト", 20)
	require.NoError(t, err)
	assert.Len(t, list, 1)
	list, err = local.Search(ctx, "存在しない名前", 20)
	require.NoError(t, err)
	assert.Empty(t, list)
}
