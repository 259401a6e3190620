package store

import (
	"io/fs"

	"cardpay/migrations"
)

// InTx lets the external tests exercise the transaction helper.
var InTx = (*Store).inTx

// MigrationFiles lists the embedded migrations.
func MigrationFiles() ([]string, error) {
	return fs.Glob(migrations.FS, "*.sql")
}
