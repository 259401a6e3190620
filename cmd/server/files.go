package main

import (
	"context"
	"log/slog"
	"os"

	"cardpay/files"
)

// invoiceFileStore is where uploaded invoices are kept: an S3-compatible bucket when
// FILES_S3_ENDPOINT is set (several instances share it), else a local folder.
func invoiceFileStore(ctx context.Context, cfg Config, logger *slog.Logger) (files.Store, error) {
	if cfg.FilesS3.Endpoint != "" {
		s, err := files.NewS3(ctx, cfg.FilesS3)
		if err != nil {
			return nil, err
		}
		logger.Info("invoice files", "s3", cfg.FilesS3.Endpoint, "bucket", cfg.FilesS3.Bucket)
		return s, nil
	}
	dir := cfg.FilesDir
	if dir == "" {
		dir = ".data/files"
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	logger.Info("invoice files", "dir", dir)
	return &files.Local{Dir: dir}, nil
}
