package static

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cardHandling are signs of script that reads or checks a card: the card fields' own
// attributes, a Luhn check, the brands' number ranges, the PSP's tokenisation endpoint.
// The PSP's fields (gateway/sandbox/assets, or Stripe.js) do that on the PSP's origin;
// nothing we ship may (PCI DSS SAQ A, 割賦販売法's 非保持化).
var cardHandling = map[string]*regexp.Regexp{
	"card autocomplete tokens":  regexp.MustCompile(`cc-(number|csc|exp)`),
	"a Luhn check":              regexp.MustCompile(`(?i)luhn`),
	"card field names":          regexp.MustCompile(`card_(number|cvc|exp)\b`),
	"brand number ranges":       regexp.MustCompile(`\^3\[47\]|\^5\[1-5\]|\^35\(2\[89\]|\^4\[0-9\]`),
	"the tokenisation endpoint": regexp.MustCompile(`/v1/tokens`),
	"a test card number":        regexp.MustCompile(`4111 ?1111 ?1111 ?1111|4242 ?4242 ?4242 ?4242`),
}

// TestDistHandlesNoCardData scans every script and file we ship in static/dist (the
// built islands, the embedded copy the server serves) for card handling. The card-entry
// island must be among them: an empty dist would pass for nothing.
func TestDistHandlesNoCardData(t *testing.T) {
	_, ok := Island("card-entry")
	require.True(t, ok, "static/dist has the card-entry island (task assets builds it)")
	var scanned, bytes int
	err := fs.WalkDir(files, "dist", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".svg") {
			return err
		}
		data, err := fs.ReadFile(files, path)
		if err != nil {
			return err
		}
		scanned++
		bytes += len(data)
		for what, re := range cardHandling {
			if loc := re.FindIndex(data); loc != nil {
				from, to := max(loc[0]-40, 0), min(loc[1]+40, len(data))
				t.Errorf("%s: %s: …%s…", path, what, data[from:to])
			}
		}
		return nil
	})
	require.NoError(t, err)
	t.Logf("card-data scan of static/dist: %d files, %d bytes, %d patterns", scanned, bytes, len(cardHandling))
	assert.Positive(t, scanned)
}
