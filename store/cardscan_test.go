package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCardNumbersFindsANumberInAnyTable(t *testing.T) {
	ctx := context.Background()
	tx, err := db.Store.DB.BeginTxx(ctx, nil)
	require.NoError(t, err)
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `CREATE TABLE cardscan_probe (note text)`)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, `INSERT INTO cardscan_probe VALUES ('paid with 4111 1111 1111 1111'), ('tok_4111111111111111 is a token')`)
	require.NoError(t, err)
	require.NoError(t, tx.Commit())
	t.Cleanup(func() { _, _ = db.Store.DB.ExecContext(ctx, `DROP TABLE cardscan_probe`) })

	found, err := db.Store.CardNumbers(ctx)
	require.NoError(t, err)
	require.Len(t, found, 1)
	assert.Equal(t, "public.cardscan_probe", found[0].Table)
	assert.Equal(t, "4•••••••••••1111", found[0].Masked)
}
