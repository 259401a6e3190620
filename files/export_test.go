package files

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// NewKey makes a fresh random key in a month folder, for the stores' tests.
func NewKey(now time.Time) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return fmt.Sprintf("invoices/%s/%s", now.UTC().Format("2006/01"), hex.EncodeToString(b[:]))
}
