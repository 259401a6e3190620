// Command gen writes ../list.txt from the npm package @zxcvbn-ts/language-common
// (`npm ci && go generate ./auth/commonpasswords`). It keeps the entries that
// account.ValidatePassword's length rule lets through, folded as Contains folds them,
// sorted, with the package's name, version and licence in the header.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"cardpay/auth/commonpasswords"
)

const pkgName = "@zxcvbn-ts/language-common"

func main() {
	pkg := flag.String("pkg", filepath.Join("..", "..", "node_modules", pkgName), "the npm package's folder")
	out := flag.String("out", "list.txt", "the file to write")
	flag.Parse()
	b, err := build(*pkg)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}

// build makes the list file's bytes from the package in dir.
func build(dir string) ([]byte, error) {
	var meta struct{ Name, Version, License string }
	if err := readJSON(filepath.Join(dir, "package.json"), &meta); err != nil {
		return nil, fmt.Errorf("%w (run npm ci first)", err)
	}
	if meta.Name != pkgName || meta.License != "MIT" {
		return nil, fmt.Errorf("%s: %s under %q, want %s under MIT", dir, meta.Name, meta.License, pkgName)
	}
	var raw []string
	if err := readJSON(filepath.Join(dir, "src", "passwords.json"), &raw); err != nil {
		return nil, err
	}
	// 4.1.3 has 49,233: far fewer means the package's layout changed.
	if len(raw) < 10000 {
		return nil, fmt.Errorf("%s: only %d passwords (has the package's format changed?)", pkgName, len(raw))
	}
	licence, err := os.ReadFile(filepath.Join(dir, "LICENSE.txt"))
	if err != nil {
		return nil, err
	}

	seen := map[string]bool{}
	var kept []string
	for _, p := range raw {
		f := commonpasswords.Fold(p)
		// A line holds one password: nothing with a line break or control character.
		if utf8.RuneCountInString(f) < commonpasswords.MinRunes || !utf8.ValidString(f) ||
			strings.ContainsFunc(f, unicode.IsControl) || seen[f] {
			continue
		}
		seen[f] = true
		kept = append(kept, f)
	}
	slices.Sort(kept)

	var b bytes.Buffer
	fmt.Fprintf(&b, "# Common passwords of %d or more characters, NFKC-normalised and lower-cased, one a line.\n", commonpasswords.MinRunes)
	fmt.Fprintf(&b, "# %d of the %d in npm %s@%s (src/passwords.json).\n", len(kept), len(raw), meta.Name, meta.Version)
	b.WriteString("# Made by auth/commonpasswords/gen: npm ci && go generate ./auth/commonpasswords\n")
	fmt.Fprintf(&b, "# The package's licence (%s):\n#\n", meta.License)
	for line := range strings.Lines(strings.TrimSpace(string(licence))) {
		b.WriteString(strings.TrimRight("# "+strings.TrimRight(line, "\r\n"), " ") + "\n")
	}
	b.WriteString("\n")
	for _, p := range kept {
		b.WriteString(p + "\n")
	}
	return b.Bytes(), nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
