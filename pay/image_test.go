package pay_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/require"

	"cardpay/pay"
)

// pngHeaderOf is a PNG whose header claims w×h pixels of the given bit depth and colour
// type (0 grey, 2 RGB, 6 RGBA), with no pixel data: whatever CheckImageHeader decides, it
// decides from the header.
func pngHeaderOf(w, h uint32, depth, colorType byte) []byte {
	var b bytes.Buffer
	b.Write([]byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A})
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, colorType
	_ = binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.WriteString("IHDR")
	b.Write(ihdr)
	_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte("IHDR"), ihdr...)))
	return b.Bytes()
}

// jpegHeaderOf is a JPEG's start up to its frame header (JFIF): SOF0 (baseline) or SOF2
// (progressive), 3 components sampled 4:2:0, w×h pixels.
func jpegHeaderOf(w, h uint16, progressive bool) []byte {
	sof := byte(0xC0)
	if progressive {
		sof = 0xC2
	}
	b := []byte{0xFF, 0xD8,
		// APP0 JFIF: with it, the decoder's config is the frame header.
		0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
		0xFF, sof, 0, 17, 8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 3,
		1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1}
	return b
}

func TestCheckImageHeader(t *testing.T) {
	for _, tc := range []struct {
		name      string
		b         []byte
		mediaType string
		decodeMB  int64
		tooLarge  bool
	}{
		{"A4 at 600 DPI in grey", pngHeaderOf(4960, 7016, 8, 0), pay.FileTypePNG, 33, false},
		{"A4 at 600 DPI in colour with alpha", pngHeaderOf(4960, 7016, 8, 6), pay.FileTypePNG, 132, false},
		{"20000×20000 grey: 400 MB", pngHeaderOf(20000, 20000, 8, 0), pay.FileTypePNG, 381, true},
		{"16-bit colour under 40 MP is still over the memory ceiling", pngHeaderOf(6000, 6000, 16, 6), pay.FileTypePNG, 274, true},
		{"baseline JPEG of 36 MP, 4:2:0", jpegHeaderOf(6000, 6000, false), pay.FileTypeJPEG, 51, false},
		{"progressive JPEG of 36 MP keeps its coefficients too", jpegHeaderOf(6000, 6000, true), pay.FileTypeJPEG, 257, true},
		{"progressive JPEG of A4 at 600 DPI fits", jpegHeaderOf(4960, 7016, true), pay.FileTypeJPEG, 248, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := pay.CheckImageHeader(tc.b)
			require.Equal(t, tc.mediaType, h.MediaType)
			require.Equal(t, tc.decodeMB, h.DecodeBytes>>20)
			if tc.tooLarge {
				require.ErrorIs(t, err, pay.ErrImageTooLarge)
			} else {
				require.NoError(t, err)
			}
		})
	}

	t.Run("the magic bytes decide, not what follows", func(t *testing.T) {
		for _, b := range [][]byte{[]byte("GIF89a\x01\x00\x01\x00\x00\x00"), []byte("BM"), nil} {
			_, err := pay.CheckImageHeader(b)
			require.Error(t, err)
			require.False(t, errors.Is(err, pay.ErrImageTooLarge))
		}
	})
	t.Run("DecodeImage refuses a bomb without decoding it", func(t *testing.T) {
		// A header-only file: a decoder would fail on the missing data, so the
		// "too large" error proves the refusal came first.
		_, _, err := pay.DecodeImage(pngHeaderOf(20000, 20000, 8, 0))
		require.ErrorIs(t, err, pay.ErrImageTooLarge)
	})
}

func TestCheckInvoiceFileRefusesAnImageOverTheMemoryCeiling(t *testing.T) {
	_, msg := pay.CheckInvoiceFile("scan.png", pngHeaderOf(6000, 6000, 16, 6))
	require.Equal(t, "画像を開くのに必要なメモリが大きすぎます（6000×6000 画素、約274MB）。画素数を減らした画像か、通常の JPEG で保存し直した画像を選択してください。", msg)
}
