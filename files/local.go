package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Local keeps files in a folder outside the web root (FILES_DIR, default
// .data/files in development). Folders are 0700 and files 0600: only the app's
// user reads invoices.
type Local struct {
	Dir string
}

var _ Store = Local{}

func (l Local) path(key string) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	if l.Dir == "" {
		return "", errors.New("files: Local.Dir is empty")
	}
	return filepath.Join(l.Dir, filepath.FromSlash(key)), nil
}

// Put writes to a temporary file in the target folder and renames it into
// place, so a reader sees the whole file or none, even if the app dies midway.
func (l Local) Put(ctx context.Context, key string, r io.Reader, size int64, mediaType string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".put-*")
	if err != nil {
		return fmt.Errorf("files: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes 0600 already; say so, since it is the point.
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if _, err := io.Copy(tmp, &sizeCheckReader{r: ctxReader{ctx, r}, left: size}); err != nil {
		return fmt.Errorf("files: write %s: %w", key, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	ok = true
	return nil
}

func (l Local) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	if err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	return f, nil
}

func (l Local) Delete(ctx context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("files: %w", err)
	}
	return nil
}

// ctxReader stops a long copy when the request is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
