package files_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/files"
)

// storeContract is what every Store must do; it runs against Local and S3.
func storeContract(t *testing.T, st files.Store) {
	ctx := context.Background()
	read := func(t *testing.T, key string) []byte {
		t.Helper()
		rc, err := st.Open(ctx, key)
		require.NoError(t, err)
		defer rc.Close()
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		return b
	}

	t.Run("put then open gives the same bytes", func(t *testing.T) {
		key := files.NewKey(time.Now())
		data := make([]byte, 3<<20+7) // several read buffers, not a round size
		_, _ = rand.Read(data)
		require.NoError(t, st.Put(ctx, key, bytes.NewReader(data), int64(len(data)), "application/pdf"))
		require.Equal(t, data, read(t, key))
	})

	t.Run("put replaces what was under the key", func(t *testing.T) {
		key := files.NewKey(time.Now())
		require.NoError(t, st.Put(ctx, key, strings.NewReader("first"), 5, "image/png"))
		require.NoError(t, st.Put(ctx, key, strings.NewReader("second"), 6, "image/png"))
		require.Equal(t, "second", string(read(t, key)))
	})

	t.Run("a missing key is ErrNotFound", func(t *testing.T) {
		_, err := st.Open(ctx, files.NewKey(time.Now()))
		require.ErrorIs(t, err, files.ErrNotFound)
	})

	t.Run("delete removes, and deleting again is fine", func(t *testing.T) {
		key := files.NewKey(time.Now())
		require.NoError(t, st.Put(ctx, key, strings.NewReader("x"), 1, "image/jpeg"))
		require.NoError(t, st.Delete(ctx, key))
		_, err := st.Open(ctx, key)
		require.ErrorIs(t, err, files.ErrNotFound)
		require.NoError(t, st.Delete(ctx, key))
	})

	t.Run("fewer or more bytes than announced store nothing", func(t *testing.T) {
		for _, tc := range []struct {
			data string
			size int64
		}{{"short", 10}, {"longer than said", 4}} {
			key := files.NewKey(time.Now())
			require.Error(t, st.Put(ctx, key, strings.NewReader(tc.data), tc.size, "application/pdf"), tc.data)
			_, err := st.Open(ctx, key)
			require.ErrorIs(t, err, files.ErrNotFound, tc.data)
		}
	})

	t.Run("keys that could leave the folder or were not made by NewKey are refused", func(t *testing.T) {
		for _, key := range []string{"", "../outside", "invoices/../../etc/passwd", "/etc/passwd", `invoices\..\x`,
			"invoices//x", "invoices/x/", "Invoices/X", "invoices/.hidden", "invoices/請求書.pdf", "invoices/a b", strings.Repeat("a", 201)} {
			require.ErrorIs(t, st.Put(ctx, key, strings.NewReader("x"), 1, "application/pdf"), files.ErrBadKey, key)
			_, err := st.Open(ctx, key)
			require.ErrorIs(t, err, files.ErrBadKey, key)
			require.ErrorIs(t, st.Delete(ctx, key), files.ErrBadKey, key)
		}
	})
}

func TestLocal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "files")
	storeContract(t, files.Local{Dir: dir})
}

func TestLocalKeepsFilesPrivateAndLeavesNoTemporaryFiles(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "files")
	st := files.Local{Dir: dir}
	ctx := context.Background()
	key := files.NewKey(time.Now())
	require.NoError(t, st.Put(ctx, key, strings.NewReader("%PDF-1.4"), 8, "application/pdf"))
	// A failed put (short body) must not leave its temporary file behind.
	require.Error(t, st.Put(ctx, files.NewKey(time.Now()), strings.NewReader("ab"), 3, "application/pdf"))
	// Nor a cancelled one.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, st.Put(cancelled, files.NewKey(time.Now()), strings.NewReader("ab"), 2, "application/pdf"), context.Canceled)

	var paths []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		info, err := d.Info()
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			require.Equal(t, fs.FileMode(0o700), info.Mode().Perm(), rel)
		} else {
			require.Equal(t, fs.FileMode(0o600), info.Mode().Perm(), rel)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	}))
	require.Equal(t, []string{key}, paths, "only the stored file, under its key")
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing written beside the folder")
}

func TestLocalWithoutDirIsAnError(t *testing.T) {
	err := files.Local{}.Put(context.Background(), files.NewKey(time.Now()), strings.NewReader("x"), 1, "image/png")
	require.Error(t, err)
	require.False(t, errors.Is(err, files.ErrBadKey))
}
