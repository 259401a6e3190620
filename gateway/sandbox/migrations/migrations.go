// Package migrations holds the sandbox PSP's own SQL migrations, embedded, applied by
// sandbox.Migrate under their own goose version table.
package migrations

import "embed"

//go:embed *.sql
var FS embed.FS
