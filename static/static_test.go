package static

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadHashesNamesAndReadsManifest(t *testing.T) {
	fsys := fstest.MapFS{
		"css/app.css":                     {Data: []byte("body{}")},
		"dist/icons.svg":                  {Data: []byte("<svg/>")},
		"dist/.gitkeep":                   {Data: nil},
		"dist/islands/snackbar-AB12.js":   {Data: []byte("x")},
		"dist/islands/chunks/chunk-CD.js": {Data: []byte("y")},
		"dist/islands/manifest.json":      {Data: []byte(`{"snackbar":{"file":"islands/snackbar-AB12.js","imports":["islands/chunks/chunk-CD.js"],"dynamicImports":["islands/chunks/Snackbar-EF.js"]}}`)},
	}
	a := load(fsys)
	css := a.urls["css/app.css"]
	assert.Regexp(t, `^/static/css/app\.[0-9a-f]{12}\.css$`, css)
	assert.Equal(t, "/static/dist/islands/snackbar-AB12.js", a.urls["dist/islands/snackbar-AB12.js"], "esbuild's hashed names are kept")
	assert.NotContains(t, a.urls, "dist/.gitkeep")
	assert.NotContains(t, a.urls, "dist/islands/manifest.json", "the manifest is for the server only")
	assert.Equal(t, IslandFiles{Script: "/static/dist/islands/snackbar-AB12.js", Preloads: []string{"/static/dist/islands/chunks/chunk-CD.js", "/static/dist/islands/chunks/Snackbar-EF.js"}}, a.islands["snackbar"])

	// The same content gives the same URL; other content another.
	b := load(fstest.MapFS{"css/app.css": {Data: []byte("body{color:red}")}})
	assert.NotEqual(t, css, b.urls["css/app.css"])
}

func TestHandlerServesOnlyHashedNamesImmutably(t *testing.T) {
	css := URL("css/app.css")
	require.NotEmpty(t, css, "the embedded stylesheet has a URL")
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, css, nil))
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "public, max-age=31536000, immutable", rec.Header().Get("Cache-Control"))
	assert.True(t, strings.HasPrefix(rec.Header().Get("Content-Type"), "text/css"))

	for _, p := range []string{"/static/css/app.css", "/static/dist/islands/manifest.json", "/static/../static.go", "/static/nothing"} {
		rec := httptest.NewRecorder()
		Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, p, nil))
		assert.Equal(t, http.StatusNotFound, rec.Code, p)
	}
}

func TestHandlerServesGzipWhenAccepted(t *testing.T) {
	css := URL("css/app.css")
	tests := []struct {
		accept string
		gzip   bool
	}{
		{"gzip, deflate, br", true},
		{"br;q=1.0, gzip;q=0.8", true},
		{"gzip;q=0", false},
		{"", false},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodGet, css, nil)
		req.Header.Set("Accept-Encoding", tt.accept)
		rec := httptest.NewRecorder()
		Handler().ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code)
		assert.Equal(t, "Accept-Encoding", rec.Header().Get("Vary"))
		if tt.gzip {
			assert.Equal(t, "gzip", rec.Header().Get("Content-Encoding"), tt.accept)
			zr, err := gzip.NewReader(rec.Body)
			require.NoError(t, err)
			b, err := io.ReadAll(zr)
			require.NoError(t, err)
			assert.Contains(t, string(b), ":root")
		} else {
			assert.Empty(t, rec.Header().Get("Content-Encoding"), tt.accept)
			assert.Contains(t, rec.Body.String(), ":root")
		}
	}
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, css, nil))
	assert.Equal(t, http.StatusNotFound, rec.Code, "assets are read-only")
}
