// Package files keeps the bytes of uploaded invoice files behind a small
// interface: a local folder by default (FILES_DIR) or an S3-compatible bucket
// (FILES_S3_*), so several app instances can share the files. It also makes
// and checks the app's own signed URLs (Signer), which work the same over both
// backends because the app, not the bucket, serves the bytes.
//
// Keys are made by the server (invoicefiles.Service.Save: "invoices/<buyer id>/<random>"),
// never from the user's file name; the name, size, type and hash live in the database
// (store.InvoiceFile).
package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
)

// Store keeps file bytes under a key. Put replaces nothing a reader could see
// half-written: a key is either absent or holds all size bytes.
type Store interface {
	// Put stores exactly size bytes read from r under key.
	Put(ctx context.Context, key string, r io.Reader, size int64, mediaType string) error
	// Open reads the bytes under key; ErrNotFound when there are none.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Delete removes key; deleting a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

var (
	// ErrNotFound: nothing is stored under the key.
	ErrNotFound = errors.New("files: not found")
	// ErrBadKey: the key is not one ValidKey accepts.
	ErrBadKey = errors.New("files: invalid key")
	// ErrSize: the reader gave a different number of bytes than announced.
	ErrSize = errors.New("files: size does not match")
)

// keyPattern allows the keys the server makes ("invoices/12/<26 base-32>") and
// nothing that could climb out of a folder: no "..", no leading slash, no
// backslash, no empty segment.
var keyPattern = regexp.MustCompile(`^[a-z0-9]+(/[a-z0-9][a-z0-9_-]*)*$`)

// ValidKey reports whether key is safe to use as a path and an object name.
func ValidKey(key string) error {
	if len(key) == 0 || len(key) > 200 || !keyPattern.MatchString(key) {
		return fmt.Errorf("%w: %q", ErrBadKey, key)
	}
	return nil
}

// sizeCheckReader fails the read that goes past size or ends short of it, so
// a store never keeps a file of another length than announced.
type sizeCheckReader struct {
	r    io.Reader
	left int64
}

func (s *sizeCheckReader) Read(p []byte) (int, error) {
	if int64(len(p)) > s.left+1 {
		p = p[:s.left+1]
	}
	n, err := s.r.Read(p)
	s.left -= int64(n)
	if s.left < 0 {
		return n, ErrSize
	}
	if err == io.EOF && s.left > 0 {
		return n, ErrSize
	}
	return n, err
}
