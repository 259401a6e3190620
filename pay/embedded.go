package pay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// ErrNoEmbeddedData is reported (wrapped) when a binary was built before `npm run build`
// converted the reference data it embeds.
var ErrNoEmbeddedData = errors.New("embedded data is missing")

// ReadEmbedded reads the reference data file of package pkg (banks: zengin, postal: Japan
// Post) from fsys and parses it. A missing file says which build script writes it.
func ReadEmbedded[T any](fsys fs.FS, pkg, file, script string, parse func(io.Reader) (T, error)) (T, error) {
	var zero T
	gz, err := fs.ReadFile(fsys, file)
	if errors.Is(err, fs.ErrNotExist) {
		return zero, fmt.Errorf("%s: %s/%s is missing; run `npm run build` (%s) before building or testing: %w", pkg, pkg, file, script, ErrNoEmbeddedData)
	}
	if err != nil {
		return zero, fmt.Errorf("%s: %w", pkg, err)
	}
	t, err := parse(bytes.NewReader(gz))
	if err != nil {
		return zero, fmt.Errorf("%s: %s: %w", pkg, file, err)
	}
	return t, nil
}
