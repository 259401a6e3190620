package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/store/storetest"
)

// `server reconcile` prints the three-way totals and the differences, and exits with an
// error when anything disagrees: the demo data's transferred payments were never charged
// at the sandbox PSP, so their ledger's charges have no PSP record.
func TestReconcileCommand(t *testing.T) {
	ctx := context.Background()
	d, err := storetest.New(ctx)
	require.NoError(t, err)
	t.Cleanup(d.Close)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	t.Setenv("DATABASE_URL", d.Server.DSN(d.Name))
	t.Setenv("APP_ENV", "development")
	t.Setenv("PSP", "sandbox")
	cfg, err := LoadConfig(func(k string) string {
		return map[string]string{"DATABASE_URL": d.Server.DSN(d.Name), "APP_ENV": "development"}[k]
	})
	require.NoError(t, err)
	require.NoError(t, d.Store.Migrate(ctx))
	require.NoError(t, seedDemo(ctx, d.Store, cfg, logger))

	var out bytes.Buffer
	require.NoError(t, reconcileCommand([]string{"2001-01-01", "2001-01-31"}, &out, logger), out.String())
	assert.Contains(t, out.String(), "| captured from cards | ¥0 | ¥0 | yes |")
	assert.Contains(t, out.String(), "0 differences")

	out.Reset()
	err = reconcileCommand(nil, &out, logger)
	require.Error(t, err, "the demo's charges are not at the PSP")
	assert.Contains(t, out.String(), "| captured from cards | ¥0 |")
	assert.Contains(t, out.String(), "| NO |")
	assert.Contains(t, out.String(), "会計記録と不一致")

	assert.Error(t, reconcileCommand([]string{"2026-13-01"}, &out, logger), "a bad date")
}
