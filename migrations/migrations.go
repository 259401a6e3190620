// Package migrations holds the SQL migrations, embedded so the binary migrates its own
// database at start-up and in tests without files on disk.
package migrations

import "embed"

//go:embed *.sql
var FS embed.FS
