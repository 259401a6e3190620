package files

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3 keeps files in a bucket of any S3-compatible service (FILES_S3_ENDPOINT,
// FILES_S3_BUCKET, FILES_S3_ACCESS_KEY, FILES_S3_SECRET_KEY, FILES_S3_SECURE).
// The bucket stays private: browsers get the app's signed URLs, never the
// bucket's.
type S3 struct {
	Client *minio.Client
	Bucket string
}

var _ Store = (*S3)(nil)

// S3Config is the configuration of NewS3.
type S3Config struct {
	Endpoint  string // host:port, no scheme
	Bucket    string
	AccessKey string
	SecretKey string
	Secure    bool // https
	Region    string
}

// NewS3 connects to the service and makes sure the bucket exists, so a wrong
// endpoint or key stops the app at start rather than at the first upload.
func NewS3(ctx context.Context, c S3Config) (*S3, error) {
	if c.Endpoint == "" || c.Bucket == "" {
		return nil, errors.New("files: FILES_S3_ENDPOINT and FILES_S3_BUCKET are required")
	}
	cl, err := minio.New(c.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(c.AccessKey, c.SecretKey, ""),
		Secure: c.Secure,
		Region: c.Region,
	})
	if err != nil {
		return nil, fmt.Errorf("files: s3 client: %w", err)
	}
	exists, err := cl.BucketExists(ctx, c.Bucket)
	if err != nil {
		return nil, fmt.Errorf("files: s3 bucket %s: %w", c.Bucket, err)
	}
	if !exists {
		if err := cl.MakeBucket(ctx, c.Bucket, minio.MakeBucketOptions{Region: c.Region}); err != nil {
			return nil, fmt.Errorf("files: s3 make bucket %s: %w", c.Bucket, err)
		}
	}
	return &S3{Client: cl, Bucket: c.Bucket}, nil
}

// Put uploads with the announced size (a single PUT below minio-go's
// multipart threshold, which 10 MB invoices are); S3 makes the object visible
// only once complete.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, size int64, mediaType string) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	_, err := s.Client.PutObject(ctx, s.Bucket, key, &sizeCheckReader{r: r, left: size}, size, minio.PutObjectOptions{
		ContentType: mediaType,
		// Even if someone opened the bucket by mistake, a browser would not
		// render the invoice in the bucket's origin.
		ContentDisposition: "attachment",
	})
	if err != nil {
		return fmt.Errorf("files: s3 put %s: %w", key, err)
	}
	return nil
}

// Open asks for the object's metadata first: minio-go's GetObject is lazy and
// would report a missing key only on the first Read.
func (s *S3) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := ValidKey(key); err != nil {
		return nil, err
	}
	obj, err := s.Client.GetObject(ctx, s.Bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, s.err("get", key, err)
	}
	if _, err := obj.Stat(); err != nil {
		_ = obj.Close()
		return nil, s.err("get", key, err)
	}
	return obj, nil
}

func (s *S3) Delete(ctx context.Context, key string) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	if err := s.Client.RemoveObject(ctx, s.Bucket, key, minio.RemoveObjectOptions{}); err != nil {
		if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
			return nil
		}
		return fmt.Errorf("files: s3 delete %s: %w", key, err)
	}
	return nil
}

func (s *S3) err(op, key string, err error) error {
	if minio.ToErrorResponse(err).Code == minio.NoSuchKey {
		return fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return fmt.Errorf("files: s3 %s %s: %w", op, key, err)
}
