package invoicegen

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RenderText draws a plain A4 page at 200 dpi, ink where the text is.
func TestRenderTextDrawsThePage(t *testing.T) {
	b, err := RenderText([]TextLine{{Text: "ご決済予定 2026年11月25日", Pt: 11}})
	require.NoError(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Equal(t, 1654, img.Bounds().Dx())
	assert.Equal(t, 2338, img.Bounds().Dy())
	dark := 0
	for y := 0; y < 400; y++ {
		for x := 0; x < 1200; x++ {
			if r, _, _, _ := img.At(x, y).RGBA(); r < 0x8000 {
				dark++
			}
		}
	}
	assert.Greater(t, dark, 500, "the line is drawn near the top left")
}
