#!/usr/bin/env bash
# `task test:go`: the Go tests. The race-detector set and the image and OCR packages
# (without the race detector: pixel loops gain nothing from it and took 10 of the run's
# minutes under it; invoicefiles, the OCR job, reads generated scans, photos and faxes
# with real tesseract: 80 s of its 85 under it, about 25 s without) run side by side: the
# race set ends on cmd/server's kill and idle tests, which keep one core busy at most, and
# tesseract takes the other (the two ran one after the other until issue 28's session,
# ~80 s of the stage). The output of both goes to test-results/go-test.log, kept for the
# card data scan at the end of the browser tests.
#
# The security and money suites run on their own (test:security, test:money) and print
# their tables there; so does the money kill test of cmd/server. golang.org/x/crypto is
# compiled without the instrumentation (our code keeps it): argon2id's memory-hard loop
# ran 4-5 times slower under it, and every test user's password is hashed (account's
# tests: 85 s with it, 45 s without).
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-results

go test -count=1 ./ocr/ ./ocr/invoicegen/ ./invoicefiles/ > test-results/go-test-ocr.log 2>&1 &
ocr=$!

go test -race -gcflags='golang.org/x/crypto/...=-race=false' -count=1 -skip '^TestKilledDuringCaptureAndFileMaking$' \
	$(go list ./... | grep -Ev '/handlers/securitysuite$|/invoices/moneysuite$|/ocr$|/ocr/invoicegen$|/invoicefiles$') 2>&1 |
	tee test-results/go-test.log
race=$?

wait "$ocr"
ocrrc=$?
tee -a test-results/go-test.log < test-results/go-test-ocr.log
rm -f test-results/go-test-ocr.log

if [ "$race" -ne 0 ] || [ "$ocrrc" -ne 0 ]; then
	echo "test:go: FAILED (race set exit $race, image and OCR packages exit $ocrrc)" >&2
	exit 1
fi
