// Package static serves the stylesheet, the icon sprite and the island bundles from the
// binary. Every URL it hands out carries a content hash, so responses are cached for a
// year as immutable and a deploy changes the URL instead of the cache.
package static

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

//go:embed css all:dist manual
var files embed.FS

// Prefix is where the assets are mounted.
const Prefix = "/static/"

type assets struct {
	// byURL maps a served path (without Prefix) to the file, read and compressed once.
	byURL map[string]*file
	// urls maps a logical name such as "css/app.css" to its served URL.
	urls    map[string]string
	islands map[string]IslandFiles
}

type file struct {
	contentType string
	raw, gz     []byte
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
	a := &assets{byURL: map[string]*file{}, urls: map[string]string{}, islands: map[string]IslandFiles{}}
	_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(path.Base(p), ".") || p == "dist/islands/manifest.json" {
			return nil
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil
		}
		served := p
		// esbuild already hashes the island bundles, and the chunks import each other
		// by those names, so they are served as they are; everything else gets a hash.
		if !strings.HasPrefix(p, "dist/islands/") {
			sum := sha256.Sum256(b)
			ext := path.Ext(p)
			served = strings.TrimSuffix(p, ext) + "." + hex.EncodeToString(sum[:])[:12] + ext
		}
		a.byURL[served] = newFile(p, b)
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

// newFile keeps a gzipped copy of text assets, compressed once at start-up rather
// than on every request.
func newFile(name string, b []byte) *file {
	f := &file{contentType: mime.TypeByExtension(path.Ext(name)), raw: b}
	if f.contentType == "" {
		f.contentType = "application/octet-stream"
	}
	switch path.Ext(name) {
	case ".css", ".js", ".svg", ".json":
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(b)
		_ = zw.Close()
		if buf.Len() < len(b) {
			f.gz = buf.Bytes()
		}
	}
	return f
}

// URL returns the hashed URL of a logical asset name ("css/app.css", "dist/icons.svg").
// An unknown name returns "" so a missing build shows up as a broken link in tests.
func URL(name string) string { return get().urls[name] }

// ReadFile returns the bytes of a logical asset name ("manual/pay-upload.jpg"): the
// manual reads its pictures' sizes from them.
func ReadFile(name string) ([]byte, error) { return fs.ReadFile(files, name) }

// Island returns the files of a built island, and false when it was not built.
func Island(name string) (IslandFiles, bool) {
	f, ok := get().islands[name]
	return f, ok
}

// Handler serves the assets under Prefix with immutable caching. It needs no session
// or database, so the server routes /static/ to it before loading either.
func Handler() http.Handler {
	a := get()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := a.byURL[strings.TrimPrefix(r.URL.Path, Prefix)]
		if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", f.contentType)
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("X-Content-Type-Options", "nosniff")
		body := f.raw
		if f.gz != nil {
			h.Set("Vary", "Accept-Encoding")
			if acceptsGzip(r) {
				h.Set("Content-Encoding", "gzip")
				body = f.gz
			}
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(body)
	})
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}
