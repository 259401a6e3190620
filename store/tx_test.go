package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/store"
)

func TestInTx(t *testing.T) {
	ctx := context.Background()
	_, err := db.Store.DB.ExecContext(ctx, `CREATE TABLE tx_test (n int)`)
	require.NoError(t, err)
	insert := func(n int) func(tx *sqlx.Tx) error {
		return func(tx *sqlx.Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO tx_test VALUES ($1)`, n)
			return err
		}
	}
	rows := func() []int {
		var ns []int
		require.NoError(t, db.Store.DB.SelectContext(ctx, &ns, `SELECT n FROM tx_test ORDER BY n`))
		return ns
	}

	require.NoError(t, store.InTx(db.Store, ctx, insert(1)))
	assert.Equal(t, []int{1}, rows(), "committed")

	failed := errors.New("failed")
	err = store.InTx(db.Store, ctx, func(tx *sqlx.Tx) error {
		require.NoError(t, insert(2)(tx))
		return failed
	})
	assert.Same(t, failed, err, "fn's error comes back as it is")
	assert.Equal(t, []int{1}, rows(), "rolled back on error")

	assert.PanicsWithValue(t, "boom", func() {
		_ = store.InTx(db.Store, ctx, func(tx *sqlx.Tx) error {
			require.NoError(t, insert(3)(tx))
			panic("boom")
		})
	})
	assert.Equal(t, []int{1}, rows(), "rolled back on panic")
}
