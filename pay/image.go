package pay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
)

// MaxImageDecodeBytes is the most memory one decoded invoice image may take (issue 24). A
// PNG or JPEG of a few hundred kilobytes can describe 20000×20000 pixels, which decode to
// 400 MB of grey or 1.6 GB of colour: the pixel count alone (MaxInvoiceImagePixels) does
// not bound that, since a 16-bit PNG takes 8 bytes a pixel and a progressive JPEG keeps
// its coefficients besides the picture. 256 MiB still takes a 600 DPI A4 colour scan
// stored as a progressive JPEG (35 MP at 7.5 bytes a pixel), and several uploads at once
// (MaxUploadsPerInstance) stay within a small instance's memory.
const MaxImageDecodeBytes = 256 << 20

// ImageHeader is what an image's header says, read without decoding any pixel.
type ImageHeader struct {
	MediaType string // FileTypeJPEG or FileTypePNG
	Width     int
	Height    int
	// DecodeBytes is the memory decoding would take (an estimate from above).
	DecodeBytes int64
}

// ErrImageTooLarge is wrapped by CheckImageHeader's error for an image over
// MaxInvoiceImagePixels or MaxImageDecodeBytes; any other error means an unreadable image.
var ErrImageTooLarge = errors.New("image too large to decode")

// CheckImageHeader identifies b by its magic bytes (never a name or a Content-Type), reads
// its dimensions from the header with that format's own DecodeConfig and refuses, before
// any pixel buffer exists, an image whose decoding would pass MaxInvoiceImagePixels or
// MaxImageDecodeBytes. Every place that decodes an uploaded image (the upload check, the
// preview, the OCR) goes through it, by DecodeImage.
func CheckImageHeader(b []byte) (ImageHeader, error) {
	h := ImageHeader{MediaType: FileTypeFromContent(b)}
	var (
		cfg image.Config
		err error
	)
	switch h.MediaType {
	case FileTypeJPEG:
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(b))
	case FileTypePNG:
		cfg, err = png.DecodeConfig(bytes.NewReader(b))
	default:
		return h, errors.New("pay: not a JPEG or PNG image")
	}
	if err != nil {
		return h, fmt.Errorf("pay: image header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return h, errors.New("pay: image without pixels")
	}
	h.Width, h.Height = cfg.Width, cfg.Height
	pixels := int64(cfg.Width) * int64(cfg.Height)
	h.DecodeBytes = int64(math.Ceil(float64(pixels) * bytesPerPixel(h.MediaType, cfg.ColorModel, b)))
	if pixels > MaxInvoiceImagePixels || h.DecodeBytes > MaxImageDecodeBytes {
		return h, fmt.Errorf("pay: image of %d×%d pixels (%d MB decoded): %w", cfg.Width, cfg.Height, h.DecodeBytes>>20, ErrImageTooLarge)
	}
	return h, nil
}

// DecodeImage decodes a JPEG or PNG that CheckImageHeader allows, with the decoder of the
// format its magic bytes name (image.Decode would try any format some package
// registered). A decoder's panic on hostile data is an error.
func DecodeImage(b []byte) (img image.Image, h ImageHeader, err error) {
	h, err = CheckImageHeader(b)
	if err != nil {
		return nil, h, err
	}
	defer func() {
		if p := recover(); p != nil {
			img, err = nil, fmt.Errorf("pay: decoding an image: %v", p)
		}
	}()
	if h.MediaType == FileTypePNG {
		img, err = png.Decode(bytes.NewReader(b))
	} else {
		img, err = jpeg.Decode(bytes.NewReader(b))
	}
	if err != nil {
		return nil, h, fmt.Errorf("pay: decoding an image: %w", err)
	}
	return img, h, nil
}

// bytesPerPixel is what Go's decoders allocate per pixel for an image of this colour
// model, rounded up: the picture itself, and for a progressive JPEG its coefficients (an
// int32 for each of a block's 64, per component at that component's sampling).
func bytesPerPixel(mediaType string, m color.Model, b []byte) float64 {
	if mediaType == FileTypeJPEG {
		progressive, planes := jpegFrame(b)
		var n float64
		switch m {
		case color.GrayModel:
			n = 1
		case color.YCbCrModel:
			n = planes // Y at full size, Cb and Cr as subsampled
		default:
			n = 4 // CMYK, or colour the decoder turns into RGBA
		}
		if progressive {
			n += 4 * planes
		}
		return n
	}
	switch m {
	case color.GrayModel, color.AlphaModel:
		return 1
	case color.Gray16Model, color.Alpha16Model:
		return 2
	case color.RGBAModel, color.NRGBAModel:
		return 4
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 8 // 16-bit colour, and anything unforeseen
}

// jpegFrame reads a JPEG's frame header (the first SOFn marker segment): whether it is
// progressive (SOF2, SOF6, SOF10, SOF14), and its components' planes as a multiple of the
// pixel count (3 for 4:4:4 colour, 1.5 for 4:2:0, 1 for grey). An unreadable header is
// taken at its worst (progressive, 4 full planes): the decoder will refuse it anyway.
func jpegFrame(b []byte) (progressive bool, planes float64) {
	i := 2
	for i+4 <= len(b) {
		if b[i] != 0xFF {
			break
		}
		marker := b[i+1]
		if marker == 0xFF { // fill byte
			i++
			continue
		}
		size := int(binary.BigEndian.Uint16(b[i+2:]))
		if size < 2 || i+2+size > len(b) {
			break
		}
		seg := b[i+4 : i+2+size]
		switch marker {
		case 0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF:
			progressive = marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE
			if len(seg) < 6 || seg[5] == 0 || len(seg) < 6+3*int(seg[5]) {
				return true, 4
			}
			n := int(seg[5])
			hmax, vmax := 1, 1
			for c := range n {
				hv := seg[6+3*c+1]
				hmax, vmax = max(hmax, int(hv>>4)), max(vmax, int(hv&15))
			}
			for c := range n {
				hv := seg[6+3*c+1]
				planes += float64(max(1, int(hv>>4))*max(1, int(hv&15))) / float64(hmax*vmax)
			}
			return progressive, planes
		case 0xDA, 0xD9:
			return true, 4
		}
		i += 2 + size
	}
	return true, 4
}
