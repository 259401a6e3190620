// Package static serves the stylesheet, the icon sprite and the island bundles from the
// binary. Every URL it hands out carries a content hash, so responses are cached for a
// year as immutable and a deploy changes the URL instead of the cache.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
)

//go:embed css all:dist
var files embed.FS

// Prefix is where the assets are mounted.
const Prefix = "/static/"

type assets struct {
	// byURL maps a served path (without Prefix) to the embedded file.
	byURL map[string]string
	// urls maps a logical name such as "css/app.css" to its served URL.
	urls    map[string]string
	islands map[string]IslandFiles
}

// IslandFiles are the URLs one island needs: its entry module and the chunks it
// imports, preloaded so they download in parallel.
type IslandFiles struct {
	Script   string
	Preloads []string
}

var (
	loadOnce sync.Once
	loaded   *assets
)

func get() *assets {
	loadOnce.Do(func() { loaded = load(files) })
	return loaded
}

func load(fsys fs.FS) *assets {
	a := &assets{byURL: map[string]string{}, urls: map[string]string{}, islands: map[string]IslandFiles{}}
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(path.Base(p), ".") || p == "dist/islands/manifest.json" {
			return nil
		}
		served := p
		// esbuild already hashes the island bundles, and the chunks import each other
		// by those names, so they are served as they are; everything else gets a hash.
		if !strings.HasPrefix(p, "dist/islands/") {
			b, err := fs.ReadFile(fsys, p)
			if err != nil {
				return nil
			}
			sum := sha256.Sum256(b)
			ext := path.Ext(p)
			served = strings.TrimSuffix(p, ext) + "." + hex.EncodeToString(sum[:])[:12] + ext
		}
		a.byURL[served] = p
		a.urls[p] = Prefix + served
		return nil
	})
	if b, err := fs.ReadFile(fsys, "dist/islands/manifest.json"); err == nil {
		var m map[string]struct {
			File           string   `json:"file"`
			Imports        []string `json:"imports"`
			DynamicImports []string `json:"dynamicImports"`
		}
		if json.Unmarshal(b, &m) == nil {
			for name, e := range m {
				f := IslandFiles{Script: Prefix + "dist/" + e.File}
				// The component chunk is imported dynamically by the entry straight away:
				// preloading it too saves a round trip.
				for _, imp := range append(e.Imports, e.DynamicImports...) {
					f.Preloads = append(f.Preloads, Prefix+"dist/"+imp)
				}
				a.islands[name] = f
			}
		}
	}
	return a
}

// URL returns the hashed URL of a logical asset name ("css/app.css", "dist/icons.svg").
// An unknown name returns "" so a missing build shows up as a broken link in tests.
func URL(name string) string { return get().urls[name] }

// Island returns the files of a built island, and false when it was not built.
func Island(name string) (IslandFiles, bool) {
	f, ok := get().islands[name]
	return f, ok
}

// Handler serves the assets under Prefix with immutable caching.
func Handler() http.Handler {
	a := get()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := a.byURL[strings.TrimPrefix(r.URL.Path, Prefix)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		b, err := fs.ReadFile(files, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		ct := mime.TypeByExtension(path.Ext(name))
		if ct == "" {
			ct = "application/octet-stream"
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(b)
	})
}
