package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The committed list is what the package pinned in package.json makes; after
// `npm ci` with a new version this fails until go generate has run.
func TestListIsUpToDate(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "node_modules", pkgName)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("%s is not installed (npm ci)", pkgName)
	}
	want, err := build(dir)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join("..", "list.txt"))
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "run: go generate ./auth/commonpasswords")
}
