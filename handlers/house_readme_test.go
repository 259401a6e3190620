package handlers_test

import (
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README's "The house" is the map a newcomer reads first: a package missing from it
// is a room nobody was told about. Every package of the module must be named in the map's
// code block, by its path or, for an area's handlers and views, by handlers/<area> and
// views/<area>. A package inside another that only serves it (internal/…, a generator, a
// migrations folder) is covered by the one it serves.
func TestEveryPackageIsInTheHouse(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	house := houseMap(t, string(readme))
	named := map[string]bool{}
	for _, w := range regexp.MustCompile(`[a-z][a-z0-9]*(?:/[a-z<>][a-z0-9<>]*)*`).FindAllString(house, -1) {
		named[w] = true
	}
	var missing []string
	for _, p := range listPackages(t) {
		r := rel(p.ImportPath)
		if r == "" || r == "." || housed(r, named) {
			continue
		}
		missing = append(missing, r)
	}
	assert.Empty(t, missing, "packages the README's \"The house\" map does not name: add them where they sit")
	t.Logf("the house names every package of the module (%d named paths in the map)", len(named))
}

// houseMap is the code block under the README's "## The house".
func houseMap(t *testing.T, readme string) string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n## The house\n")
	require.True(t, ok, "README.md has a \"## The house\" section")
	section, _, _ := strings.Cut(rest, "\n## ")
	_, block, ok := strings.Cut(section, "```\n")
	require.True(t, ok, "the house section has a code block: the map")
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok, "the map's code block is closed")
	return block
}

// housed reports whether package r is named in the map: itself, as an area's handlers or
// views, or through the package it serves.
func housed(r string, named map[string]bool) bool {
	switch {
	case named[r]:
		return true
	case areaOf(r) != "" && named["handlers/<area>"]:
		return true
	case viewsAreaOf(r) != "" && named["views/<area>"]:
		return true
	}
	if i := strings.Index(r, "/internal/"); i >= 0 {
		return housed(r[:i], named)
	}
	switch path.Base(r) {
	case "gen", "migrations":
		if d := path.Dir(r); d != "." {
			return housed(d, named)
		}
	}
	return false
}

func TestHoused(t *testing.T) {
	named := map[string]bool{"store": true, "handlers/<area>": true, "views/<area>": true, "auth/commonpasswords": true, "ocr": true}
	for r, want := range map[string]bool{
		"store":                      true,
		"handlers/ops":               true,
		"views/payments":             true,
		"ocr/internal/geom":          true,
		"auth/commonpasswords/gen":   true,
		"gateway/sandbox/migrations": false, // gateway/sandbox is not named here
		"receipts":                   false,
		"handlers/web":               false,
	} {
		assert.Equal(t, want, housed(r, named), r)
	}
}
