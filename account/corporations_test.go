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

// Verify is the registration's lookup of one number: the NTA's record (kept), its "no
// such corporation" (believed over the table), and when it fails the table, or nothing.
func TestCorporationVerify(t *testing.T) {
	ctx := context.Background()
	const known, other = "4010401089990", "3010401089991"
	var answer []nta.Corporation
	var fail error
	s := &account.Corporations{Store: db.Store, Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)),
		Registry: account.RegistryFunc(func(_ context.Context, q string) ([]nta.Corporation, error) { return answer, fail })}

	answer = []nta.Corporation{{CorporateNumber: known, Name: "照会テスト株式会社", Address: "大阪府大阪市北区"}}
	c, found, err := s.Verify(ctx, known)
	require.NoError(t, err)
	assert.Equal(t, account.Confirmed, found)
	assert.Equal(t, "照会テスト株式会社", c.Name)
	saved, err := db.Store.Corporation(ctx, known)
	require.NoError(t, err, "the NTA's answer is kept")
	assert.Equal(t, "大阪府大阪市北区", saved.Address)

	// The NTA down: the kept record confirms; an unrecorded number is unavailable.
	answer, fail = nil, errors.New("nta: /4/num: HTTP 503")
	c, found, err = s.Verify(ctx, known)
	require.NoError(t, err)
	assert.Equal(t, account.Confirmed, found)
	assert.Equal(t, "照会テスト株式会社", c.Name)
	_, found, err = s.Verify(ctx, other)
	require.NoError(t, err)
	assert.Equal(t, account.Unavailable, found)

	// The NTA answering, without the number (closed, or never issued): unknown, whatever
	// the table says.
	fail = nil
	_, found, err = s.Verify(ctx, known)
	require.NoError(t, err)
	assert.Equal(t, account.Unknown, found)
	answer = []nta.Corporation{{CorporateNumber: other, Name: "別の法人"}}
	_, found, err = s.Verify(ctx, known)
	require.NoError(t, err)
	assert.Equal(t, account.Unknown, found, "a record of another number is no confirmation")

	// No NTA: the table alone.
	table := &account.Corporations{Store: db.Store}
	_, found, err = table.Verify(ctx, known)
	require.NoError(t, err)
	assert.Equal(t, account.Confirmed, found)
	_, found, err = table.Verify(ctx, "2010401089992")
	require.NoError(t, err)
	assert.Equal(t, account.Unknown, found)
}

// batchRegistry answers Numbers in one call, counting the calls.
type batchRegistry struct {
	calls  [][]string
	answer []nta.Corporation
	fail   error
}

func (r *batchRegistry) Search(context.Context, string) ([]nta.Corporation, error) {
	panic("IssuerNames asks Numbers")
}

func (r *batchRegistry) Numbers(_ context.Context, numbers []string) ([]nta.Corporation, error) {
	r.calls = append(r.calls, numbers)
	return r.answer, r.fail
}

// IssuerNames asks the registry once for several numbers: the ones it knows answer (and
// are kept); when it fails, the corporations the service knows answer.
func TestCorporationIssuerNames(t *testing.T) {
	ctx := context.Background()
	const first, second, unknown = "8010401089994", "7010401089995", "6010401089996"
	reg := &batchRegistry{answer: []nta.Corporation{
		{CorporateNumber: first, Name: "一括照会テスト株式会社", NameKana: "イッカツショウカイテスト"},
		{CorporateNumber: second, Name: "一括照会テスト第二株式会社"},
		{CorporateNumber: "9999999999999", Name: "頼んでいない株式会社"}, // not asked: left out
	}}
	s := &account.Corporations{Store: db.Store, Logger: slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)), Registry: reg}

	got := s.IssuerNames(ctx, []string{first, second, unknown})
	assert.Len(t, reg.calls, 1, "one request for three numbers")
	require.Len(t, got, 2)
	assert.Equal(t, "一括照会テスト株式会社", got[first].Name)
	assert.Equal(t, "イッカツショウカイテスト", got[first].NameKana)
	assert.Equal(t, "一括照会テスト第二株式会社", got[second].Name)
	_, err := db.Store.Corporation(ctx, second)
	require.NoError(t, err, "the registry's answer is kept")

	// The registry down: what the service kept answers.
	reg.answer, reg.fail = nil, errors.New("nta: /4/num: HTTP 503")
	got = s.IssuerNames(ctx, []string{first, unknown})
	require.Len(t, got, 1)
	assert.Equal(t, "一括照会テスト株式会社", got[first].Name)

	// No numbers: no request.
	assert.Empty(t, s.IssuerNames(ctx, nil))
	assert.Len(t, reg.calls, 2)

	// A RegistryFunc answers number by number.
	var asked []string
	f := account.RegistryFunc(func(_ context.Context, q string) ([]nta.Corporation, error) {
		asked = append(asked, q)
		return nil, nil
	})
	list, err := f.Numbers(ctx, []string{first, second})
	require.NoError(t, err)
	assert.Empty(t, list)
	assert.Equal(t, []string{first, second}, asked)
}
