package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunReportsCardNumbersInFilesMasked(t *testing.T) {
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.log")
	dirty := filepath.Join(dir, "dirty.log")
	require.NoError(t, os.WriteFile(clean, []byte("level=INFO msg=card brand=VISA last4=1111\n"), 0o600))
	require.NoError(t, os.WriteFile(dirty, []byte("ok\nbody={\"number\":\"4111111111111111\"}\n"), 0o600))

	findings, scanned, err := run("", []string{clean, dirty})
	require.NoError(t, err)
	assert.Len(t, scanned, 2)
	require.Len(t, findings, 1)
	assert.Contains(t, findings[0], "dirty.log:2")
	assert.Contains(t, findings[0], "4•••••••••••1111")
	assert.NotContains(t, findings[0], "4111111111111111", "the report itself leaks nothing")

	_, _, err = run("", nil)
	assert.Error(t, err)
}
